# Reported: https://github.com/jax-ml/jax/issues/10193
# A vmapped function gets a keyword argument whose batch size differs from the positional one.
# class: vmap
import jax
import jax.numpy as jnp


@jax.vmap
def shift(x, y):
    return x + y


def apply_shift(xs, n_shift):
    offsets = jnp.arange(n_shift + 1)
    return shift(xs, y=offsets)  # bug: offsets has n_shift + 1 rows, xs has n_shift


def run():
    return apply_shift(jnp.ones(3), 3)


if __name__ == "__main__":
    run()
