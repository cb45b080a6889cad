# A parameter's default is its value only where a call leaves it out: the function analysed on its own
# takes it as unknown (called below with chunk=8, never with the default).
import jax.numpy as jnp
from jax import Array

from namedcheck import Dims, f32


def chunked(x: f32[Array, Dims(4, 32)], chunk: int = 2048):
    n = 32 // chunk
    return x.reshape((4, n, chunk))


def use(x: f32[Array, Dims(4, 32)]):
    return chunked(x, chunk=8)


y = use(jnp.ones((4, 32)))  # reveal: f32[(4, 4, 8)]


def chunked_default(x: f32[Array, Dims(4, 32)], chunk: int = 2048):
    n = 32 // chunk
    return x.reshape((4, n, chunk))  # expect: NC203


z = chunked_default(jnp.ones((4, 32)))  # the call leaves chunk out: JAX raises (4, 32) -> (4, 0, 2048)
