"""Shardings in annotations, statically: a dimension written '8@data' states the Explicit mesh axes that split
it (every other dimension unsplit); a shape without '@' states no sharding. Declared against inferred."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

from namedcheck import Array, Dims, f32

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)


def double(x: f32[Array, Dims('B@data', 16)]) -> f32[Array, Dims('B@data', 16)]:
    return x * 2


def wrong_result(x: f32[Array, Dims('8@data', 16)]) -> f32[Array, Dims(8, '16@data')]:
    return x * 2  # expect: NC811


def unstated(x: f32[Array, Dims(8, 16)]) -> f32[Array, Dims(8, 16)]:
    return x * 2


def contract(x: f32[Array, Dims(8, '16@data')], w: f32[Array, Dims('16@data', 4)]) -> f32[Array, Dims(8, 4)]:
    return x @ w  # expect: NC802


x = jax.device_put(jnp.ones((8, 16)), P('data', None))
y = double(x)  # reveal: f32[(8@data, 16)]
z = unstated(jnp.ones((8, 16)))  # reveal: f32[(8, 16)]
kept: f32[('8@data', 16)] = x  # reveal: f32[(8@data, 16)]
stated: f32[Array, Dims('8@data', 16)] = jax.sharding.reshard(jnp.ones((8, 16)), P('data'))
loose: f32[(8, 16)] = x  # reveal: f32[(8@data, 16)]
bad: f32[Array, Dims(8, '16@model')] = x  # expect: NC811
wrong_axes: f32[Array, Dims('8@(data,model)', 16)] = x  # expect: NC811
stated_replicated: f32[Array, Dims('8@()', 16)] = jnp.ones((8, 16))  # reveal: f32[(8, 16)]
not_replicated: f32[Array, Dims('8@()', 16)] = x  # expect: NC811

malformed: f32[Array, Dims('8@', 16)] = x  # expect: NC102
twice: f32[Array, Dims('8@data', '16@data')] = x  # expect: NC102
open_rank: f32[Array, Dims('*batch', '16@data')] = x  # expect: NC101
