"""Reductions accept positional axes, named axes, or both (the xmap tutorial's "Reductions")."""

from jax import Array

import namedcheck.numpy as nnp
from namedcheck import Dims, f32, xmap


def named_broadcast_and_reduce(
        x: f32[Array, Dims(x=2)],
        y: f32[Array, Dims(5, y=4)]) \
        -> f32[Array, Dims()]:
    z: f32[Array, Dims(5, x=2, y=4)] = x + y
    w: f32[Array, Dims()] = nnp.sum(z, axis=(0, 'x', 'y'))
    # The same reduction in steps:
    w0: f32[Array, Dims(x=2, y=4)] = nnp.sum(z, 0)  # eliminate the positional axis
    w0x: f32[Array, Dims(y=4)] = nnp.sum(w0, 'x')  # eliminate the 'x' axis
    w1: f32[Array, Dims()] = nnp.sum(w0x, 'y')  # eliminate the 'y' axis
    return (w + w1) / 2


def sum_two_args(x: f32[Array, Dims(a=4)], y: f32[Array, Dims(b=12)]) -> f32[Array, Dims()]:
    # Valid even when 'a' and 'b' share a resource: the sums remove them before they meet.
    return nnp.sum(x, axis='a') + nnp.sum(y, axis='b')


positional_broadcast_and_reduce = xmap(named_broadcast_and_reduce, in_axes=({0: 'x'}, {1: 'y'}), out_axes={})
