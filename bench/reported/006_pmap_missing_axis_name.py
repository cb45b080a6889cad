# Reported: https://github.com/jax-ml/jax/issues/3120
# A pmapped function psums over axis 'batch' but pmap was not given axis_name='batch'.
# class: axis_name
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax
import jax.numpy as jnp


def total(x):
    return jax.lax.psum(x, axis_name="batch")  # bug: no enclosing map binds 'batch'


def run():
    a = jnp.arange(4)[jnp.newaxis, :]
    return jax.pmap(total)(a)


if __name__ == "__main__":
    run()
