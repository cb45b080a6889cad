"""chex's shape assertions: an assert in other words (NC204 where it provably fails, a fact where it holds).
tests/test_chex_under_jax.py runs each function under JAX and chex: the ones with an `expect` raise."""

import chex
import jax.numpy as jnp


def shape_holds():
    x = jnp.zeros((4, 8))
    chex.assert_shape(x, (4, 8))
    return x


def shape_fails():
    x = jnp.zeros((4, 8))
    chex.assert_shape(x, [4, 9])  # expect: NC204
    return x


def rank_fails():
    x = jnp.zeros((4, 8))
    chex.assert_rank(x, 3)  # expect: NC204


def axis_fails():
    x = jnp.zeros((4, 8))
    chex.assert_axis_dimension(x, 1, 4)  # expect: NC204


def axis_holds():
    x = jnp.zeros((4, 8))
    chex.assert_axis_dimension(x, -1, 8)
    chex.assert_rank(x, 2)


def equal_fails():
    chex.assert_equal_shape([jnp.zeros((2, 3)), jnp.ones((3, 2))])  # expect: NC204


def equal_holds():
    chex.assert_equal_shape((jnp.zeros((2, 3)), jnp.ones((2, 3))))


def wildcards_are_not_read():
    x = jnp.zeros((4, 8))
    chex.assert_shape(x, (None, 8))
    chex.assert_shape(x, (..., 8))
    chex.assert_rank(x, {1, 2})
    chex.assert_shape([x, x], (4, 8))


def learned(n):
    x = jnp.zeros((n, 8))
    chex.assert_shape(x, (5, 8))
    y = x  # reveal: f32[(5, 8)]
    return y


def learned_fails(n):
    x = jnp.zeros((n, 8))
    chex.assert_shape(x, (5, 8))
    return x + jnp.ones((6, 8))  # expect: NC201


def conditional(flag):
    x = jnp.zeros((4, 8))
    if flag:
        chex.assert_shape(x, (4, 9))  # under a condition: the sizes that reach it are not certain
    return x


shape_holds()
axis_holds()
equal_holds()
wildcards_are_not_read()
learned(5)
