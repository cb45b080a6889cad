"""`jax.config.update('jax_auto_pcast', False)`: JAX no longer casts a collective's invariant input to varying,
so psum / pmean over an axis the value does not vary over is rejected (NC603); over the axes it varies over
it is accepted."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

jax.config.update('jax_auto_pcast', False)
mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)


def over_varying(v):
    return lax.psum(v, 'x')


def over_invariant(v):
    return lax.psum(v, 'y')  # expect: NC603


def mean_over_invariant(v):
    return lax.pmean(v, 'y')  # expect: NC603


ones = jnp.ones((8, 4))
a = jax.shard_map(over_varying, mesh=mesh, in_specs=P('x'), out_specs=P())(ones)
b = jax.shard_map(over_invariant, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(ones)
c = jax.shard_map(mean_over_invariant, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(ones)
