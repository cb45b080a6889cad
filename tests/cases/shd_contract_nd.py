"""Explicit-axis sharding in types: N-d contractions. Batched matmul needs a batch dim both operands have
to be sharded identically (one side unsharded is a ValueError too), unless one side is an unsharded
size-1 dim; N-d jnp.dot / tensordot / inner keep a's free dims then b's; dot_general's batch dims take the
lhs's sharding."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

a = jax.device_put(jnp.ones((4, 8, 16)), P('data', None, None))
b = jax.device_put(jnp.ones((4, 16, 2)), P('data', None, 'model'))
b_rep = jax.device_put(jnp.ones((4, 16, 2)), P(None, None, 'model'))
b_model = jax.device_put(jnp.ones((4, 16, 2)), P('model', None, None))

bmm = a @ b  # reveal: f32[(4@data, 8, 2@model)]
bmm_one_side = a @ b_rep  # expect: NC803
bmm_other_side = jnp.ones((4, 8, 16)) @ b  # expect: NC803
bmm_differ = jnp.matmul(a, b_model)  # expect: NC803
bmm_bcast_one = jnp.ones((1, 8, 16)) @ b  # reveal: f32[(4@data, 8, 2@model)]
bmm_mat = a @ jax.device_put(jnp.ones((16, 2)), P(None, 'model'))  # reveal: f32[(4@data, 8, 2@model)]
mat_bmm = jax.device_put(jnp.ones((8, 16)), P('data', None)) @ b_model  # reveal: f32[(4@model, 8@data, 2)]
mat_bmm_twice = jax.device_put(jnp.ones((8, 16)), P('data', None)) @ b  # expect: NC804
bmm_4d = jax.device_put(jnp.ones((2, 4, 8, 16)), P(None, 'data')) @ b  # reveal: f32[(2, 4@data, 8, 2@model)]
bmm_4d_bad = jax.device_put(jnp.ones((2, 4, 8, 16)), P(None, 'data')) @ b_rep  # expect: NC803
bmm_contract = jax.device_put(jnp.ones((4, 8, 16)), P(None, None, 'model')) @ jax.device_put(jnp.ones((4, 16, 2)), P(None, 'model'))  # expect: NC802
bmm_fixed = jnp.matmul(jax.device_put(jnp.ones((4, 8, 16)), P(None, None, 'model')), jax.device_put(jnp.ones((4, 16, 2)), P(None, 'model')), out_sharding=P('data'))  # reveal: f32[(4@data, 8, 2)]
bmm_bcast_out = jnp.matmul(jnp.ones((8, 16)), b, out_sharding=P(None, 'model', None))  # reveal: f32[(4@model, 8, 2)]
bmm_vec = a @ jax.device_put(jnp.ones(16), P('model'))  # reveal: f32[(4@data, 8)]
vec_bmm = jax.device_put(jnp.ones(16), P('model')) @ b_rep  # reveal: f32[(4, 2@model)]

dot_nd = jnp.dot(a, jax.device_put(jnp.ones((3, 16, 2)), P(None, None, 'model')))  # reveal: f32[(4@data, 8, 3, 2@model)]
dot_nd_two = jnp.dot(a, jax.device_put(jnp.ones((2, 16, 6)), P('model')))  # reveal: f32[(4@data, 8, 2@model, 6)]
dot_nd_twice = jnp.dot(a, jax.device_put(jnp.ones((4, 16, 6)), P('data')))  # expect: NC804
dot_nd_both = jnp.dot(jax.device_put(jnp.ones((4, 8, 16)), P(None, None, 'model')), jax.device_put(jnp.ones((3, 16, 2)), P(None, 'model')))  # expect: NC802
dot_scalar = jnp.dot(a, 2.0)  # reveal: f32[(4@data, 8, 16)]

td = jnp.tensordot(a, jax.device_put(jnp.ones((8, 16, 2)), P(None, None, 'model')))  # reveal: f32[(4@data, 2@model)]
td_pairs = jnp.tensordot(a, jax.device_put(jnp.ones((16, 8, 2)), P(None, None, 'model')), axes=((1, 2), (1, 0)))  # reveal: f32[(4@data, 2@model)]
td_one = jnp.tensordot(a, jax.device_put(jnp.ones((16, 2)), P(None, 'model')), axes=1)  # reveal: f32[(4@data, 8, 2@model)]
td_both = jnp.tensordot(jax.device_put(jnp.ones((4, 8, 16)), P(None, 'model')), jax.device_put(jnp.ones((16, 8, 2)), P(None, 'model')), axes=((1, 2), (1, 0)))  # expect: NC802
td_outer = jnp.tensordot(jax.device_put(jnp.ones(8), P('data')), jax.device_put(jnp.ones(4), P('model')), axes=0)  # reveal: f32[(8@data, 4@model)]
td_outer_twice = jnp.tensordot(jax.device_put(jnp.ones(8), P('data')), jax.device_put(jnp.ones(4), P('data')), axes=0)  # expect: NC804
td_fixed = jnp.tensordot(jax.device_put(jnp.ones(8), P('data')), jax.device_put(jnp.ones(4), P('data')), axes=0, out_sharding=P('data'))  # reveal: f32[(8@data, 4)]

x = jax.device_put(jnp.ones((8, 16)), P('data', None))
inner = jnp.inner(x, jax.device_put(jnp.ones((4, 16)), P('model')))  # reveal: f32[(8@data, 4@model)]
inner_both = jnp.inner(jax.device_put(jnp.ones((8, 16)), P(None, 'model')), jax.device_put(jnp.ones((4, 16)), P(None, 'model')))  # expect: NC802

dg_rhs_batch = lax.dot_general(jnp.ones((4, 8, 16)), b, (((2,), (1,)), ((0,), (0,))))  # reveal: f32[(4, 8, 2@model)]
q = jax.device_put(jnp.ones((2, 4, 8, 16)), P('model', 'data'))
dg_two_batch = lax.dot_general(q, jax.device_put(jnp.ones((4, 2, 16, 3)), P('data', 'model')), (((3,), (2,)), ((0, 1), (1, 0))))  # reveal: f32[(2@model, 4@data, 8, 3)]
dg_two_batch_bad = lax.dot_general(q, jax.device_put(jnp.ones((4, 2, 16, 3)), P('model', None)), (((3,), (2,)), ((0, 1), (1, 0))))  # expect: NC803

e_lhs_batch = jnp.einsum('bij,bjk->bik', a, jnp.ones((4, 16, 2)))  # reveal: f32[(4@data, 8, 2)]
e_rhs_batch = jnp.einsum('bij,bjk->bik', jnp.ones((4, 8, 16)), b)  # reveal: f32[(4, 8, 2@model)]
e_rowwise = jnp.einsum('ij,ij->i', jnp.ones((8, 16)), x)  # reveal: f32[(8,)]
