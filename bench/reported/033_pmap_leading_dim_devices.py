# Reported: https://github.com/jax-ml/jax/pull/2949
# A batch is pmapped directly, with a leading dimension larger than the number of devices.
# class: pmap
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax
import jax.numpy as jnp


def train_step(x):
    return jnp.sum(x**2)


def run_epoch(batch_size, dim):
    batch = jnp.ones((batch_size, dim))
    return jax.pmap(train_step)(batch)  # bug: batch_size (16) > 8 devices; reshape to (devices, -1, dim) first


def run():
    return run_epoch(16, 4)


if __name__ == "__main__":
    run()
