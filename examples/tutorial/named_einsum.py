"""einsum over named axes: names in braces, contracted when absent from the output."""

import jax.numpy as jnp
from jax import Array

from namedcheck import Dims, f32, xmap


def named_batch_matrix_single_matrix(
        x: f32[Array, Dims(5, b=20, k=7)],
        y: f32[Array, Dims(k=7, m=11)]) \
        -> f32[Array, Dims(5, b=20, m=11)]:
    return jnp.einsum('n{b,k},{k,m}->n{b,m}', x, y)


def positional_equivalent(x: f32[Array, Dims(20, 5, 7)], y: f32[Array, Dims(7, 11)]) -> f32[Array, Dims(20, 5, 11)]:
    return jnp.einsum('bnk,km->bnm', x, y)


zx = xmap(named_batch_matrix_single_matrix,
          in_axes=[{0: 'b', 2: 'k'}, ['k', 'm', ...]],
          out_axes={0: 'b', 2: 'm'})
