# Reported: https://github.com/google/jaxopt/issues/436
# The update step averages gradients over 'devices' while the pmap that runs it names its axis 'data'.
# class: axis_name
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
import jax
import jax.numpy as jnp


def update(params, batch):
    grads = jax.grad(lambda p: jnp.mean((batch @ p) ** 2))(params)
    grads = jax.lax.pmean(grads, axis_name="devices")  # bug: the pmap axis is called 'data'
    return params - 0.1 * grads


def fit(n_dev, dim):
    params = jnp.zeros((n_dev, dim))
    data = jnp.ones((n_dev, 4, dim))
    return jax.pmap(update, axis_name="data")(params, data)


def run():
    return fit(jax.local_device_count(), 3)


if __name__ == "__main__":
    run()
