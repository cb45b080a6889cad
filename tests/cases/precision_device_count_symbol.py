# No device count stated (no configuration, no XLA_FLAGS, no mesh over every device): the count is the one
# symbol `ndev`, so sizes computed from it stay expressions and nothing is reported that some count allows.
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")  # the environment may override
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import mesh_utils
from jax.sharding import Mesh

n = jax.device_count()  # reveal: DimVal(dim='ndev')
same = len(jax.devices())  # reveal: DimVal(dim='ndev')
local = jax.local_device_count()  # reveal: DimVal(dim='ndev')
per_device = jnp.zeros((jax.device_count(), 4))  # reveal: f32[('ndev', 4)]


def shard(batch):
    ndev = jax.device_count()
    return batch.reshape(ndev, -1, batch.shape[-1])


def run():
    x = jnp.ones((10, 3))
    y = x.reshape(n, -1, 3)
    z = x.reshape((n, x.shape[0] // n) + x.shape[1:])
    parts = jnp.split(jnp.ones((12, 5)), jax.device_count())
    mesh = Mesh(np.array(jax.devices()).reshape(-1, 4), ("data", "model"))
    mesh2 = Mesh(mesh_utils.create_device_mesh((2, 8)), ("data", "model"))
    mesh3 = jax.make_mesh((4, 4), ("data", "model"))
    pm = jax.pmap(lambda v: v * 2)(jnp.ones((16, 4)))
    return shard(x), y, z, parts, mesh, mesh2, mesh3, pm
