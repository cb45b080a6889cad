"""Explicit-axis sharding in types: layout ops. moveaxis permutes, broadcast_to leaves new and stretched
dims unsharded, flip / tril keep the sharding, roll and split keep it when the slices stay divisible,
one_hot adds an unsharded class dim, outer may not use one mesh axis twice; gathers (take, take_along_axis)
along a sharded dim or of a sharded flattened array cannot resolve their out sharding."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

x = jax.device_put(jnp.ones((8, 16)), P('data', None))
y = jax.device_put(jnp.ones((8, 16)), P(None, 'model'))
ids = jnp.arange(4)
labels = jax.device_put(jnp.arange(8), P('data'))

moved = jnp.moveaxis(jax.device_put(jnp.ones((2, 8, 16)), P(None, 'data', 'model')), 0, -1)  # reveal: f32[(8@data, 16@model, 2)]
bcast = jnp.broadcast_to(jax.device_put(jnp.ones(16), P('model')), (4, 8, 16))  # reveal: f32[(4, 8, 16@model)]
bcast_one = jnp.broadcast_to(jax.device_put(jnp.ones((8, 1)), P('data')), (8, 16))  # reveal: f32[(8@data, 16)]
flipped = jnp.flip(y, axis=1)  # reveal: f32[(8, 16@model)]
lower = jnp.tril(y)  # reveal: f32[(8, 16@model)]
rolled = jnp.roll(x, 4, axis=0)  # reveal: f32[(8@data, 16)]
rolled_free = jnp.roll(x, 3, axis=1)  # reveal: f32[(8@data, 16)]
rolled_bad = jnp.roll(x, 2, axis=0)  # expect: NC822
halves = jnp.split(x, 2, axis=0)
half = jnp.split(x, 2, axis=0)[1]  # reveal: f32[(4@data, 16)]
quarter_cols = jnp.split(x, 4, axis=1)[0]  # reveal: f32[(8@data, 4)]
split_bad = jnp.split(x, 4, axis=0)  # expect: NC822
split_at_bad = jnp.split(x, [2], axis=0)  # expect: NC822
thirds_bad = jnp.array_split(x, 3, axis=0)  # expect: NC822
hot = jax.nn.one_hot(labels, 5)  # reveal: f32[(8@data, 5)]
hot_first = jax.nn.one_hot(labels, 5, axis=0)  # reveal: f32[(5, 8@data)]
outer = jnp.outer(jax.device_put(jnp.ones(8), P('data')), jax.device_put(jnp.ones(4), P('model')))  # reveal: f32[(8@data, 4@model)]
outer_bad = jnp.outer(jax.device_put(jnp.ones(8), P('data')), jax.device_put(jnp.ones(4), P('data')))  # expect: NC804

flat_take = jnp.take(jnp.ones((8, 16)), ids)  # reveal: f32[(4,)]
flat_take_bad = jnp.take(x, ids)  # expect: NC806
along = jnp.take_along_axis(x, jnp.zeros((8, 3), jnp.int32), axis=1)  # reveal: f32[(8@data, 3)]
along_rows = jnp.take_along_axis(y, jnp.zeros((3, 16), jnp.int32), axis=0)  # reveal: f32[(3, 16@model)]
along_ids = jnp.take_along_axis(jnp.ones((8, 16)), jax.device_put(jnp.zeros((8, 3), jnp.int32), P('data')), axis=1)  # reveal: f32[(8@data, 3)]
along_bad = jnp.take_along_axis(y, jnp.zeros((8, 3), jnp.int32), axis=1)  # expect: NC806
along_rows_bad = jnp.take_along_axis(x, jnp.zeros((3, 16), jnp.int32), axis=0)  # expect: NC806

flat = jnp.ravel(x)  # reveal: f32[(128@data,)]
flat_bad = jnp.ravel(y)  # expect: NC805

ds = lax.dynamic_slice(x, (0, 0), (4, 16))  # reveal: f32[(4@data, 16)]
ds_bad = lax.dynamic_slice(x, (0, 0), (2, 16))  # expect: NC822
ds_dim = lax.dynamic_slice_in_dim(x, 0, 3, axis=1)  # reveal: f32[(8@data, 3)]
ds_dim_bad = lax.dynamic_slice_in_dim(x, 0, 3, axis=0)  # expect: NC822
di = lax.dynamic_index_in_dim(x, 0, axis=1, keepdims=False)  # reveal: f32[(8@data,)]
di_bad = lax.dynamic_index_in_dim(x, 0, axis=0)  # expect: NC822
sl = lax.slice_in_dim(x, 0, 8, 2, axis=0)  # reveal: f32[(4@data, 16)]
sl_bad = lax.slice_in_dim(x, 0, 3, axis=0)  # expect: NC822
dus = lax.dynamic_update_slice(x, jax.device_put(jnp.ones((4, 16)), P('data')), (0, 0))  # reveal: f32[(8@data, 16)]
dus_bad = lax.dynamic_update_slice(x, jnp.ones((4, 16)), (0, 0))  # expect: NC801
dus_dim = lax.dynamic_update_slice_in_dim(y, jax.device_put(jnp.ones((8, 4)), P(None, 'model')), 0, axis=1)  # reveal: f32[(8, 16@model)]
dus_dim_bad = lax.dynamic_update_slice_in_dim(y, jnp.ones((8, 4)), 0, axis=1)  # expect: NC801
dui = lax.dynamic_update_index_in_dim(x, jax.device_put(jnp.ones(8), P('data')), 0, axis=1)  # reveal: f32[(8@data, 16)]
dui_bad = lax.dynamic_update_index_in_dim(x, jnp.ones(8), 0, axis=1)  # expect: NC801
bid = lax.broadcast_in_dim(jax.device_put(jnp.ones(16), P('model')), (8, 16), (1,))  # reveal: f32[(8, 16@model)]
bid_one = lax.broadcast_in_dim(jax.device_put(jnp.ones((8, 1)), P('data')), (8, 16), (0, 1))  # reveal: f32[(8@data, 16)]
bid_out = lax.broadcast_in_dim(labels, (8, 4), (0,), out_sharding=P(None, 'data'))  # reveal: i32[(8, 4@data)]
lead = lax.broadcast(labels, (3,))  # reveal: i32[(3, 8@data)]
sel = lax.select(x > 0, x, x * 2)  # reveal: f32[(8@data, 16)]
sel_bad = lax.select(x > 0, x, jnp.ones((8, 16)))  # expect: NC801
conv = lax.convert_element_type(x, jnp.int32)  # reveal: i32[(8@data, 16)]
