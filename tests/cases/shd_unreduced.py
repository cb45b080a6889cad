"""Unreduced and reduced axes (jax 0.10): a contraction with out_sharding=P(..., unreduced={'data'}) over its
contracting axis 'data' leaves partial sums ({U:data}); reshard reduces them. Ops JAX allows on such values
keep them unreduced; the ones it rejects (a contraction, a product of two, an add with a reduced value, ops
without an unreduced rule) are NC813."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)
x = jax.device_put(np.arange(128, dtype=np.float32).reshape(8, 16) / 64, P(None, 'data'))
w = jax.device_put(np.arange(64, dtype=np.float32).reshape(16, 4) / 32, P('data', None))
plain = jnp.ones((8, 4))

u = jnp.dot(x, w, out_sharding=P(None, None, unreduced={'data'}))  # reveal: f32[(8, 4)]{U:data}
u_general = lax.dot_general(x, w, (((1,), (0,)), ((), ())), out_sharding=P(None, None, unreduced={'data'}))  # reveal: f32[(8, 4)]{U:data}
u_placed = jax.device_put(jnp.ones((8, 4)), P(None, None, unreduced={'data'}))  # reveal: f32[(8, 4)]{U:data}
twice = u + u  # reveal: f32[(8, 4)]{U:data}
summed = jnp.sum(u, axis=1)  # reveal: f32[(8,)]{U:data}
flipped = u.T  # reveal: f32[(4, 8)]{U:data}
reshaped = u.reshape(4, 8)  # reveal: f32[(4, 8)]{U:data}
reduced = jax.sharding.reshard(u, P(None, None))  # reveal: f32[(8, 4)]
scattered = jax.sharding.reshard(u, P('data', None))  # reveal: f32[(8@data, 4)]
kept_reduced = jax.sharding.reshard(u, P(None, None, reduced={'data'}))  # reveal: f32[(8, 4)]{R:data}
scaled = u * kept_reduced  # reveal: f32[(8, 4)]{U:data}
after = reduced * 2 + plain  # reveal: f32[(8, 4)]

bad_scale = u * 2  # expect: NC813
bad_square = u * u  # expect: NC813
bad_add = u + 1  # expect: NC813
bad_mix = u + plain  # expect: NC813
bad_sin = jnp.sin(u)  # expect: NC813
bad_mean = u.mean(axis=0)  # expect: NC813
bad_next = u @ jnp.ones((4, 2))  # expect: NC813
bad_axis = jnp.dot(x, w, out_sharding=P(None, None, unreduced={'model'}))  # expect: NC813
bad_one_side = jnp.dot(x, jnp.ones((16, 4)), out_sharding=P(None, None, unreduced={'data'}))  # expect: NC813
