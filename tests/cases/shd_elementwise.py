"""Explicit-axis sharding in types: elementwise ops merge their operands' shardings dimension by
dimension; jnp.where of equal shapes lowers to select, which needs equal shardings."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

acts = jax.device_put(jnp.ones((8, 16)), P('data', None))  # reveal: f32[(8@data, 16)]
feats = jax.device_put(jnp.ones((8, 16)), P(None, 'model'))  # reveal: f32[(8, 16@model)]
rows = jax.device_put(jnp.ones((8, 16)), P('model', None))  # reveal: f32[(8@model, 16)]
bias = jax.device_put(jnp.zeros((16,)), P('model'))  # reveal: f32[(16@model,)]
plain = jnp.ones((8, 16))  # reveal: f32[(8, 16)]

merged = acts + feats  # reveal: f32[(8@data, 16@model)]
scaled = acts * 2.0 + 1  # reveal: f32[(8@data, 16)]
shifted = acts + bias  # reveal: f32[(8@data, 16@model)]
mixed = plain * acts  # reveal: f32[(8@data, 16)]
act = jnp.tanh(merged)  # reveal: f32[(8@data, 16@model)]
ints = acts.astype(jnp.int32)  # reveal: i32[(8@data, 16)]
both = jax.device_put(jnp.ones((8, 16)), P(('data', 'model'), None))  # reveal: f32[(8@(data,model), 16)]
same = both - both  # reveal: f32[(8@(data,model), 16)]

clash = acts + rows  # expect: NC801
clash_multi = both + acts  # expect: NC801
twice = acts + jax.device_put(jnp.ones((8, 16)), P(None, 'data'))  # expect: NC804
fixed = acts + jax.sharding.reshard(rows, P('data', None))  # reveal: f32[(8@data, 16)]

# jnp.where: operands of different shapes are broadcast to the merged sharding first ...
mask_col = jax.device_put(jnp.ones((8, 1), dtype=bool), P('data', None))
picked = jnp.where(mask_col, acts, feats)  # reveal: f32[(8@data, 16@model)]
filled = jnp.where(acts > 0, acts, 0.0)  # reveal: f32[(8@data, 16)]
# ... but operands of one shape go to select, which rejects differing shardings
mask = jax.device_put(jnp.ones((8, 16), dtype=bool), P('data', None))
picked_eq = jnp.where(mask, acts, feats)  # expect: NC801
picked_cond = jnp.where(mask, plain, plain)  # expect: NC801
picked_ok = jnp.where(mask, acts, acts * 0.5)  # reveal: f32[(8@data, 16)]
