"""JAX configuration that changes the rules, read where the code sets it: `jax_remove_size_one_mesh_axis_from_type`
drops size-1 mesh axes from varying sets, so a value varying over a size-1 axis that out_specs leave out is
accepted inside `with config.remove_size_one_mesh_axis_from_type(True):` and in a function decorated with it (the
form JAX's own shard_map tests use), and still rejected (NC601, NC602) where the flag is off."""

import jax
import jax.numpy as jnp
from jax import lax
from jax._src import config
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8, 1), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)


def body(x):
    return x + lax.axis_index('y')


def carried(x):
    return lax.fori_loop(0, 2, lambda i, c: c + lax.axis_index('y'), x)  # expect: NC602


@config.remove_size_one_mesh_axis_from_type(True)
def decorated(x):
    return jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)


@config.remove_size_one_mesh_axis_from_type(True)
def decorated_carry(x):
    return jax.shard_map(carried, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)


def with_block(x):
    with config.remove_size_one_mesh_axis_from_type(True):
        return jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)


def switched_off(x):
    with config.remove_size_one_mesh_axis_from_type(False):
        return jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)  # expect: NC601


def plain(x):
    return jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)  # expect: NC601


def plain_carry(x):
    return jax.shard_map(carried, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)


ones = jnp.ones((8, 4))
a = decorated(ones)
b = decorated_carry(ones)
c = with_block(ones)
d = switched_off(ones)
e = plain(ones)
f = plain_carry(ones)
