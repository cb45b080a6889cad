"""Explicit-axis sharding in types: static indexing. A sharded dimension kept whole (`:`, `:8` of 8,
`::-1`) keeps its mesh axes; an unsharded one may be indexed freely. Outside jit (module-level code) an int
index or a partial slice of a sharded dimension is a gather JAX cannot shard (NC806); under jit a slice
keeps the mesh axes when they divide its length, and is rejected otherwise (an int index: length 1)."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

x = jax.device_put(jnp.ones((8, 16)), P('data', None))
y = jax.device_put(jnp.ones((8, 16)), P(None, 'model'))

whole = x[:]  # reveal: f32[(8@data, 16)]
whole_stop = x[:8]  # reveal: f32[(8@data, 16)]
flipped = x[::-1]  # reveal: f32[(8@data, 16)]
cols = x[:, 3:5]  # reveal: f32[(8@data, 2)]
col = x[:, 0]  # reveal: f32[(8@data,)]
row = y[0]  # reveal: f32[(16@model,)]
rows = y[2:6]  # reveal: f32[(4, 16@model)]
lead = x[None]  # reveal: f32[(1, 8@data, 16)]
trail = y[..., None]  # reveal: f32[(8, 16@model, 1)]
ell = x[..., 1:3]  # reveal: f32[(8@data, 2)]

row_bad = x[0]  # expect: NC806
last_bad = x[-1]  # expect: NC806
head_bad = x[:4]  # expect: NC806
mid_bad = x[2:6]  # expect: NC806
stride_bad = x[::2]  # expect: NC806
col_bad = y[:, 0]  # expect: NC806
cols_bad = y[:, :4]  # expect: NC806
both_bad = y[0, 0]  # expect: NC806

head = jax.jit(lambda a: a[:4])(x)  # reveal: f32[(4@data, 16)]
strided = jax.jit(lambda a: a[::2])(x)  # reveal: f32[(4@data, 16)]
cols_jit = jax.jit(lambda a: a[:, :4])(y)  # reveal: f32[(8, 4@model)]
head_uneven = jax.jit(lambda a: a[:6])(x)  # expect: NC822
row_jit = jax.jit(lambda a: a[0])(x)  # expect: NC822
tail_jit = jax.jit(lambda a: a[1:])(x)  # expect: NC822
col_jit = jax.jit(lambda a: a[:, 0])(y)  # expect: NC822


@jax.jit
def first_half(a):
    return a[:4] * 2


def first_row(a):
    return a[0]  # expect: NC806


half = first_half(x)  # reveal: f32[(4@data, 16)]
first = first_row(x)
first_ok = first_row(y)  # reveal: f32[(16@model,)]

ids = jnp.arange(4)
picked = x[:, ids]  # reveal: f32[(8@data, 4)]
picked_rows = y[ids]  # reveal: f32[(4, 16@model)]
picked_bad = x[ids]  # expect: NC806
picked_col_bad = y[:, ids]  # expect: NC806
picked_jit_bad = jax.jit(lambda a: a[ids])(x)  # expect: NC806

from_end = x[-8:]  # reveal: f32[(8@data, 16)]
flipped_from = x[7::-1]  # reveal: f32[(8@data, 16)]
past_end = x[:100]  # reveal: f32[(8@data, 16)]
tail_bad = x[-4:]  # expect: NC806
rstride_bad = x[::-2]  # expect: NC806
rstride_jit = jax.jit(lambda a: a[::-2])(x)  # reveal: f32[(4@data, 16)]
