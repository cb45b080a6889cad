"""Layers as pure functions over parameter arrays."""

import jax
import jax.numpy as jnp

from namedcheck import f32


def dense(x: f32[("B", "I")], w: f32[("I", "O")], b: f32[("O",)]) -> f32[("B", "O")]:
    return x @ w + b


def mlp_block(x, w_in, w_out):
    h = jax.nn.gelu(jnp.dot(x, w_in))  # expect: NC203
    return jnp.dot(h, w_out)


def init_dense(key, d_in, d_out):
    w = jax.random.normal(key, (d_in, d_out)) / jnp.sqrt(d_in)
    return w, jnp.zeros((d_out,))
