"""jnp.roll with axis=None rolls the flattened array (a reshape to one dim, a roll, a reshape back): with the
leading dim sharded, both slices of the flattened roll must stay divisible by its mesh axes; lax.sort of
several operands needs them equally sharded and unsharded along the sorted dimension."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)
x = jax.device_put(jnp.ones((8, 4)), P('data'))
xm = jax.device_put(jnp.ones((8, 4)), P(None, 'model'))
r = jnp.ones((8, 4))
a = jnp.roll(x, 1)  # expect: NC822
b = jnp.roll(x, 4)  # reveal: f32[(8@data, 4)]
c = jnp.roll(x, 32)  # reveal: f32[(8@data, 4)]
d = jnp.roll(r, 3)  # reveal: f32[(8, 4)]
s1, s2 = lax.sort((x, x), dimension=1, num_keys=1)
s3 = s2  # reveal: f32[(8@data, 4)]
t1, t2 = lax.sort([x, jax.device_put(jnp.arange(32).reshape(8, 4), P('data'))], dimension=1)
t3 = t2  # reveal: i32[(8@data, 4)]
f = lax.sort((x, r), dimension=1)  # expect: NC801
g = lax.sort((x, x), dimension=0)  # expect: NC821
h = lax.sort((x, x), dimension=1, num_keys=2)
