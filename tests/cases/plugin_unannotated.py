"""Plain JAX code without a single annotation: mypy (by default) checks no function body here, so no
hook of the plugin fires, and the plugin still reports what the CLI reports."""
import jax
import jax.numpy as jnp
from jax import lax


def right_mlp(key):
    k1, k2 = jax.random.split(key)
    w1 = jax.random.normal(k1, (784, 512))
    w2 = jax.random.normal(k2, (512, 10))
    x = jnp.ones((32, 784))
    h = jax.nn.relu(x @ w1)  # reveal: f32[(32, 512)]
    return h @ w2


def wrong_residual():
    x = jnp.ones((8, 128))
    y = jnp.ones((8, 64))
    return x + y  # expect: NC201


def wrong_projection():
    h = jnp.zeros((4, 16))
    w = jnp.zeros((32, 16))
    return h @ w  # expect: NC203


def right_collective(xs):
    return jax.vmap(lambda v: lax.psum(v, "batch"), axis_name="batch")(xs)


def wrong_vmap_sizes():
    xs = jnp.ones((5, 3))
    ys = jnp.ones((6, 3))
    return jax.vmap(jnp.dot)(xs, ys)  # expect: NC403
