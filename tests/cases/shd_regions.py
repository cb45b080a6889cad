"""`jax.sharding.auto_axes` / `explicit_axes` regions: inside auto_axes the context mesh's axes are Auto
(shardings leave the types, `out_sharding=` and `reshard` may not name them), inside explicit_axes they are
Explicit (the sharding rules apply: an ambiguous contraction needs `out_sharding=`)."""

from functools import partial

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import AxisType, NamedSharding, auto_axes, explicit_axes, reshard
from jax.sharding import PartitionSpec as P

emesh = jax.make_mesh((4, 2), ('data', 'model'))
amesh = jax.make_mesh((4, 2), ('data', 'model'), axis_types=(AxisType.Auto, AxisType.Auto))
a = jnp.ones((8, 16))


@partial(explicit_axes, in_sharding=(P(None, 'data'), P('data', None)))
def contract(x, w):
    return x @ w  # expect: NC802


@partial(explicit_axes, in_sharding=(P(None, 'data'), P('data', None)))
def contract_ok(x, w):
    return jnp.matmul(x, w, out_sharding=P('data'))


with jax.set_mesh(amesh):
    r1 = contract(a, a.T)
with jax.set_mesh(amesh):
    r2 = contract_ok(a, a.T)
with jax.set_mesh(amesh):
    r3 = explicit_axes(lambda v: v.reshape(16, 8), in_sharding=P('data'))(a)  # expect: NC805
with jax.set_mesh(amesh):
    r4 = explicit_axes(lambda v: v.reshape(4, 2, 16), in_sharding=P('data'))(a)
with jax.set_mesh(amesh):
    r5 = explicit_axes(lambda v: lax.with_sharding_constraint(v, P('model')), in_sharding=P('data'))(a)  # expect: NC807
with jax.set_mesh(amesh):
    r6 = explicit_axes(lambda v: reshard(v, P('model')) + jnp.ones((8, 16)), in_sharding=P('data'))(a)


@partial(auto_axes, out_sharding=P('data'))
def auto_contract(x, w):
    return x @ w


jax.set_mesh(emesh)
x = jax.device_put(jnp.ones((8, 16)), P(None, 'data'))  # reveal: f32[(8, 16@data)]
w = jax.device_put(jnp.ones((16, 4)), P('data', None))  # reveal: f32[(16@data, 4)]
ambiguous = x @ w  # expect: NC802
in_auto = auto_contract(x, w)  # reveal: f32[(8@data, 4)]
auto_reshard = auto_axes(lambda v: reshard(v, P('data')), out_sharding=P('data'))(a)  # expect: NC824
auto_out = auto_axes(lambda v: jnp.dot(v, v.T, out_sharding=P('data')), out_sharding=P('data'))(a)  # expect: NC824
auto_constraint = auto_axes(lambda v: lax.with_sharding_constraint(v, P('data')), out_sharding=P('data'))(a)  # reveal: f32[(8@data, 16)]
auto_named = auto_axes(
    lambda v: lax.with_sharding_constraint(v, NamedSharding(emesh, P('data'))), out_sharding=P('data')  # expect: NC825
)(a)
auto_made = auto_axes(lambda v: jnp.ones((8, 16)) * v, out_sharding=P(None, 'model'))(a)  # reveal: f32[(8, 16@model)]
part_auto_bad = auto_axes(lambda v: reshard(v, P('data')), axes='data', out_sharding=P('data'))(a)  # expect: NC824
part_auto = auto_axes(lambda v: reshard(v, P(None, 'model')), axes='data', out_sharding=P('data'))(a)
with jax.set_mesh(amesh):
    part_explicit_bad = explicit_axes(lambda v: v * 2, axes='data', in_sharding=P('model'))(a)  # expect: NC824
with jax.set_mesh(amesh):
    part_explicit = explicit_axes(lambda v: v * 2, axes='data', in_sharding=P('data'))(a)
