"""Shardings stated in annotations (`Dims('8@data', 4)`, as `jax.typeof` prints `float32[8@data,4]`): the
checker compares them with the values' inferred shardings, `@checked` with `jax.typeof` at each call."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

from namedcheck import Array, Dims, checked, f32

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)


@checked
def scale(x: f32[Array, Dims('8@data', 16)]) -> f32[Array, Dims('8@data', 16)]:
    return x * 2


@checked
def project(x: f32[Array, Dims('B@data', 16)], w: f32[Array, Dims(16, '4@model')]) -> f32[Array, Dims('B@data', '4@model')]:
    return x @ w


@checked
def moved(x: f32[Array, Dims('8@data', 16)]) -> f32[Array, Dims(8, '16@model')]:
    return jax.sharding.reshard(x, P(None, 'model'))


@checked
def both(x: f32[Array, Dims('8@(data,model)', 16)]) -> f32[Array, Dims('8@(data,model)', 16)]:
    return jnp.sin(x)


@checked
def whole(x: f32[Array, Dims('8@()', 16)]) -> f32[Array, Dims('8@()', 16)]:
    return x + 1


x = jax.device_put(jnp.ones((8, 16)), P('data', None))  # reveal: f32[(8@data, 16)]
w = jax.device_put(jnp.ones((16, 4)), P(None, 'model'))  # reveal: f32[(16, 4@model)]
replicated = jnp.ones((8, 16))  # reveal: f32[(8, 16)]

ok = scale(x)  # reveal: f32[(8@data, 16)]
ok_jit = jax.jit(scale)(x)  # reveal: f32[(8@data, 16)]
proj = project(x, w)  # reveal: f32[(8@data, 4@model)]
proj_jit = jax.jit(project)(x, w)  # reveal: f32[(8@data, 4@model)]
moved_ok = moved(x)  # reveal: f32[(8, 16@model)]
both_ok = both(jax.device_put(jnp.ones((8, 16)), P(('data', 'model'))))  # reveal: f32[(8@(data,model), 16)]
resharded = scale(jax.sharding.reshard(replicated, P('data')))  # reveal: f32[(8@data, 16)]

bad_arg = scale(replicated)  # expect: NC811
bad_arg_jit = jax.jit(scale)(replicated)  # expect: NC811
bad_w = project(x, jax.device_put(jnp.ones((16, 4)), P('data', None)))  # expect: NC811
bad_both = both(x)  # expect: NC811
whole_ok = whole(replicated)  # reveal: f32[(8, 16)]
bad_whole = whole(x)  # expect: NC811
