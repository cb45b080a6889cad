"""Collectives of xmap programs that today's vmap rejects: `lax.ppermute` with a partial permutation
(some instances send nothing; those that receive nothing get zeros, as on devices). Imported by the
runtime's xmap; installs one batching rule that defers to JAX's own for every full permutation."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax._src.interpreters import batching
from jax._src.lax import parallel

_jax_rule = batching.fancy_primitive_batchers[parallel.ppermute_p]


def _ppermute_batcher(axis_data: Any, vals_in: Any, dims_in: Any, axis_name: Any, perm: Any) -> Any:
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    size = axis_data.size
    if names != (axis_data.name,) or len(perm) == size or not isinstance(size, int):
        return _jax_rule(axis_data, vals_in, dims_in, axis_name=axis_name, perm=perm)
    (v,), (d,) = vals_in, dims_in
    if d is None:  # an unmapped value: every instance holds it, the receivers differ
        v, d = jnp.broadcast_to(v, (size, *jnp.shape(v))), 0
    src = np.zeros(size, dtype=np.int32)
    received = np.zeros(size, dtype=bool)
    for s, t in perm:
        src[t], received[t] = s, True
    mask_shape = [1] * jnp.ndim(v)
    mask_shape[d] = size
    taken = jnp.take(v, src, axis=d)
    return jnp.where(received.reshape(mask_shape), taken, jnp.zeros((), v.dtype)), d


def install() -> None:
    """Use the partial-permutation rule for `ppermute` under vmap (idempotent)."""
    batching.fancy_primitive_batchers[parallel.ppermute_p] = _ppermute_batcher


install()
