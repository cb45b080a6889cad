"""A JAX flag set where the checker cannot tell (in a helper, with a value it cannot evaluate) makes the verdicts
that depend on it Unknown: nothing is reported about size-1 axes in the whole module (here JAX runs with the
flag on, and accepts every line)."""

import sys

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P


def configure(drop_size_one):
    jax.config.update('jax_remove_size_one_mesh_axis_from_type', drop_size_one)


configure(len(sys.argv) >= 0)
mesh = jax.make_mesh((8, 1), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)


def body(x):
    return x + lax.axis_index('y')


ones = jnp.ones((8, 4))
a = jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(ones)
b = jax.shard_map(lambda x: lax.fori_loop(0, 2, lambda i, c: c + lax.axis_index('y'), x), mesh=mesh,
                  in_specs=P('x'), out_specs=P('x'))(ones)
