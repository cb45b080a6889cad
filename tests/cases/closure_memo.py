"""A loop body defined inside a function sees the values of the call it is analysed under (the
function's standalone analysis, with unknown parameters, must not stand in for it)."""
import jax.numpy as jnp
from jax import lax


def accumulate_bad(chunk, rhs):
    def body(i, acc):
        return acc + chunk @ rhs.T  # expect: NC203
    return lax.fori_loop(0, 4, body, jnp.zeros((8, 4)))


def accumulate_ok(chunk, rhs):
    def body(i, acc):
        return acc + chunk @ rhs
    return lax.fori_loop(0, 4, body, jnp.zeros((8, 4)))


out_bad = accumulate_bad(jnp.ones((8, 16)), jnp.ones((16, 4)))
out_ok = accumulate_ok(jnp.ones((8, 16)), jnp.ones((16, 4)))  # reveal: f32[(8, 4)]
