# Reported: https://github.com/Physical-Intelligence/openpi/issues/607
# A data batch whose size is not a multiple of the batch mesh axis is device_put with a batch sharding.
# class: sharding
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import dataclasses

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P


@dataclasses.dataclass
class TrainConfig:
    batch_size: int = 19
    action_horizon: int = 10
    action_dim: int = 32
    fsdp_devices: int = 1


def shard_batch(cfg):
    mesh = jax.make_mesh((4, cfg.fsdp_devices), ("batch", "fsdp"))
    sharding = NamedSharding(mesh, P(("batch", "fsdp")))
    actions = jnp.zeros((cfg.batch_size, cfg.action_horizon, cfg.action_dim))
    return jax.device_put(actions, sharding)  # bug: batch_size 19 is not divisible by 4


def run():
    return shard_batch(TrainConfig())


if __name__ == "__main__":
    run()
