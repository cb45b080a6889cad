"""An op's `out_sharding=` NamedSharding over another mesh than `jax.set_mesh`'s (NC812); over the context
mesh, or as a bare spec, it is fine."""

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
other = jax.make_mesh((8,), ('x',))
jax.set_mesh(mesh)

a = jnp.ones((8, 16))  # reveal: f32[(8, 16)]
product_bad = jnp.dot(a, a.T, out_sharding=NamedSharding(other, P('x')))  # expect: NC812
product = jnp.dot(a, a.T, out_sharding=NamedSharding(mesh, P('data')))  # reveal: f32[(8@data, 8)]
product_bare = jnp.dot(a, a.T, out_sharding=P(None, 'model'))  # reveal: f32[(8, 8@model)]
zeros_bad = jnp.zeros((8, 16), out_sharding=NamedSharding(other, P('x')))  # expect: NC812
zeros = jnp.zeros((8, 16), out_sharding=NamedSharding(mesh, P(None, 'model')))  # reveal: f32[(8, 16@model)]
reshaped_bad = a.reshape(16, 8, out_sharding=NamedSharding(other, P('x')))  # expect: NC812
moved = jax.sharding.reshard(a, NamedSharding(other, P('x')))  # reveal: f32[(8@x, 16)]
