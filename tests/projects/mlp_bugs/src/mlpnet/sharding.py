"""Device placement: batch over the data axis, parameters replicated."""

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

MESH = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))


def shard_batch(x):
    return jax.device_put(x, NamedSharding(MESH, P("data", None)))  # expect: NC604
