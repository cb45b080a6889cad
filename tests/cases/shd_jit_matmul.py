"""A jitted matmul written before sharding in types: with jax.make_mesh's default Explicit axes (and no
`jax.set_mesh`), both operands are sharded along the contracting dimension, so tracing it fails."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

grid = jax.make_mesh((4, 2), ('X', 'Y'))
lhs = jax.device_put(jnp.ones((16, 32)), jax.sharding.NamedSharding(grid, P('X', 'Y')))
rhs = jax.device_put(jnp.ones((32, 8)), jax.sharding.NamedSharding(grid, P('Y', None)))


@jax.jit
def sharded_matmul(a, b):
    return jnp.dot(a, b)  # expect: NC802


@jax.jit
def sharded_matmul_ok(a, b):
    return jnp.dot(a, b, out_sharding=jax.sharding.NamedSharding(grid, P('X', None)))


product_bad = sharded_matmul(lhs, rhs)
product = sharded_matmul_ok(lhs, rhs)  # reveal: f32[(16@X, 8)]
