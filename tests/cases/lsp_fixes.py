"""Mistakes with fixes (`namedcheck check --fix`, the editor's code actions). Each function that the
`run:` note names takes one (8, 4) float32 array; tests/test_fix.py applies every fix, re-checks, and
runs the fixed program under JAX on 8 CPU devices."""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from namedcheck import f32, xmap

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('data', 'model'))


def running_sum(xb):
    total = jnp.zeros(xb.shape[1:])
    total, _ = lax.scan(lambda c, row: (c + row, None), total, xb)  # expect: NC602  # run: scan_rows
    return total


def scan_rows(x):
    return jax.shard_map(running_sum, mesh=mesh, in_specs=P('data'), out_specs=P('data'))(x)


def pick(xb):
    shifted = xb + lax.axis_index('model')
    return lax.cond(True, lambda: xb, lambda: shifted)  # expect: NC602  # run: pick_rows


def pick_rows(x):
    return jax.shard_map(pick, mesh=mesh, in_specs=P('data'), out_specs=P('data', 'model'))(x)


@partial(jax.shard_map, mesh=mesh, in_specs=P('data', None),
         out_specs=P(None, None))  # expect: NC601  # run: row_sums
def row_sums(xb):
    return jnp.sum(xb, axis=0, keepdims=True)


def double_named(x: f32[(8, 4)]):
    return xmap(lambda v: v * 2, in_axes=['i', ...], out_axes=[...])(x)  # expect: NC404  # run: double_named


def normalise(x):
    return jax.vmap(lambda v: v / lax.psum(v, 'btach'), axis_name='batch')(x)  # expect: NC705  # run: normalise


def spread(x):
    return jax.device_put(x, NamedSharding(mesh, P('dta')))  # expect: NC501  # run: spread
