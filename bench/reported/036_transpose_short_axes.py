# Reported: https://github.com/jax-ml/jax/issues/3954
# jnp.transpose gets an axes tuple shorter than the array's rank.
# class: axis
import jax.numpy as jnp


def swap_leading(x):
    return jnp.transpose(x, (1, 0))  # bug: x has rank 3


def run():
    return swap_leading(jnp.zeros((2, 3, 4)))


if __name__ == "__main__":
    run()
