# Reported: https://github.com/jax-ml/jax/issues/3877
# A recursion is vmapped over a grid of n_points values and a state vector of another length.
# class: vmap
import jax
import jax.numpy as jnp


def recursion(depth, key, xt, xl):
    return xl + xt * depth + jax.random.normal(key, ())


def evaluate(n_points, n_state):
    xt = jnp.linspace(0.0, 1.0, n_points)
    xl = jnp.zeros([n_state])
    return jax.vmap(recursion, in_axes=(None, None, 0, 0))(0, jax.random.key(2), xt, xl)  # bug: n_points != n_state


def run():
    return evaluate(7, 2)


if __name__ == "__main__":
    run()
