"""Partly-Manual shard_map (`axis_names={'data'}` on an Explicit ('data', 'model') mesh): inside the body an
argument is the local block over 'data' and keeps its Explicit sharding over 'model', so the sharding rules
still hold there; the result is sharded by out_specs over 'data', then by the body's own 'model' sharding."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)
x = jax.device_put(jnp.ones((8, 4)), P('data', 'model'))  # reveal: f32[(8@data, 4@model)]
xm = jax.device_put(jnp.ones((8, 4)), P('model', 'data'))  # reveal: f32[(8@model, 4@data)]
w = jax.device_put(jnp.ones((4, 6)), P('model', None))  # reveal: f32[(4@model, 6)]


def double(a):
    return a * 2


def project(a, b):
    return a @ b  # expect: NC802


def project_ok(a, b):
    return jnp.matmul(a, b, out_sharding=P(None, None))


def row_sums(a):
    return a.sum(axis=1)


def gathered(a):
    return jax.sharding.reshard(a, P(None, None))


def flipped(a):
    return a.T


def regroup(a):
    return a.reshape(2, 4)  # expect: NC805


def gram(a):
    return a @ a.T  # expect: NC802


kept = jax.shard_map(double, in_specs=P('data'), out_specs=P('data'), axis_names={'data'})(x)  # reveal: f32[(8@data, 4@model)]
kept_jit = jax.jit(jax.shard_map(double, in_specs=P('data'), out_specs=P('data'), axis_names={'data'}))(x)  # reveal: f32[(8@data, 4@model)]
projected = jax.shard_map(project, in_specs=(P('data'), P()), out_specs=P('data'), axis_names={'data'})(x, w)
projected_ok = jax.shard_map(project_ok, in_specs=(P('data'), P()), out_specs=P('data'), axis_names={'data'})(x, w)  # reveal: f32[(8@data, 6)]
sums = jax.shard_map(row_sums, in_specs=P('data'), out_specs=P('data'), axis_names={'data'})(x)  # reveal: f32[(8@data,)]
replicated = jax.shard_map(gathered, in_specs=P('data'), out_specs=P('data'), axis_names={'data'})(x)  # reveal: f32[(8@data, 4)]
transposed = jax.shard_map(flipped, in_specs=P('data'), out_specs=P(None, 'data'), axis_names={'data'})(x)  # reveal: f32[(4@model, 8@data)]
both_axes = jax.shard_map(flipped, in_specs=P('data'), out_specs=P('data'), axis_names={'data'})(x)  # reveal: f32[(16@(data,model), 2)]
dropped = jax.shard_map(double, in_specs=P(), out_specs=P(), axis_names={'data'})(x)  # reveal: f32[(8, 4@model)]
other_dim = jax.shard_map(double, in_specs=P(None, 'data'), out_specs=P(None, 'data'), axis_names={'data'})(xm)  # reveal: f32[(8@model, 4@data)]
regrouped = jax.shard_map(regroup, in_specs=P(None, 'data'), out_specs=P('data'), axis_names={'data'})(xm)
squared = jax.shard_map(gram, in_specs=P('data'), out_specs=P('data'), axis_names={'data'})(x)
inferred = jax.shard_map(double, out_specs=P('data'), axis_names={'data'})(x)  # reveal: f32[(8@data, 4@model)]
