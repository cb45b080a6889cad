# Reported: https://github.com/jax-ml/jax/issues/705
# A per-example loss is vmapped with in_axes=(0, 1) although both inputs carry the batch on axis 0.
# class: vmap
import jax
import jax.numpy as jnp


def pair_loss(a, b):
    return jnp.sum(a) + jnp.sum(b)


def batched_loss(feats, extras):
    return jax.vmap(pair_loss, in_axes=(0, 1))(feats, extras)  # bug: extras is batched on axis 0


def run():
    n, d, e = 10, 4, 2
    return batched_loss(jnp.ones((n, d)), jnp.ones((n, e)))


if __name__ == "__main__":
    run()
