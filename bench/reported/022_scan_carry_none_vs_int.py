# Reported: https://github.com/jax-ml/jax/issues/1534
# A scan body returns a number as its carry while the initial carry is None.
# class: scan
import jax
import jax.numpy as jnp


def step(carry, x):
    return 0, (x, 2 * x)  # bug: carry in is None, carry out is an int


def run():
    return jax.lax.scan(step, None, jnp.arange(5))


if __name__ == "__main__":
    run()
