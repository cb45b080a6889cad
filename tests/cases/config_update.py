"""`jax.config.update('jax_remove_size_one_mesh_axis_from_type', True)` at module level: size-1 mesh axes leave
the varying sets of the whole program, so out_specs and loop carries may leave them out; an axis of size 8 still
may not be left out (NC601)."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

jax.config.update('jax_remove_size_one_mesh_axis_from_type', True)
mesh = jax.make_mesh((8, 1), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)


def body(x):
    return x + lax.axis_index('y')


def carried(x):
    return lax.fori_loop(0, 2, lambda i, c: c + lax.axis_index('y'), x)


def summed(x):
    return lax.psum(x, ('x', 'y'))


ones = jnp.ones((8, 4))
a = jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(ones)
b = jax.shard_map(carried, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(ones)
c = jax.shard_map(summed, mesh=mesh, in_specs=P('x'), out_specs=P())(ones)
d = jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P())(ones)  # expect: NC601
