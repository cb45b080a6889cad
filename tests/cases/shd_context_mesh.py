"""Arrays carry the mesh of their sharding (JAX's abstract mesh: axis names, sizes and types). Under
`jax.set_mesh` JAX binds a primitive only on arrays of the context mesh, and never on operands of two meshes;
reshard / device_put move an array, a legacy `with mesh:` sets no context mesh, an equal mesh is the same."""

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
other = jax.make_mesh((8,), ('x',))
twin = jax.make_mesh((4, 2), ('data', 'model'))
auto = jax.make_mesh((4, 2), ('data', 'model'), axis_types=(AxisType.Auto, AxisType.Auto))

with jax.set_mesh(mesh):
    x = jax.device_put(jnp.ones((8, 4)), P('data'))
    r = jnp.ones((8, 4))
placed = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('data')))  # reveal: f32[(8@data, 4)]
free = x * 2  # reveal: f32[(8@data, 4)]

with jax.set_mesh(other):
    a = x * 2  # expect: NC812
with jax.set_mesh(other):
    b = r + 1  # expect: NC812
with jax.set_mesh(other):
    c = jnp.sum(placed, axis=0)  # expect: NC812
with jax.set_mesh(other):
    d = jax.sharding.reshard(x, P('x'))
    e = jax.device_put(x, P('x')) * 2
    f = jnp.transpose(x, (0, 1))
    y = jax.device_put(jnp.ones((8, 4)), P('x'))
    h = jax.device_put(jnp.ones(8), NamedSharding(mesh, P('data')))
    identity = jax.jit(lambda v: v)(x)


@jax.jit
def double(v):
    return v * 2  # expect: NC812


with jax.set_mesh(other):
    g = double(x)
with jax.set_mesh(twin):
    same_mesh = x @ jnp.ones((4, 2))
with jax.set_mesh(auto):
    auto_ctx = x * 2  # expect: NC812
with Mesh(np.array(jax.devices()).reshape(8), ('x',)):
    legacy = x * 2

both = x + y  # expect: NC812
with jax.set_mesh(mesh):
    back = y * 2  # expect: NC812
with jax.set_mesh(mesh):
    moved = jax.device_put(y, P('data')) * 2
moved_top = jax.device_put(y, NamedSharding(mesh, P('data'))) + x  # reveal: f32[(8@data, 4)]
with_h = h * 2  # reveal: f32[(8@data,)]
