"""`functools.wraps(fun)` is a decorator that returns the function it decorates (the wrapper, with `fun`'s name):
the wrapper is not `fun`, and decorating it does not call `fun` (ott's `batched_vmap`: NC401 / NC402 on the vmap
of a two-argument function that the decorator line seemed to call with the wrapper)."""

import functools

import jax
import jax.numpy as jnp


def batched_vmap(fun, in_axes=0):
    vmapped = jax.vmap(fun, in_axes=in_axes)

    @functools.wraps(fun)
    def wrapper(*args):
        return vmapped(*args)

    return wrapper


def proj(x, w):
    return x @ w  # expect: NC203


def test_wrapped():
    out = batched_vmap(proj, in_axes=(0, None))(jnp.ones((5, 3)), jnp.ones((3, 2)))  # reveal: f32[(5, 2)]
    assert out.shape == (5, 2)
    assert functools.wraps(proj)(lambda x: x)(1) == 1


def wrong():
    return batched_vmap(proj, in_axes=(0, None))(jnp.ones((5, 3)), jnp.ones((4, 2)))


if __name__ == "__main__":
    test_wrapped()
    try:
        wrong()
    except TypeError as e:
        print("raises:", str(e)[:80])
