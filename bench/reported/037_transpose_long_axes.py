# Reported: https://github.com/jax-ml/jax/issues/7026
# jnp.transpose gets an axes tuple longer than the array's rank.
# class: axis
import jax.numpy as jnp


def to_channels_first(x):
    return jnp.transpose(x, (0, 3, 1, 2))  # bug: x is rank 3 (a single image, no batch axis)


def run():
    h, w, c = 4, 4, 3
    return to_channels_first(jnp.zeros((h, w, c)))


if __name__ == "__main__":
    run()
