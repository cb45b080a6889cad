"""Sharding bugs namedcheck finds before the program runs (namedcheck check examples/buggy/)."""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array, lax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

import namedcheck.numpy as nnp
from namedcheck import Dims, f32, xmap

mesh = Mesh(np.array(jax.devices()).reshape((4, 2)), ('data', 'model'))


# The result below still varies over 'model': the partial sums are never psum-med.
@partial(jax.shard_map, mesh=mesh, in_specs=(P('data', None), P(None, 'model'), P('model', None)),
         out_specs=P('data', None))  # NC601
def mlp_forgot_psum(x, w1, w2):
    return jax.nn.relu(x @ w1) @ w2


def accumulate(xs):
    total = jnp.zeros(xs.shape[1:])
    total, _ = lax.scan(lambda c, x: (c + x, None), total, xs)  # NC602: the carry starts invariant
    return total


def mean_over_both(x):
    return lax.pmean(x, ('data', 'model'))  # NC603: x varies over 'data' only


def sum_two_args(x: f32[Array, Dims(a=4)], y: f32[Array, Dims(b=12)]) -> f32[Array, Dims()]:
    z = x + y  # NC502: 'a' and 'b' share mesh axis 'data'
    return nnp.sum(z, axis=('a', 'b'))


def main() -> None:
    x = jnp.zeros((64, 8))
    mlp_forgot_psum(x, jnp.zeros((8, 16)), jnp.zeros((16, 8)))
    jax.shard_map(accumulate, mesh=mesh, in_specs=P('data'), out_specs=P('data'))(x)
    jax.shard_map(mean_over_both, mesh=mesh, in_specs=P('data'), out_specs=P())(x)
    with mesh:
        xmap(sum_two_args, in_axes=(['a', ...], ['b', ...]), out_axes=[...],
             axis_resources={'a': 'data', 'b': 'data'})(jnp.ones(4), jnp.ones(12))
    xmap(lambda v: v * 2, in_axes=['i', ...], out_axes=[...])(x)  # NC404: 'i' is never placed
