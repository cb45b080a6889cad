# Reported: https://github.com/jax-ml/jax/issues/3638
# A batch is split into one chunk per device with jnp.split although the devices do not divide it.
# class: split
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax
import jax.numpy as jnp


def per_device(z, n):
    return jnp.stack(jnp.split(z, n))  # bug: z has 12 rows, n is 8


def run():
    z = jnp.ones((12, 5))
    return per_device(z, jax.device_count())


if __name__ == "__main__":
    run()
