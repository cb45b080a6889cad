# The short spelling static tools accept: `f32[Array, Dims(...)]` reads exactly like `f32[(...), {...}]`.
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import Array

from namedcheck import Dims, f32, i32
from namedcheck import Dims as D


def right_forms(
    a: f32[Array, Dims(5, 7)],
    b: f32[Array, Dims(5, 7, batch=20, seq=30)],
    c: f32[Array, Dims()],
    d: f32[Array, Dims(x=2)],
    e: f32[Array, Dims('B', 784)],
    f: f32[Array, Dims(..., 3)],
    g: f32[jax.Array, Dims(batch='B')],
    h: f32[Array, (5, 7)],
) -> i32[Array, Dims(2)]:
    a2 = a  # reveal: f32[(5, 7)]
    b2 = b  # reveal: f32[(5, 7), {'batch': 20, 'seq': 30}]
    c2 = c  # reveal: f32[()]
    d2 = d  # reveal: f32[(), {'x': 2}]
    e2 = e  # reveal: f32[('B', 784)]
    f2 = f  # reveal: f32[(..., 3)]
    g2 = g  # reveal: f32[(), {'batch': 'B'}]
    h2 = h  # reveal: f32[(5, 7)]
    del a2, b2, c2, d2, e2, f2, g2, h2
    return jnp.zeros((2,), dtype=jnp.int32)


def project(x: f32[Array, Dims('B', 784)], w: f32[Array, Dims(784, 10)]) -> f32[Array, Dims('B', 10)]:
    return x @ w


def caller() -> None:
    x = jnp.ones((32, 784))
    w = jnp.ones((784, 10))
    y = project(x, w)  # reveal: f32[(32, 10)]
    z: f32[Array, Dims(32, 10)] = y
    del z
    bad = jnp.ones((784, 12))
    project(x, bad.T)  # expect: NC302


def wrong_declared(x: f32[Array, Dims(5, 7)]) -> f32[Array, Dims(7, 5)]:
    return x  # expect: NC301


def wrong_named_size(x: f32[Array, Dims(3, batch=-1)]) -> None:  # expect: NC102
    pass


def wrong_extra_part(x: f32[Array, Dims(3), Dims(4)]) -> None:  # expect: NC101
    pass


def aliased_import(x: f32[Array, D(4, 'K')]) -> f32[Array, D('K', 4)]:
    y = x.T  # reveal: f32[('K', 4)]
    return y
