"""Contractions whose contracting dimension is split on both operands (NC802), with the safe fix
`check --fix` applies: `out_sharding=` the sharding of the non-contracting dims; and with_sharding_constraint
asserting another sharding (NC807), fixed to reshard. tests/test_fix.py runs the
fixed program under JAX (8 CPU devices) and compares every `product*` with numpy's a @ b. No fix where the
free dims' sharding would use a mesh axis twice (`product_clash`), nor where one expression is analysed under
arguments that want different out shardings (`layer_two_ways`)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

a = np.arange(128, dtype=np.float32).reshape(8, 16) / 64
b = np.arange(128, dtype=np.float32).reshape(16, 8) / 32
x = jax.device_put(a, P(None, 'data'))  # reveal: f32[(8, 16@data)]
xm = jax.device_put(a, P('model', 'data'))  # reveal: f32[(8@model, 16@data)]
w = jax.device_put(b, P('data', None))  # reveal: f32[(16@data, 8)]
wm = jax.device_put(b, P('data', 'model'))  # reveal: f32[(16@data, 8@model)]
w_other = jax.device_put(b, P('model', None))  # reveal: f32[(16@model, 8)]

product = jnp.dot(x, w)  # expect: NC802
product_model = x @ wm  # expect: NC802
product_rows = jnp.einsum('ij,jk->ik', xm, w)  # expect: NC802
product_other = jnp.matmul(x, w_other)  # expect: NC802
product_general = lax.dot_general(xm, w, (((1,), (0,)), ((), ())))  # expect: NC802


@jax.jit
def layer(u, v):
    return jnp.matmul(u, v)  # expect: NC802


@jax.jit
def layer_two_ways(u, v):
    return jnp.matmul(u, v)  # expect: NC802


product_jit = layer(x, w)
product_clash = xm @ wm  # expect: NC802
unfixed = layer_two_ways(x, w)
unfixed_rows = layer_two_ways(xm, w)
product_ok = jnp.dot(x, w, out_sharding=P(None, 'model'))  # reveal: f32[(8, 8@model)]
product_constrained = lax.with_sharding_constraint(product_ok, P('model', None))  # expect: NC807
