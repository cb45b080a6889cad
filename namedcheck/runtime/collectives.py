"""Collectives of xmap programs that today's vmap rejects: `lax.ppermute` with a partial permutation
(some instances send nothing; those that receive nothing get zeros, as on devices). Imported by the
runtime's xmap; installs one batching rule that defers to JAX's own for every full permutation."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax
from jax._src.interpreters import batching
from jax._src.lax import parallel

_jax_rule = batching.fancy_primitive_batchers[parallel.ppermute_p]


def _ppermute_batcher(axis_data: Any, vals_in: Any, dims_in: Any, axis_name: Any, perm: Any) -> Any:
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    size = axis_data.size
    if len(names) > 1 and axis_data.name in names and isinstance(size, int):
        return _over_several_names(axis_data, vals_in, dims_in, names, perm)
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


def _over_several_names(axis_data: Any, vals_in: Any, dims_in: Any, names: tuple[str, ...], perm: Any) -> Any:
    """ppermute over several names (instances numbered row-major in the order of `names`), at the
    level of one of them: gather the other names' instances, then each instance takes its source's
    value (zeros where it receives nothing). JAX's own rule applies the permutation to the other
    names alone, which is wrong for a permutation of the combined instances."""
    (v,), (d,) = vals_in, dims_in
    here, size = axis_data.name, axis_data.size
    v = jnp.broadcast_to(v, (size, *jnp.shape(v))) if d is None else jnp.moveaxis(v, d, 0)
    others = [n for n in names if n != here]
    table = v  # dims: (*others in order, here, ...)
    for n in reversed(others):
        table = lax.all_gather(table, n)
    sizes = {n: table.shape[i] for i, n in enumerate(others)}
    sizes[here] = size
    order = [others.index(n) if n != here else len(others) for n in names]
    table = jnp.transpose(table, (*order, *range(len(names), table.ndim)))
    table = jnp.reshape(table, (-1, *table.shape[len(names):]))
    total = table.shape[0]
    src = np.zeros(total, dtype=np.int32)
    received = np.zeros(total, dtype=bool)
    for s, t in perm:
        src[t], received[t] = s, True
    # the combined index of each instance at this level: the other names' indices plus this one's
    lin = jnp.arange(size) * int(np.prod([sizes[n] for n in names[names.index(here) + 1:]], dtype=int))
    for i, n in enumerate(names):
        if n != here:
            lin = lin + lax.axis_index(n) * int(np.prod([sizes[m] for m in names[i + 1:]], dtype=int))
    taken = jnp.take(table, jnp.take(jnp.asarray(src), lin), axis=0)
    mask = jnp.take(jnp.asarray(received), lin).reshape((size,) + (1,) * (taken.ndim - 1))
    return jnp.where(mask, taken, jnp.zeros((), taken.dtype)), 0


def install() -> None:
    """Use the partial-permutation rule for `ppermute` under vmap (idempotent)."""
    batching.fancy_primitive_batchers[parallel.ppermute_p] = _ppermute_batcher


install()
