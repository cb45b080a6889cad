"""Explicit-axis sharding in types: reductions drop the reduced dims' mesh axes, transposes permute them,
reshapes may split or merge a sharded dim only JAX's way, concatenate / stack need equal shardings."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

x = jax.device_put(jnp.ones((8, 16)), P('data', None))
y = jax.device_put(jnp.ones((8, 16)), P(None, 'model'))
cube = jax.device_put(jnp.ones((8, 4, 2)), P('data', None, 'model'))

col = x.sum(axis=0)  # reveal: f32[(16,)]
row = x.sum(axis=1)  # reveal: f32[(8@data,)]
total = x.sum()  # reveal: f32[()]
avg = jnp.mean(x, axis=1, keepdims=True)  # reveal: f32[(8@data, 1)]
peak = jnp.max(cube, axis=(0, 2))  # reveal: f32[(4,)]
best = jnp.argmax(cube, axis=1)  # reveal: i32[(8@data, 2@model)]

xt = x.T  # reveal: f32[(16, 8@data)]
swapped = jnp.swapaxes(cube, 0, 2)  # reveal: f32[(2@model, 4, 8@data)]
perm = jnp.transpose(cube, (2, 0, 1))  # reveal: f32[(2@model, 8@data, 4)]

split = x.reshape(4, 2, 16)  # reveal: f32[(4@data, 2, 16)]
merged = jax.device_put(jnp.ones((8, 2, 16)), P('data', None, None)).reshape(16, 16)  # reveal: f32[(16@data, 16)]
flat = x.reshape(128)  # reveal: f32[(128@data,)]
flat_y = y.reshape(128)  # expect: NC805
split_bad = x.reshape(2, 4, 16)  # expect: NC805
other = x.reshape(16, 8)  # expect: NC805
free = jnp.ones((8, 16)).reshape(16, 8)  # reveal: f32[(16, 8)]
chosen = x.reshape(16, 8, out_sharding=P('data', None))  # reveal: f32[(16@data, 8)]
ones_moved = jnp.reshape(jax.device_put(jnp.ones((8, 1, 16)), P('data', None, None)), (8, 16, 1))  # reveal: f32[(8@data, 16, 1)]

wide = jnp.expand_dims(x, 0)  # reveal: f32[(1, 8@data, 16)]
narrow = jnp.squeeze(jnp.expand_dims(x, 1), 1)  # reveal: f32[(8@data, 16)]

both = jnp.concatenate([x, x], axis=0)  # reveal: f32[(16@data, 16)]
stacked = jnp.stack([y, y])  # reveal: f32[(2, 8, 16@model)]
bad_cat = jnp.concatenate([x, y], axis=1)  # expect: NC801
bad_cat_plain = jnp.concatenate([x, jnp.ones((8, 16))])  # expect: NC801
bad_stack = jnp.stack([x, y], axis=1)  # expect: NC801
