"""A bare PartitionSpec where no context mesh is set (this module sets none): device_put, reshard, an op's
out_sharding= and a call of jit with PartitionSpec shardings raise, under a legacy `with mesh:` too;
with_sharding_constraint takes the legacy mesh. A NamedSharding needs no context mesh (NC826)."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import AxisType, NamedSharding, reshard
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
amesh = jax.make_mesh((4, 2), ('data', 'model'), axis_types=(AxisType.Auto, AxisType.Auto))
a = jnp.ones((8, 16))  # reveal: f32[(8, 16)]
put_bad = jax.device_put(a, P('data'))  # expect: NC826
put_replicated = jax.device_put(a, P())  # expect: NC826
put = jax.device_put(a, NamedSharding(mesh, P('data')))  # reveal: f32[(8@data, 16)]
moved_bad = reshard(a, P('data'))  # expect: NC826
moved = reshard(a, NamedSharding(mesh, P(None, 'model')))  # reveal: f32[(8, 16@model)]
constrained_bad = lax.with_sharding_constraint(a, P('data'))  # expect: NC826
made_bad = jnp.zeros((8, 16), out_sharding=P('data'))  # expect: NC826
product_bad = jnp.dot(a, a.T, out_sharding=P())  # expect: NC826
double = jax.jit(lambda v: v * 2, in_shardings=P('data'))
doubled_bad = double(a)  # expect: NC826
doubled = jax.jit(lambda v: v * 2, in_shardings=NamedSharding(mesh, P('data')))(put)  # reveal: f32[(8@data, 16)]
out_bad = jax.jit(lambda v: v * 2, out_shardings=P())(a)  # expect: NC826
with amesh:
    legacy_put = jax.device_put(a, P('data'))  # expect: NC826
with amesh:
    legacy_constraint = lax.with_sharding_constraint(a, P('data'))
with amesh:
    legacy_jit = jax.jit(lambda v: lax.with_sharding_constraint(v, P('data')))(a)
named_auto = jax.jit(lambda v: lax.with_sharding_constraint(v, NamedSharding(amesh, P('data'))))(a)  # reveal: f32[(8, 16)]
