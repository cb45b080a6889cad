# Reported: https://github.com/jax-ml/jax/issues/27808
# A jitted function's output is sharded over a mesh axis of 4 devices along a dimension of length 5.
# class: sharding
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


def run():
    mesh = jax.make_mesh((4, 2), ("x", "y"))
    s = NamedSharding(mesh, P("x"))
    f = jax.jit(lambda x: x * 2, out_shardings=s)
    n = 5
    return f(jnp.arange(n))  # bug: n is not divisible by the 4 devices of 'x'


if __name__ == "__main__":
    run()
