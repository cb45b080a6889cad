"""Explicit-axis sharding in types: ops along one dimension. Cumulative reductions, sorts and top_k need
that dimension unsharded (axis=None: the whole array replicated); lax reductions drop the reduced dims'
mesh axes; constant padding keeps the sharding if the padded size stays divisible; tile and repeat may not
multiply a sharded dimension."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

x = jax.device_put(jnp.ones((8, 16)), P('data', None))
y = jax.device_put(jnp.ones((8, 16)), P(None, 'model'))
rep = jnp.ones((8, 16))

cs = jnp.cumsum(x, axis=1)  # reveal: f32[(8@data, 16)]
cs_bad = jnp.cumsum(x, axis=0)  # expect: NC821
cs_flat_bad = jnp.cumsum(x)  # expect: NC821
cs_flat = jnp.cumsum(rep)  # reveal: f32[(128,)]
cp = jnp.cumprod(y, axis=0)  # reveal: f32[(8, 16@model)]
cp_bad = jnp.cumprod(y, axis=-1)  # expect: NC821
lcs = lax.cumsum(x, axis=1, reverse=True)  # reveal: f32[(8@data, 16)]
lcs_bad = lax.cumsum(x)  # expect: NC821
lcm = lax.cummax(y, axis=0)  # reveal: f32[(8, 16@model)]
lcm_bad = lax.cummax(y, axis=1)  # expect: NC821
lcmin_bad = lax.cummin(x, 0)  # expect: NC821

srt = jnp.sort(x)  # reveal: f32[(8@data, 16)]
srt_bad = jnp.sort(x, axis=0)  # expect: NC821
srt_y_bad = jnp.sort(y)  # expect: NC821
srt_flat_bad = jnp.sort(x, axis=None)  # expect: NC821
srt_flat = jnp.sort(rep, axis=None)  # reveal: f32[(128,)]
order = jnp.argsort(x, descending=True)  # reveal: i32[(8@data, 16)]
order_bad = jnp.argsort(y)  # expect: NC821
lsrt = lax.sort(x)  # reveal: f32[(8@data, 16)]
lsrt_bad = lax.sort(x, dimension=0)  # expect: NC821
vals, idx = lax.top_k(x, 3)
top_vals = lax.top_k(x, 3)[0]  # reveal: f32[(8@data, 3)]
top_idx = lax.top_k(x, 3)[1]  # reveal: i32[(8@data, 3)]
top_bad = lax.top_k(y, 3)  # expect: NC821

rs = lax.reduce_sum(x, axes=(1,))  # reveal: f32[(8@data,)]
rs0 = lax.reduce_sum(x, axes=(0,))  # reveal: f32[(16,)]
rmax = lax.reduce_max(y, axes=(0,))  # reveal: f32[(16@model,)]
rmin = lax.reduce_min(y, (1,))  # reveal: f32[(8,)]
rprod = lax.reduce_prod(y, axes=(0, 1))  # reveal: f32[()]

padded = jnp.pad(x, ((0, 0), (1, 1)))  # reveal: f32[(8@data, 18)]
padded_even = jnp.pad(x, ((2, 2), (0, 0)))  # reveal: f32[(12@data, 16)]
padded_uneven = jnp.pad(x, ((1, 0), (0, 0)))  # expect: NC822
padded_all = jnp.pad(x, 1)  # expect: NC822
padded_all_even = jnp.pad(x, 2)  # reveal: f32[(12@data, 20)]
padded_rep = jnp.pad(rep, ((1, 0), (0, 0)), mode='edge')  # reveal: f32[(9, 16)]

tiled = jnp.tile(x, (1, 2))  # reveal: f32[(8@data, 32)]
tiled_int = jnp.tile(x, 2)  # reveal: f32[(8@data, 32)]
tiled_new = jnp.tile(x, (2, 1, 1))  # reveal: f32[(2, 8@data, 16)]
tiled_bad = jnp.tile(x, (2, 1))  # expect: NC821
tiled_y_bad = jnp.tile(y, (1, 2))  # expect: NC821
repeated = jnp.repeat(x, 2, axis=1)  # reveal: f32[(8@data, 32)]
repeated_bad = jnp.repeat(x, 2, axis=0)  # expect: NC821
repeated_flat_bad = jnp.repeat(x, 2)  # expect: NC821
repeated_flat = jnp.repeat(rep, 2)  # reveal: f32[(256,)]

nsum = jnp.nansum(y, axis=0)  # reveal: f32[(16@model,)]
nmax = jnp.nanmax(x, axis=1, keepdims=True)  # reveal: f32[(8@data, 1)]
nonzero = jnp.count_nonzero(y, axis=0)  # reveal: i32[(16@model,)]
lse = jax.nn.logsumexp(y, axis=1)  # reveal: f32[(8,)]
med = jnp.median(y, axis=0)  # reveal: f32[(16@model,)]
med_bad = jnp.median(y, axis=1)  # expect: NC821
med_flat_bad = jnp.median(x)  # expect: NC821
norms = jnp.linalg.norm(y, axis=1)  # reveal: f32[(8,)]
norms_kept = jnp.linalg.norm(x, axis=1, keepdims=True)  # reveal: f32[(8@data, 1)]
