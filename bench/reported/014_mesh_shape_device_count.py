# Reported: https://github.com/xai-org/grok-1/issues/248
# The device mesh is built from a config shape whose product is not the number of devices.
# class: sharding
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import dataclasses

from jax.experimental import mesh_utils
from jax.sharding import Mesh


@dataclasses.dataclass
class MeshConfig:
    data: int = 2
    model: int = 8


def make_mesh(cfg):
    devices = mesh_utils.create_device_mesh((cfg.data, cfg.model))  # bug: 2*8 devices asked, 8 present
    return Mesh(devices, ("data", "model"))


def run():
    return make_mesh(MeshConfig())


if __name__ == "__main__":
    run()
