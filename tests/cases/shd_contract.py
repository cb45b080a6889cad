"""Explicit-axis sharding in types: dot / matmul / einsum. A contracting dimension sharded on one operand
is accepted; on both it needs out_sharding=; batch dims must agree; the result may not reuse a mesh axis."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'), axis_types=(jax.sharding.AxisType.Explicit,) * 2)
jax.set_mesh(mesh)

x = jax.device_put(jnp.ones((8, 16)), P('data', None))
x_k = jax.device_put(jnp.ones((8, 16)), P(None, 'data'))
w = jax.device_put(jnp.ones((16, 4)), P(None, 'model'))
w_k = jax.device_put(jnp.ones((16, 4)), P('data', None))
w_rep = jnp.ones((16, 4))

h = x @ w  # reveal: f32[(8@data, 4@model)]
h_one_side = x_k @ w_rep  # reveal: f32[(8, 4)]
h_other_side = x @ w_k  # reveal: f32[(8@data, 4)]
h_dot = jnp.dot(x, w)  # reveal: f32[(8@data, 4@model)]
h_both = x_k @ w_k  # expect: NC802
h_both_dot = jnp.dot(x_k, w_k)  # expect: NC802
h_fixed = jnp.matmul(x_k, w_k, out_sharding=P('data', None))  # reveal: f32[(8@data, 4)]
h_twice = x @ jax.device_put(jnp.ones((16, 8)), P(None, 'data'))  # expect: NC804

v = jax.device_put(jnp.ones((16,)), P('model'))
xv = x @ v  # reveal: f32[(8@data,)]
vw = v @ jnp.ones((16, 4))  # reveal: f32[(4,)]
xv_both = jax.device_put(jnp.ones((8, 16)), P(None, 'model')) @ v  # expect: NC802

seq = jax.device_put(jnp.ones((4, 8, 16)), P('data', None, None))
proj = seq @ w  # reveal: f32[(4@data, 8, 4@model)]

e = jnp.einsum('ij,jk->ik', x, w)  # reveal: f32[(8@data, 4@model)]
e_t = jnp.einsum('ij,jk->ki', x, w_rep)  # reveal: f32[(4, 8@data)]
e_both = jnp.einsum('ij,jk->ik', x_k, w_k)  # expect: NC802
e_fixed = jnp.einsum('ij,jk->ik', x_k, w_k, out_sharding=P('data'))  # reveal: f32[(8@data, 4)]
left = jax.device_put(jnp.ones((4, 8, 16)), P('data', None, None))
right = jax.device_put(jnp.ones((4, 16, 2)), P(None, None, 'model'))
e_batch = jnp.einsum('bij,bjk->bik', left, jax.device_put(right, P('data', None, 'model')))  # reveal: f32[(4@data, 8, 2@model)]
e_batch_bad = jnp.einsum('bij,bjk->bik', left, jax.device_put(right, P('model', None, None)))  # expect: NC803
e_outer = jnp.einsum('i,j->ij', jax.device_put(jnp.ones(8), P('data')), jax.device_put(jnp.ones(4), P('data')))  # expect: NC804
e_sum = jnp.einsum('ij->j', x)  # reveal: f32[(16,)]
