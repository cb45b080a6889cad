"""jnp.linalg's decompositions under Explicit axes: JAX's lu / svd / cholesky take the matrix dimensions
unsharded (NC821); inv and cholesky a sharded batch dimension neither; det and pinv keep the batch axes."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

rows = jax.device_put(jnp.eye(8) * 2 + 1, P('data'))  # reveal: f32[(8@data, 8)]
cols = jax.device_put(jnp.eye(8) * 2 + 1, P(None, 'model'))  # reveal: f32[(8, 8@model)]
batch = jax.device_put(jnp.broadcast_to(jnp.eye(8) * 2 + 1, (4, 8, 8)), P('data'))  # reveal: f32[(4@data, 8, 8)]
whole = jnp.eye(8) * 2 + 1  # reveal: f32[(8, 8)]
inv_rows = jnp.linalg.inv(rows)  # expect: NC821
inv_cols = jnp.linalg.inv(cols)  # expect: NC821
inv_batch = jnp.linalg.inv(batch)  # expect: NC821
inv_ok = jnp.linalg.inv(jax.sharding.reshard(rows, P()))  # reveal: Array[(8, 8)]
inv_whole = jnp.linalg.inv(whole)  # reveal: Array[(8, 8)]
det_rows = jnp.linalg.det(rows)  # expect: NC821
det_batch = jnp.linalg.det(batch)  # reveal: Array[(4@data,)]
pinv_cols = jnp.linalg.pinv(cols)  # expect: NC821
pinv_batch = jnp.linalg.pinv(batch)  # reveal: Array[(4@data, 8, 8)]
chol_rows = jnp.linalg.cholesky(rows)  # expect: NC821
chol_batch = jnp.linalg.cholesky(batch)  # expect: NC821
chol_ok = jnp.linalg.cholesky(whole)  # reveal: Array[(8, 8)]
