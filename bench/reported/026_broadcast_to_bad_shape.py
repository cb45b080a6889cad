# Reported: https://github.com/jax-ml/jax/issues/20533
# jnp.broadcast_to is asked for a target whose trailing size differs from the array's.
# class: broadcast
import jax.numpy as jnp


def expand_bias(bias, batch, features):
    return jnp.broadcast_to(bias, (batch, features))  # bug: bias has features + 1 entries


def run():
    features = 3
    return expand_bias(jnp.zeros(features + 1), 2, features)


if __name__ == "__main__":
    run()
