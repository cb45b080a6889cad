"""Explicit-axis sharding in types: `x.at[idx]` updates (scatters) keep x's sharding; updating part of a
sharded dimension cannot resolve the scatter's out sharding, under jit too, without `out_sharding=`;
values split over a mesh axis must be split like the updated slice. `.get()` is indexing."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

x = jax.device_put(jnp.ones((8, 16)), P('data', None))
y = jax.device_put(jnp.ones((8, 16)), P(None, 'model'))
ids = jnp.arange(4)

col_set = x.at[:, 0].set(1.0)  # reveal: f32[(8@data, 16)]
cols_add = x.at[:, :4].add(jnp.ones((8, 4)))  # reveal: f32[(8@data, 16)]
col_vals = x.at[:, 0].set(jax.device_put(jnp.ones(8), P('data')))  # reveal: f32[(8@data, 16)]
cols_vals = x.at[:, 2:4].set(jax.device_put(jnp.ones((8, 2)), P('data', None)))  # reveal: f32[(8@data, 16)]
row_mul = y.at[0].multiply(2.0)  # reveal: f32[(8, 16@model)]
row_vals = y.at[1:3].set(jax.device_put(jnp.ones((2, 16)), P(None, 'model')))  # reveal: f32[(8, 16@model)]
picked_add = y.at[ids].add(1.0)  # reveal: f32[(8, 16@model)]
whole_set = x.at[:8].set(0.0)  # reveal: f32[(8@data, 16)]
ell_set = x.at[..., 1].min(0.0)  # reveal: f32[(8@data, 16)]
fixed = x.at[0].set(1.0, out_sharding=P('data'))  # reveal: f32[(8@data, 16)]

row_bad = x.at[0].set(1.0)  # expect: NC806
head_bad = x.at[:4].add(1.0)  # expect: NC806
flip_bad = x.at[::-1].set(1.0)  # expect: NC806
picked_bad = x.at[ids].add(1.0)  # expect: NC806
col_bad = y.at[:, 0].max(0.0)  # expect: NC806
row_jit_bad = jax.jit(lambda a: a.at[0].set(1.0))(x)  # expect: NC806
vals_bad = x.at[:, 2:4].set(jax.device_put(jnp.ones((8, 2)), P('model', None)))  # expect: NC801
row_vals_bad = y.at[0].add(jax.device_put(jnp.ones(16), P('data')))  # expect: NC801

got = x.at[:, 0].get()  # reveal: f32[(8@data,)]
got_jit = jax.jit(lambda a: a.at[:4].get())(x)  # reveal: f32[(4@data, 16)]
got_out = x.at[0].get(out_sharding=P())  # reveal: f32[(16,)]
got_bad = x.at[0].get()  # expect: NC806
