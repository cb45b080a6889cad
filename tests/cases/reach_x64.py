"""`jax.config.update('jax_enable_x64', True)`: JAX's defaults are 64-bit (float64, int64); a dtype asked for stays.
Run in a process of its own by tests/test_reach_python_under_jax.py (the flag is global)."""

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

a = jnp.zeros(3)  # reveal: f64[(3,)]
b = jnp.arange(3)  # reveal: i64[(3,)]
c = jnp.ones(3, jnp.float32)  # reveal: f32[(3,)]
d = jax.random.normal(jax.random.key(0), (2,))  # reveal: f64[(2,)]
e = jnp.asarray(np.zeros(3))  # reveal: f64[(3,)]
f = c * 2  # reveal: f32[(3,)]
g = a + c  # reveal: f64[(3,)]
h = jnp.mean(b)  # reveal: f64[()]
i = jnp.argmax(a)  # reveal: i64[()]
k = jnp.asarray(2.0)  # reveal: f64[()]
m = jnp.eye(2)  # reveal: f64[(2, 2)]
key = jax.random.PRNGKey(0)  # reveal: u32[(2,)]
halves = jax.random.split(key)  # reveal: u32[(2, 2)]
u = jax.random.uniform(halves[0], (3,))  # reveal: f64[(3,)]


def wrong_x64_matmul():
    return a @ jnp.ones((4,))  # expect: NC203
