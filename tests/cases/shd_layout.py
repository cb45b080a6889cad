"""Explicit-axis sharding in types: layout ops. moveaxis permutes, broadcast_to leaves new and stretched
dims unsharded, flip / tril keep the sharding, roll and split keep it when the slices stay divisible,
one_hot adds an unsharded class dim, outer may not use one mesh axis twice; gathers (take, take_along_axis)
along a sharded dim or of a sharded flattened array cannot resolve their out sharding."""

import jax
import jax.numpy as jnp
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
