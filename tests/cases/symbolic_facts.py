"""Equalities the code states about sizes are learned where they hold: `assert`, and `if ...: raise`."""

import jax.numpy as jnp


def asserted_shape(x, config):
    assert x.shape == (config.batch, 784)
    y = x @ jnp.ones((784, 10))  # reveal: Array[('config.batch', 10)]
    return y


def asserted_size(n: int):
    assert n == 8
    a = jnp.ones((n, 4))  # reveal: f32[(8, 4)]
    return a


def checked_then_raised(x, d: int):
    B, T = x.shape
    h = jnp.zeros((B, T))
    if T != d:
        raise ValueError("bad width")
    w = jnp.ones((d, 3))
    out = h @ w  # reveal: f32[('B', 3)]
    return out


def asserted_wrong(x, config):
    assert x.shape == (config.batch, 784)
    return x @ jnp.ones((100, 10))  # expect: NC203


def learned_size_wrong(n: int):
    assert n == 8
    return jnp.ones((n, 4)) + jnp.ones((3, 4))  # expect: NC201
