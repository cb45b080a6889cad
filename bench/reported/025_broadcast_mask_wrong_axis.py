# Reported: https://github.com/jax-ml/jax/pull/12308
# A per-row mask of length rows is multiplied into a (rows, cols) array without adding the column axis.
# class: broadcast
import jax.numpy as jnp


def masked(scores, row_mask):
    return scores * row_mask  # bug: row_mask needs [:, None]


def run():
    rows, cols = 2, 4
    return masked(jnp.ones((rows, cols)), jnp.ones(rows))


if __name__ == "__main__":
    run()
