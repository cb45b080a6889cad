# The device count the program states for itself (XLA_FLAGS before jax is imported): jax.devices(),
# device_count(), meshes laid out over every device, pmapped batches, and batches split one slice per device.
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import mesh_utils
from jax.sharding import Mesh

n = jax.device_count()  # reveal: Const(value=8)
local = jax.local_device_count()  # reveal: Const(value=8)
listed = len(jax.devices())  # reveal: Const(value=8)
grid = np.array(jax.devices()).reshape(-1, 4).shape  # reveal: Seq(items=(Const(value=2), Const(value=4)), kind='tuple')
first_four = len(jax.devices()[:4])  # reveal: Const(value=4)
too_many = len(jax.devices()[:16])  # reveal: Const(value=8)


def meshes():
    good = Mesh(np.array(jax.devices()).reshape(-1, 4), ("data", "model"))
    good2 = Mesh(mesh_utils.create_device_mesh((2, 4)), ("data", "model"))
    good3 = jax.make_mesh((2, 2), ("data", "model"))  # the first 4 devices
    good4 = jax.make_mesh((jax.device_count() // 2, 2), ("data", "model"))
    bad = Mesh(np.array(jax.devices()).reshape(3, -1), ("data", "model"))  # expect: NC203
    bad2 = mesh_utils.create_device_mesh((2, 8))  # expect: NC505
    bad3 = mesh_utils.create_device_mesh((2, 2))  # expect: NC505
    bad4 = jax.make_mesh((4, 4), ("data", "model"))  # expect: NC505
    bad5 = jax.make_mesh((-1, 2), ("data", "model"))  # expect: NC505
    return good, good2, good3, good4, bad, bad2, bad3, bad4, bad5


def step(x):
    return x * 2


def per_device_batches(config_shape: str):
    batch = jnp.ones((32, 3))
    shards = batch.reshape(jax.device_count(), -1, 3)  # reveal: f32[(8, 4, 3)]
    jax.pmap(step)(shards)
    jax.pmap(step)(jnp.ones((4, 3)))  # fewer than the devices: the first 4
    jax.pmap(step)(jnp.ones((16, 3)))  # expect: NC505
    jnp.split(batch, n)
    jnp.split(jnp.ones((12, 5)), jax.device_count())  # expect: NC203
    jnp.ones((10, 3)).reshape(n, -1, 3)  # expect: NC203
    dims = [int(d) for d in config_shape.split(",")]
    return dims
