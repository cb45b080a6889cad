"""Collectives of xmap programs that today's vmap rejects or treats differently: `lax.ppermute` with a
partial permutation (some instances send nothing; those that receive nothing get zeros, as on
devices) or over several names, and pdot's sum (a psum with a local transpose). Imported by the
runtime's xmap; installs one batching rule that defers to JAX's own for every full permutation."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax
from jax._src import core
from jax._src.interpreters import ad, batching, mlir
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
    table = jnp.reshape(table, (-1, *table.shape[len(names) :]))
    total = table.shape[0]
    src = np.zeros(total, dtype=np.int32)
    received = np.zeros(total, dtype=bool)
    for s, t in perm:
        src[t], received[t] = s, True
    # the combined index of each instance at this level: the other names' indices plus this one's
    lin = jnp.arange(size) * int(np.prod([sizes[n] for n in names[names.index(here) + 1 :]], dtype=int))
    for i, n in enumerate(names):
        if n != here:
            lin = lin + lax.axis_index(n) * int(np.prod([sizes[m] for m in names[i + 1 :]], dtype=int))
    taken = jnp.take(table, jnp.take(jnp.asarray(src), lin), axis=0)
    mask = jnp.take(jnp.asarray(received), lin).reshape((size,) + (1,) * (taken.ndim - 1))
    return jnp.where(mask, taken, jnp.zeros((), taken.dtype)), 0


# ---- pdot's sum: a psum that transposes locally --------------------------------------------------
# jax 0.4.30's pdot was bilinear with the local dot_general as its transpose: differentiated inside an
# xmap body, each instance's cotangent is the result's, not its sum over the instances (the transpose
# today's psum has under vmap). This primitive is psum for values, forward mode and batching (vmap
# turns it into JAX's psum, so a program differentiated from outside sees plain psums), with that
# local transpose.

psum_local_transpose_p = core.Primitive("psum_local_transpose")


def _local_abstract_eval(x: Any, *, axes: tuple[Any, ...]) -> Any:
    return parallel.psum_p.abstract_eval(x, axes=axes, axis_index_groups=None)


def _local_batcher(axis_data: Any, vals_in: Any, dims_in: Any, *, axes: tuple[Any, ...]) -> Any:
    return batching.fancy_primitive_batchers[parallel.psum_p](
        axis_data, vals_in, dims_in, axes=axes, axis_index_groups=None
    )


psum_local_transpose_p.def_effectful_abstract_eval(_local_abstract_eval)
ad.deflinear2(psum_local_transpose_p, lambda ct, x, *, axes: [ct])
batching.fancy_primitive_batchers[psum_local_transpose_p] = _local_batcher
mlir.register_lowering(
    psum_local_transpose_p, mlir.lower_fun(lambda x, *, axes: lax.psum(x, axes), multiple_results=False)
)


def psum_local_transpose(x: Any, axes: tuple[str, ...]) -> Any:
    """psum of x over named axes whose transpose passes each instance's cotangent through."""
    return psum_local_transpose_p.bind(x, axes=tuple(axes)) if axes else x


def install() -> None:
    """Use the partial-permutation rule for `ppermute` under vmap (idempotent)."""
    batching.fancy_primitive_batchers[parallel.ppermute_p] = _ppermute_batcher


install()
