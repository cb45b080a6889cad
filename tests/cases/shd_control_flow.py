"""Explicit-axis sharding in types: control flow. cond / switch branches must return equal shardings;
scan slices xs along dimension 0, which must be replicated, its body sees the rest of xs' sharding and
its stacked outputs get an unsharded leading dimension; a carry keeps its sharding."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

x = jax.device_put(jnp.ones((8, 16)), P('data', None))
xs = jax.device_put(jnp.ones((4, 8, 16)), P(None, 'data'))
xs_lead = jax.device_put(jnp.ones((4, 8, 16)), P('data'))

same = lax.cond(True, lambda a: a * 2, lambda a: a + 1, x)  # reveal: f32[(8@data, 16)]
differ = lax.cond(True, lambda a: a * 2, lambda a: jax.sharding.reshard(a, P('model')), x)  # expect: NC823
differ_rep = lax.cond(True, lambda a: a * 2, lambda a: jax.sharding.reshard(a, P()), x)  # expect: NC823
switched = lax.switch(1, [lambda a: a * 2, lambda a: jax.sharding.reshard(a, P(None, 'model'))], x)  # expect: NC823

stacked = lax.scan(lambda c, v: (c, v * 2), 0.0, xs)[1]  # reveal: f32[(4, 8@data, 16)]
summed = lax.scan(lambda c, v: (c + v, None), x, xs)[0]  # reveal: f32[(8@data, 16)]
summed_bad = lax.scan(lambda c, v: (c + v, None), jnp.zeros((8, 16)), xs)  # expect: NC809
lead_bad = lax.scan(lambda c, v: (c, v * 2), 0.0, xs_lead)  # expect: NC821
rows = lax.scan(lambda c, _: (c * 2, c.sum(axis=1)), x, None, length=3)[1]  # reveal: f32[(3, 8@data)]
