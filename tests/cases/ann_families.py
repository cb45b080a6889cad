# Dtype families: Float, Int, Complex, Num (any numeric), Shaped (any dtype); NC304 only when provably outside.
import jax.numpy as jnp
from jax import Array

from namedcheck import Dims, Float, Int, Num, Shaped, f32


def scale(x: Float[Array, Dims('N')], k: Int[Array, Dims()]) -> Float[Array, Dims('N')]:
    return x * k


def total(x: Num[('N',)]) -> Shaped[()]:
    return x.sum()


def callers(unknown) -> None:
    a = scale(jnp.ones(4, dtype=jnp.bfloat16), jnp.array(2))  # reveal: Float[(4,)]
    b = scale(jnp.ones(4), 3)
    c = total(jnp.arange(5))
    d = scale(unknown, jnp.array(2))
    del a, b, c, d
    scale(jnp.arange(4), jnp.array(2))  # expect: NC304
    scale(jnp.ones(4), jnp.array(2.0))  # expect: NC304
    total(jnp.ones(4, dtype=jnp.bool_))  # expect: NC304


def declared(x: Float[('N',)]) -> None:
    y: Float[('N',)] = x  # reveal: Float[('N',)]
    z: Int[(3,)] = jnp.zeros(3)  # expect: NC304
    w: f32[('N',)] = x * 2
    del y, z, w
