# Reported: https://github.com/LargeWorldModel/LWM/issues/39
# Ring attention is shard_mapped with the batch split over ('dp', 'fsdp') while the batch has size 1.
# class: sharding
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P


def attention(q, k, v):
    s = jnp.einsum("bqhd,bkhd->bhqk", q, k)
    return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, -1), v)


def sharded_attention(mesh, batch, seq, heads, dim):
    spec = P(("dp", "fsdp"), "sp", "tp", None)
    f = jax.shard_map(partial(attention), mesh=mesh, in_specs=(spec, spec, spec), out_specs=spec)
    q = jnp.ones((batch, seq, heads, dim))
    return f(q, q, q)  # bug: batch (1) is not divisible by dp*fsdp (8)


def run():
    mesh = Mesh(np.array(jax.devices()).reshape(1, 8, 1, 1), ("dp", "fsdp", "tp", "sp"))
    return sharded_attention(mesh, 1, 16, 4, 8)


if __name__ == "__main__":
    run()
