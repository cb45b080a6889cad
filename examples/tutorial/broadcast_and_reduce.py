"""Reductions accept positional axes, named axes, or both (the xmap tutorial's "Reductions")."""

import jax.numpy as jnp
from jax.experimental.maps import xmap

from namedcheck import f32


def named_broadcast_and_reduce(
        x: f32[(), {'x': 2}],
        y: f32[(5,), {'y': 4}]) \
        -> f32[()]:
    z: f32[(5,), {'x': 2, 'y': 4}] = x + y
    w: f32[()] = jnp.sum(z, axis=(0, 'x', 'y'))
    # The same reduction in steps:
    w0: f32[(), {'x': 2, 'y': 4}] = jnp.sum(z, 0)  # eliminate the positional axis
    w0x: f32[(), {'y': 4}] = jnp.sum(w0, 'x')  # eliminate the 'x' axis
    w1: f32[()] = jnp.sum(w0x, 'y')  # eliminate the 'y' axis
    return w


def sum_two_args(x: f32[(), {'a': 4}], y: f32[(), {'b': 12}]) -> f32[()]:
    # Valid even when 'a' and 'b' share a resource: the sums remove them before they meet.
    return jnp.sum(x, axis='a') + jnp.sum(y, axis='b')


positional_broadcast_and_reduce = xmap(named_broadcast_and_reduce, in_axes=({0: 'x'}, {1: 'y'}), out_axes={})
