# Reported: https://github.com/jax-ml/jax/issues/888
# A sum is taken over axis 3 of a rank-3 array.
# class: axis
import jax.numpy as jnp


def pool(x):
    return jnp.sum(x, axis=3)  # bug: x has rank 3


def run():
    x = jnp.ones((3, 2, 2))
    return pool(x)


if __name__ == "__main__":
    run()
