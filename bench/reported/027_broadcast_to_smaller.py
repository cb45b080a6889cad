# Reported: https://github.com/jax-ml/jax/issues/1522
# broadcast_to is used to shrink a (2, 3) array to (1, 3).
# class: broadcast
import jax.numpy as jnp


def first_row_like(x):
    return jnp.broadcast_to(x, (1, x.shape[1]))  # bug: cannot broadcast 2 rows to 1


def run():
    return first_row_like(jnp.ones((2, 3)))


if __name__ == "__main__":
    run()
