"""Explicit-axis rules on the types of mesh axes: `reshard` and `out_sharding=` name only Explicit axes (NC824),
`with_sharding_constraint` outside an all-Explicit context mesh only Auto ones (NC825), an array placed on an
all-Auto mesh used under an Explicit context mesh (NC812)."""

import equinox as eqx
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import AxisType, NamedSharding, reshard
from jax.sharding import PartitionSpec as P

emesh = jax.make_mesh((4, 2), ('data', 'model'))
amesh = jax.make_mesh((4, 2), ('data', 'model'), axis_types=(AxisType.Auto, AxisType.Auto))
mixed = jax.make_mesh((4, 2), ('data', 'model'), axis_types=(AxisType.Explicit, AxisType.Auto))
a = jnp.ones((8, 16))  # reveal: f32[(8, 16)]

# reshard onto an Auto axis, with a NamedSharding (any context) or a bare spec under set_mesh
to_auto = reshard(a, NamedSharding(amesh, P('data')))  # expect: NC824
to_mixed_auto = reshard(a, NamedSharding(mixed, P(None, 'model')))  # expect: NC824
to_mixed_explicit = reshard(a, NamedSharding(mixed, P('data')))
with jax.set_mesh(mixed):
    m1 = reshard(a, P('data', 'model'))  # expect: NC824
with jax.set_mesh(mixed):
    m2 = reshard(a, P('data'))
with jax.set_mesh(amesh):
    m3 = jax.jit(lambda v: reshard(v, P('data')))(a)  # expect: NC824
with jax.set_mesh(amesh):
    m4 = jnp.dot(a, a.T, out_sharding=P('data'))  # expect: NC824
with jax.set_mesh(amesh):
    m5 = jnp.zeros((8, 16), out_sharding=P(None, 'model'))  # expect: NC824
with jax.set_mesh(mixed):
    m6 = jnp.reshape(a, (16, 8), out_sharding=P('data'))
with jax.set_mesh(mixed):
    m7 = jax.random.normal(jax.random.key(0), (8, 16), out_sharding=P(None, 'model'))  # expect: NC824
with jax.set_mesh(amesh):
    m8 = jnp.zeros((8, 16), device=NamedSharding(amesh, P('data')))

# with_sharding_constraint outside an all-Explicit context: Auto axes only
with jax.set_mesh(mixed):
    c1 = jax.jit(lambda v: lax.with_sharding_constraint(v, P('data')))(a)  # expect: NC825
with jax.set_mesh(mixed):
    c2 = jax.jit(lambda v: lax.with_sharding_constraint(v, P(None, 'model')))(a)
with jax.set_mesh(amesh):
    c3 = jax.jit(lambda v: lax.with_sharding_constraint(v, NamedSharding(emesh, P('data'))))(a)  # expect: NC825
with jax.set_mesh(amesh):
    c4 = jax.jit(lambda v: lax.with_sharding_constraint(v, NamedSharding(amesh, P('data'))))(a)
with jax.set_mesh(amesh):
    c5 = jax.jit(lambda v: eqx.filter_shard(v, NamedSharding(emesh, P(None, 'model'))))(a)  # expect: NC825
with jax.set_mesh(amesh):
    c6 = jax.jit(lambda v: eqx.filter_shard(v, NamedSharding(emesh, P())))(a)
with jax.set_mesh(emesh):
    c7 = jax.jit(lambda v: lax.with_sharding_constraint(v, NamedSharding(emesh, P('data'))))(reshard(a, P('data')))

# an array on an all-Auto mesh under an Explicit context mesh
with jax.set_mesh(amesh):
    on_auto = jax.device_put(a, P('data'))
on_auto_too = jax.device_put(a, NamedSharding(amesh, P('data')))  # reveal: f32[(8, 16)]
with jax.set_mesh(emesh):
    bad_mix = on_auto * 2  # expect: NC812
with jax.set_mesh(amesh):
    ok_mix = on_auto * 2
with jax.set_mesh(emesh):
    moved = reshard(on_auto, P('data')) * 2
auto_sum = on_auto + on_auto_too  # reveal: f32[(8, 16)]
