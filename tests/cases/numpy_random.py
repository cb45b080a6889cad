"""numpy's host-side random arrays (data pipelines): the shape is `size`, the dtype numpy's 64-bit default."""
import jax.numpy as jnp
import numpy as np

rng = np.random.default_rng(0)
xs = rng.standard_normal((6, 4)).astype(np.float32)  # reveal: f32[(6, 4)]
ids = rng.integers(0, 10, size=(6,))  # reveal: i64[(6,)]
noise = rng.normal(0.0, 0.1, 5)  # reveal: f64[(5,)]
legacy = np.random.normal(0.0, 1.0, size=(3, 4))  # reveal: f64[(3, 4)]
old = np.random.RandomState(1).uniform(0, 1, (2, 5))  # reveal: f64[(2, 5)]
labels = np.random.randint(0, 3, size=8)  # reveal: i64[(8,)]
scalar = rng.normal()
w = jnp.ones((5, 2))
y = xs @ w  # expect: NC203
z = legacy @ w  # expect: NC203
q = old @ w
batches = xs.reshape(2, 3, 4)
for batch in batches:
    h = batch @ jnp.ones((4, 2))
