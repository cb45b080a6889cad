"""argparse options: their defaults are the values where the entry point parses the command line."""

import argparse

import jax.numpy as jnp


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-classes", type=int, default=10)
    parser.add_argument("--hidden", type=int, default="32")
    return parser.parse_args()


def head(args):
    logits = jnp.zeros((4, args.num_classes))
    return logits - jnp.zeros((4, 12))  # expect: NC201


if __name__ == "__main__":
    head(parse())
