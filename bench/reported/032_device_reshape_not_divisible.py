# Reported: https://github.com/google/objax/pull/52
# A batch is split across devices with a reshape although its size is not a multiple of the device count.
# class: reshape
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax
import jax.numpy as jnp


def device_reshape(x, ndevices):
    return x.reshape((ndevices, x.shape[0] // ndevices) + x.shape[1:])  # bug: 10 rows over 8 devices


def run():
    x = jnp.ones((10, 3))
    return device_reshape(x, jax.device_count())


if __name__ == "__main__":
    run()
