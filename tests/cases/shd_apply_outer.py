"""x.at[idx].apply(func) (scatter_apply, no out_sharding=) resolves its sharding only on a fully replicated
array; N-d jnp.outer ravels its operands (a sharded leading dim keeps its mesh axes) before the outer product."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)
x = jax.device_put(jnp.ones((8, 4)), P('data'))
xm = jax.device_put(jnp.ones((8, 4)), P(None, 'model'))
r = jnp.ones((8, 4))
a = r.at[0].apply(jnp.sin)  # reveal: f32[(8, 4)]
b = x.at[0].apply(jnp.sin)  # expect: NC806
c = xm.at[0].apply(jnp.sin)  # expect: NC806
d = x.at[:, 1:].apply(jnp.sin)  # expect: NC806
e = jax.jit(lambda v: v.at[...].apply(jnp.sin))(x)  # expect: NC806
v = jax.device_put(jnp.arange(8.0), P('data'))
o1 = jnp.outer(x, r)  # reveal: f32[(32@data, 32)]
o2 = jnp.outer(r, x)  # reveal: f32[(32, 32@data)]
o3 = jnp.outer(jax.device_put(jnp.ones((8, 2, 2)), P('data')), jnp.ones(3))  # reveal: f32[(32@data, 3)]
o4 = jnp.outer(x, jax.device_put(jnp.ones((8, 4)), P('model')))  # reveal: f32[(32@data, 32@model)]
o5 = jnp.outer(v, x)  # expect: NC804
