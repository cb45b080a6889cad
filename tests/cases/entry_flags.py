"""absl flags and argparse options: their defaults are values only where the entry point reaches."""

import jax.numpy as jnp
from absl import app, flags

FLAGS = flags.FLAGS
flags.DEFINE_integer("width", 8, "hidden width")
_DEPTH = flags.DEFINE_integer("depth", 3, "layers")


def layer(x):
    w = jnp.ones((FLAGS.width, 4))
    return x @ w


def stack(x):
    h = jnp.ones((_DEPTH.value, 5))
    return x @ h  # expect: NC203


def library_only(x):
    # never reached from the entry point: a command line may set --width=9, so nothing is known here
    w = jnp.ones((FLAGS.width, 4))
    return jnp.ones((2, 9)) @ w


def main(argv):
    x = jnp.ones((2, FLAGS.width))
    y = layer(x)
    z = jnp.ones((2, 4))
    return stack(z)


if __name__ == "__main__":
    app.run(main)
    library_only(jnp.ones((2, 9)))  # not reached: app.run exits
