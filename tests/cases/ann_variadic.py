# Variadic named dims: '*batch' is a run of any number of leading dims, one run per call.
import jax.numpy as jnp
from jax import Array

from namedcheck import Dims, f32


def normalise(x: f32[('*batch', 'D')], scale: f32[('*batch', 1)]) -> f32[('*batch', 'D')]:
    return x / scale


def project(x: f32[Array, Dims('*batch', 3)], w: f32[Array, Dims(3, 4)]) -> f32[Array, Dims('*batch', 4)]:
    return x @ w


def callers() -> None:
    x = jnp.ones((8, 16, 64))
    s = jnp.ones((8, 16, 1))
    y = normalise(x, s)  # reveal: f32[(8, 16, 64)]
    p = project(jnp.ones((2, 5, 3)), jnp.ones((3, 4)))  # reveal: f32[(2, 5, 4)]
    q = project(jnp.ones((3,)), jnp.ones((3, 4)))  # reveal: f32[(4,)]
    del y, p, q
    normalise(x, jnp.ones((8, 4, 1)))  # expect: NC303
    normalise(x, jnp.ones((16, 1)))  # expect: NC303


def body(x: f32[('*batch', 3)]) -> f32[('*batch',)]:
    y = x + x  # reveal: f32[(..., 3)]
    return y.sum(-1)


def wrong_two_runs(x: f32[('*a', '*b')]) -> None:  # expect: NC104
    pass


def wrong_run_name(x: f32[('*1', 3)]) -> None:  # expect: NC102
    pass
