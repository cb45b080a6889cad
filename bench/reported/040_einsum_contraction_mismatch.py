# Reported: https://github.com/jax-ml/jax/issues/3645
# A chain of einsum contractions pairs a factor matrix with the wrong mode of the core tensor.
# class: einsum
import jax.numpy as jnp


def tucker_reconstruct(core, a, b):
    return jnp.einsum("ab,ea,fb->ef", core, a, b)  # bug: b was built for core.shape[0], not core.shape[1]


def run():
    r1, r2, n1, n2 = 3, 5, 6, 7
    core = jnp.ones((r1, r2))
    return tucker_reconstruct(core, jnp.ones((n1, r1)), jnp.ones((n2, r1)))


if __name__ == "__main__":
    run()
