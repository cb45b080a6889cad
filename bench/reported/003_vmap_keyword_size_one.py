# Reported: https://github.com/jax-ml/jax/issues/24406
# vmap over three arrays passed partly by keyword, one of which has a leading size of 1.
# class: vmap
import jax
import jax.numpy as jnp


def combine(x1, x2, a3):
    return x1 + x2 * a3


def run_batch(batch):
    x = jnp.ones(batch)
    scale = jnp.ones(1)
    return jax.vmap(combine)(x, a3=scale, x2=jnp.ones(batch))  # bug: a3 is not batched (size 1)


def run():
    return run_batch(2)


if __name__ == "__main__":
    run()
