# Reported: https://github.com/jax-ml/jax/pull/18951
# A shard_map gets a rank-1 in_spec for an argument that is a scalar.
# class: sharding
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P


def scale(x, s):
    return x * s


def run():
    mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("i", "j"))
    f = jax.shard_map(scale, mesh=mesh, in_specs=(P("i"), P(None)), out_specs=P("i"))  # bug: s is a scalar
    return f(jnp.ones(8), jnp.float32(1.0))


if __name__ == "__main__":
    run()
