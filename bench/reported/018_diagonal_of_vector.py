# Reported: https://github.com/jax-ml/jax/issues/11396
# jnp.diagonal is called on a 1-D array (a vector of variances rather than a matrix).
# class: axis
import jax.numpy as jnp


def total_variance(variances):
    return jnp.sum(jnp.diagonal(variances))  # bug: variances is 1-D


def run():
    n = 5
    return total_variance(jnp.ones(n))


if __name__ == "__main__":
    run()
