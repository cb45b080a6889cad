"""`zeros_like` / `ones_like` / `full_like` / `empty_like` keep their operand's sharding and mesh: run eagerly
under `jax.set_mesh` of another mesh the result stays on the operand's mesh (so mixing it with the context
mesh's arrays is the mesh mismatch), while under jit JAX broadcasts onto the operand's sharding and checks its
mesh against the context mesh there."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ('data',))
other = jax.make_mesh((4, 2), ('x', 'y'))
with jax.set_mesh(mesh):
    x = jax.device_put(jnp.ones((8, 4)), P('data'))
with jax.set_mesh(other):
    z = jnp.zeros_like(x)
    o = jnp.full_like(x, 3.0)
    e = jnp.empty_like(x)
    u = jnp.ones_like(x, dtype=jnp.int32)
    y = jax.device_put(jnp.ones((8, 4)), P('x', 'y'))
with jax.set_mesh(other):
    bad = z + y  # expect: NC812
good = z + o * e  # reveal: f32[(8@data, 4)]
ints = u  # reveal: i32[(8@data, 4)]
back = z + x  # reveal: f32[(8@data, 4)]


@jax.jit
def zeros_in_jit(a):
    return jnp.zeros_like(a)  # expect: NC812


with jax.set_mesh(other):
    zz = zeros_in_jit(x)
with jax.set_mesh(mesh):
    same = zeros_in_jit(x)
same_out = same  # reveal: f32[(8@data, 4)]
