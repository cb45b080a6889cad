# Sizes a program takes from its mesh: mesh.shape / size / axis_names / devices, the device count
# (all devices laid out as 4 x 2), lax.axis_size and psum(1, name) inside shard_map.
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))

n_devices = jax.device_count()  # reveal: Const(value=8)
also_n = len(jax.devices())  # reveal: Const(value=8)
per_device = jnp.zeros((jax.device_count(), 4))  # reveal: f32[(8, 4)]
data_size = mesh.shape["data"]  # reveal: Const(value=4)
sizes = dict(mesh.shape)
total = mesh.size  # reveal: Const(value=8)
axes = mesh.axis_names  # reveal: Seq(items=(Const(value='data'), Const(value='model')), kind='tuple')
grid = mesh.devices.shape  # reveal: Seq(items=(Const(value=4), Const(value=2)), kind='tuple')
rows = len(mesh.devices)  # reveal: Const(value=4)

tokens = jnp.ones((32, 16))
per_shard = tokens.reshape(mesh.shape["data"], -1, 16)  # reveal: f32[(4, 8, 16)]
per_model = tokens.reshape(mesh.shape["model"], 16, mesh.devices.shape[1] * 8)  # reveal: f32[(2, 16, 16)]
flat = per_device.reshape(mesh.size * 4)  # reveal: f32[(32,)]


@partial(jax.shard_map, mesh=mesh, in_specs=P("data"), out_specs=P("data"))
def scaled_block(x):
    n = lax.axis_size("data")  # reveal: DimVal(dim=4)
    m = lax.psum(1, "model")  # reveal: DimVal(dim=2)
    counts = jnp.zeros((n, m))  # reveal: f32[(4, 2)]
    return x * counts.sum()


out = scaled_block(tokens)  # reveal: f32[(32, 16)]

# --- wrong: the element counts provably differ once the mesh's sizes are known
bad_split = tokens.reshape(mesh.shape["model"], 3, 16)  # expect: NC203
bad_per_device = per_device.reshape(jax.device_count(), 8)  # expect: NC203


@partial(jax.shard_map, mesh=mesh, in_specs=P("data"), out_specs=P("data"))
def bad_block(x):
    n = lax.axis_size("data")
    return x.reshape(n, 3, 16)  # expect: NC203


bad_out = bad_block(tokens)
