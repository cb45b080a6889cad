"""jnp.linalg's batch rules as of JAX 0.5: `solve(a, b)` takes b as one vector only when it has one dimension,
otherwise as a stack of (n, m) matrices; decompositions of stacks keep the batch."""

import jax.numpy as jnp

a = jnp.ones((2, 3, 3))
x = jnp.linalg.solve(a, jnp.ones(3))  # reveal: f32[(2, 3)]
xs = jnp.linalg.solve(a, jnp.ones((2, 3, 4)))  # reveal: f32[(2, 3, 4)]
vectors = jnp.linalg.solve(a, jnp.ones((2, 3)))  # expect: NC203
fixed = jnp.linalg.solve(a, jnp.ones((2, 3))[..., None])[..., 0]  # reveal: f32[(2, 3)]
w, v = jnp.linalg.eigh(a)
eigenvalues = w  # reveal: f32[(2, 3)]
u, s, vh = jnp.linalg.svd(jnp.ones((4, 3, 5)), full_matrices=False)
right = vh  # reveal: f32[(4, 3, 5)]
q, r = jnp.linalg.qr(jnp.ones((4, 5, 3)))
upper = r  # reveal: f32[(4, 3, 3)]
