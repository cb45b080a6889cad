# Reported: https://github.com/patrick-kidger/equinox/issues/738
# A sharding meant for rank-3 data is given one entry too many for the array it constrains.
# class: sharding
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P


def shard_data(x):
    n = len(jax.devices())
    mesh = Mesh(np.array(jax.devices()).reshape(1, n), ("a", "b"))
    sharding = NamedSharding(mesh, P(None, None, None, "b"))
    return jax.device_put(x, sharding)  # bug: the spec has 4 entries, x has rank 3


def run():
    x = jax.random.uniform(jax.random.key(42), (256, 20, 1000))
    return shard_data(x)


if __name__ == "__main__":
    run()
