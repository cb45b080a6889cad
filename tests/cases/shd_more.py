"""Explicit-axis sharding in types: lax.dot_general, normalisations, arrays made from sharded arrays,
auto_axes, fori_loop carries, and shard_map bodies (Manual axes: no sharding in the local types)."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

x = jax.device_put(jnp.ones((8, 16)), P('data', None))
w = jax.device_put(jnp.ones((16, 4)), P(None, 'model'))
k = jax.device_put(jnp.ones((8, 16)), P(None, 'model'))

h = lax.dot_general(x, w, (((1,), (0,)), ((), ())))  # reveal: f32[(8@data, 4@model)]
h_both = lax.dot_general(k, jax.device_put(w, P('model', None)), (((1,), (0,)), ((), ())))  # expect: NC802
q = jax.device_put(jnp.ones((4, 8, 16)), P('data', None, None))
r = jax.device_put(jnp.ones((4, 16, 2)), P('model', None, None))
h_batch = lax.dot_general(q, r, (((2,), (1,)), ((0,), (0,))))  # expect: NC803
h_lhs_batch = lax.dot_general(q, jnp.ones((4, 16, 2)), (((2,), (1,)), ((0,), (0,))))  # reveal: f32[(4@data, 8, 2)]
gram = x @ x.T  # expect: NC804
added = lax.add(x, k)  # reveal: f32[(8@data, 16@model)]

probs = jax.nn.softmax(x, axis=0)  # reveal: f32[(8@data, 16)]
logp = jax.nn.log_softmax(k)  # reveal: f32[(8, 16@model)]
copied = jnp.asarray(x)  # reveal: f32[(8@data, 16)]
fresh = jnp.array([1.0, 2.0, 3.0, 4.0])  # reveal: f32[(4,)]
like = jnp.zeros_like(k)  # reveal: f32[(8, 16@model)]
like_bad = jnp.ones_like(x) + k * jnp.ones_like(jax.device_put(k, P('model', None)))  # expect: NC804

relaid = jax.sharding.auto_axes(lambda a, b: a + b, out_sharding=P('model', None))(x, jax.device_put(k, P('model')))  # reveal: f32[(8@model, 16)]

looped_bad = lax.fori_loop(0, 3, lambda i, c: jax.sharding.reshard(c, P('model')), x)  # expect: NC809
looped = lax.fori_loop(0, 3, lambda i, c: c * 0.5, x)  # reveal: f32[(8@data, 16)]


def local_gram(v):
    return lax.psum(v @ v.T, 'model')


blocks = jax.shard_map(local_gram, mesh=mesh, in_specs=P(None, 'model'), out_specs=P())(k)  # reveal: f32[(8, 8)]
rows = jax.shard_map(lambda v: v * 2, mesh=mesh, in_specs=P('data'), out_specs=P('data'))(x)  # reveal: f32[(8@data, 16)]
rows_bad = jax.shard_map(lambda v: v * 2, mesh=mesh, in_specs=P(), out_specs=P())(x)  # expect: NC810
inferred = jax.shard_map(lambda v: v * 2, mesh=mesh, out_specs=P(None, 'model'))(k)  # reveal: f32[(8, 16@model)]
