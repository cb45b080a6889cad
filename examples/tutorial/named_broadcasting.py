"""Named axes broadcast by name: the result carries the union of the operands' named axes.

From the xmap tutorial ("Broadcasting"). `namedcheck check` proves every annotation below.
"""

import jax.numpy as jnp
from jax import Array

from namedcheck import Dims, f32, xmap


def named_broadcasting(
        x: f32[Array, Dims(2, 1, 1, a=2)],
        y: f32[Array, Dims(1, 3, 1, b=3)],
        z: f32[Array, Dims(1, 1, 5, c=5)]) \
        -> f32[Array, Dims(2, 3, 5, a=2, b=3, c=5)]:
    i: f32[Array, Dims(2, 3, 1, a=2, b=3)] = x + y
    j: f32[Array, Dims(1, 3, 5, b=3, c=5)] = y + z
    k: f32[Array, Dims(2, 3, 5, a=2, b=3, c=5)] = i + j
    return k


def run() -> None:
    x = jnp.ones((2, 2, 1, 1), dtype=jnp.float32)
    y = jnp.ones((3, 1, 3, 1), dtype=jnp.float32)
    z = jnp.ones((5, 1, 1, 5), dtype=jnp.float32)
    k = xmap(named_broadcasting,
             in_axes=(['a', ...], ['b', ...], ['c', ...]),
             out_axes=['a', 'b', 'c', ...])(x, y, z)
    assert k.shape == (2, 3, 5, 2, 3, 5)
