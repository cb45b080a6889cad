# Reported: https://github.com/spinsphotonics/pjz/issues/14
# Layers are cut into 2m x 2m tiles by a reshape that assumes both grid sizes are multiples of 2m.
# class: reshape
import jax.numpy as jnp


def tile_layers(layers, m):
    return jnp.reshape(
        layers,
        (layers.shape[0], layers.shape[1] // (2 * m), 2 * m, layers.shape[2] // (2 * m), 2 * m),  # bug: 349 is odd
    )


def run():
    layers = jnp.zeros((3, 200, 349))
    return tile_layers(layers, 1)


if __name__ == "__main__":
    run()
