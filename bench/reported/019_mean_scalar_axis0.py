# Reported: https://github.com/jax-ml/jax/pull/25155
# A mean over axis 0 is taken of a value that is already a scalar.
# class: axis
import jax.numpy as jnp


def average_loss(losses):
    total = jnp.sum(losses)
    return jnp.mean(total, axis=0)  # bug: total is a scalar


def run():
    return average_loss(jnp.ones(4))


if __name__ == "__main__":
    run()
