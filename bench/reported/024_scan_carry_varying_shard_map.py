# Reported: https://github.com/jeertmans/DiffeRT/issues/280
# Inside shard_map a scan's carry starts varying over one mesh axis and the body makes it vary over two.
# class: scan
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P


def trace_paths(vertices, mirrors):
    def backward(carry, m):
        nxt = carry + m
        return nxt, nxt

    _, paths = jax.lax.scan(backward, vertices, mirrors)  # bug: carry varies over 'j', mirrors over 'i' and 'j'
    return paths


def run():
    mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ("i", "j"))
    f = jax.shard_map(trace_paths, mesh=mesh, in_specs=(P("j"), P("i", "j")), out_specs=P("i", "j"))
    return f(jnp.zeros((8, 3)), jnp.ones((2, 8, 3)))


if __name__ == "__main__":
    run()
