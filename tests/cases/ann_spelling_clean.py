# Every form of the short spelling, on correct code: namedcheck, mypy, pyright / basedpyright and ruff
# (default rules, F, UP; with and without `from __future__ import annotations`) report nothing here.
import jax
import jax.numpy as jnp
from jax import Array

from namedcheck import Dims, Float, Int, Num, Shaped, bf16, f32, i32

Row = f32[Array, Dims(3, batch=2)]


def embed(tokens: i32[Array, Dims('B', 'T')], table: f32[Array, Dims('V', 'D')]) -> f32[Array, Dims('B', 'T', 'D')]:
    return table[tokens]


def split_heads(x: f32[Array, Dims('T', 'D')], heads: int) -> f32[Array, Dims('T', 'H', 'D//H')]:
    return x.reshape(x.shape[0], heads, -1)


def shift(x: Float[Array, Dims('N+1')]) -> Float[Array, Dims('N')]:
    return x[1:]


def double(x: f32[Array, Dims('N')]) -> f32[Array, Dims('2*N')]:
    return jnp.concatenate([x, x])


def normalise(x: Float[Array, Dims('*batch', 'D')]) -> Float[Array, Dims('*batch', 'D')]:
    return x / jnp.linalg.norm(x, axis=-1, keepdims=True)


def last(x: f32[Array, Dims(..., 3)]) -> f32[Array, Dims(...)]:
    return x[..., -1]


def count(x: Int[Array, Dims('N')], w: Num[Array, Dims('N')]) -> Shaped[Array, Dims()]:
    return jnp.sum(x * w)


def per_example(x: f32[Array, Dims(3, batch='B')]) -> f32[Array, Dims(batch='B')]:
    return x.sum()


def scalar(x: bf16[Array, Dims()]) -> f32[Array, Dims()]:
    return x.astype(jnp.float32)


def pair(x: Row) -> tuple[Row, f32[Array, Dims(3, batch=2)]]:
    return x, x


def sharded_rows(x: f32[Array, Dims('B@data', '512@model')]) -> f32[Array, Dims('B@data', '512@()')]:
    return jax.sharding.reshard(x, jax.P('data', None))


def main() -> None:
    key = jax.random.key(0)
    tokens = jax.random.randint(key, (4, 16), 0, 100)
    table = jax.random.normal(key, (100, 64))
    e = embed(tokens, table)  # reveal: f32[(4, 16, 64)]
    h = split_heads(e[0], 8)  # reveal: f32[(16, ?, ?)]
    s = shift(jnp.arange(9.0))  # reveal: Float[(8,)]
    d = double(jnp.ones(5))  # reveal: f32[(10,)]
    n = normalise(jnp.ones((2, 3, 4)))  # reveal: Float[(2, 3, 4)]
    c = count(jnp.arange(4), jnp.ones(4))
    print(e.shape, h.shape, s.shape, d.shape, n.shape, c, last(jnp.ones((2, 3))), scalar(jnp.ones((), jnp.bfloat16)))
