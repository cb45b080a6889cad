"""Named-axis versions of the ops xmap programs use: reductions over names, named einsum, pdot,
one_hot and logsumexp with a named axis. Each splits its axes with the engine's `split_axes` /
`parse_spec` and runs the positional part with jax.numpy and the named part with collectives."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, cast

import jax
import jax.numpy as jnp
from jax import lax

from namedcheck.engine.codes import NC403
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops import Unprovable
from namedcheck.engine.ops.einsum import einsum_type, parse_spec
from namedcheck.engine.ops.reductions import split_axes
from namedcheck.errors import XmapError
from namedcheck.runtime import collectives, context


def has_names(axis: Any) -> bool:
    """Whether an `axis` argument names a named axis (a str, or a tuple holding one)."""
    if isinstance(axis, str):
        return True
    return isinstance(axis, (tuple, list)) and any(isinstance(a, str) for a in axis)


def split(axis: Any) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """(positional axes, names) of an axis argument."""
    try:
        pos, names, _ = split_axes(tuple(axis) if isinstance(axis, list) else axis)
    except Unprovable:
        raise TypeError(f"axis must be an int, an axis name, or a tuple of them; found {axis!r}") from None
    return tuple(pos), tuple(names)


def reduce(op: str, a: Any, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
    """`jnp.<op>` over positional axes and the collective `p<op>` over names (sum / max / min / mean)."""
    positional = _JNP[op]
    if not has_names(axis):
        return positional(a, axis=axis, keepdims=keepdims, **kwargs)
    pos, names = split(axis)
    out = positional(a, axis=pos, keepdims=keepdims, **kwargs) if pos else jnp.asarray(a)
    return _COLLECTIVE[op](out, names)


def var(a: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False, **kwargs: Any) -> Any:
    """Variance over positional axes and names."""
    if not has_names(axis):
        return jnp.var(a, axis=axis, ddof=ddof, keepdims=keepdims, **kwargs)
    pos, names = split(axis)
    a = jnp.asarray(a)
    mean = lax.pmean(jnp.mean(a, axis=pos, keepdims=True) if pos else a, names)
    sq = jnp.sum(jnp.square(a - mean), axis=pos, keepdims=keepdims) if pos else jnp.square(a - mean)
    count = math.prod(a.shape[p] for p in pos) * lax.psum(1, names)
    return lax.psum(sq, names) / (count - ddof)


def std(a: Any, axis: Any = None, ddof: int = 0, keepdims: bool = False, **kwargs: Any) -> Any:
    """Standard deviation over positional axes and names."""
    if not has_names(axis):
        return jnp.std(a, axis=axis, ddof=ddof, keepdims=keepdims, **kwargs)
    return jnp.sqrt(var(a, axis, ddof, keepdims, **kwargs))


def logsumexp(a: Any, axis: Any = None, keepdims: bool = False, **kwargs: Any) -> Any:
    """log(sum(exp(a))) over positional axes and names, stabilised by the maximum."""
    if not has_names(axis):
        return jax.nn.logsumexp(a, axis=axis, keepdims=keepdims, **kwargs)
    pos, names = split(axis)
    a = jnp.asarray(a)
    m = jnp.max(a, axis=pos, keepdims=True) if pos else a
    m = lax.pmax(lax.stop_gradient(m), names)
    m = jnp.where(jnp.isfinite(m), m, 0)
    s = jnp.exp(a - m)
    s = lax.psum(jnp.sum(s, axis=pos, keepdims=True) if pos else s, names)
    out = jnp.log(s) + m
    return out if keepdims or not pos else jnp.squeeze(out, axis=pos)


def one_hot(x: Any, num_classes: int, *, dtype: Any = jnp.float32, axis: int | str = -1, **kwargs: Any) -> Any:
    """`jax.nn.one_hot`; with a named `axis` the classes are that named axis (`x == axis_index(axis)`)."""
    if not isinstance(axis, str):
        return jax.nn.one_hot(x, num_classes, dtype=dtype, axis=axis, **kwargs)
    size = context.bound_axes().get(axis)
    if size is not None and num_classes != size:
        raise XmapError(
            NC403,
            f"one_hot(..., num_classes={num_classes}, axis={axis!r}): the classes are named "
            f"axis {axis!r}, which has size {size}",
            hint=f"pass num_classes={size}",
        )
    return (jnp.asarray(x)[...] == lax.axis_index(axis)).astype(dtype)


def einsum(spec: str, *operands: Any, **kwargs: Any) -> Any:
    """einsum whose terms may name named axes in braces: `'n{b,k},{k,m}->n{b,m}'`.

    The positional letters are an ordinary einsum per instance; named axes mentioned in inputs but
    not in the output are summed over (psum) afterwards. The spec is validated by the engine.
    """
    if "{" not in spec:
        return jnp.einsum(spec, *operands, **kwargs)
    inputs, out = parse_spec_checked(spec, len(operands))
    ops = [jnp.asarray(o) for o in operands]
    named = [context.named_shape_of(o) for o in ops]
    # Named shapes not observable here (the per-instance trace): the positional part is still checked.
    types = [
        context.engine_type(o, n)
        if n is not None
        else replace(context.engine_type(o, dict.fromkeys(t.names)), named_open=True)
        for o, n, t in zip(ops, named, inputs)
    ]
    try:
        einsum_type(spec, types, [f"operand {i}" for i in range(len(ops))])
    except RuleError as e:
        raise XmapError(e.code, e.message, e.hint) from None
    except Unprovable:
        pass
    positional = ",".join(t.letters.replace(".", "...") for t in inputs)
    if out is not None:
        positional += "->" + out.letters.replace(".", "...")
    result = jnp.einsum(positional, *ops, **kwargs)
    kept = set(out.names) if out is not None else set()
    contracted = tuple(sorted({n for t in inputs for n in t.names} - kept))
    return lax.psum(result, contracted) if contracted else result


def parse_spec_checked(spec: str, n: int) -> Any:
    try:
        return parse_spec(spec, n)
    except RuleError as e:
        raise XmapError(e.code, e.message, e.hint) from None


def pdot(
    x: Any,
    y: Any,
    axis_name: str | Sequence[str],
    *,
    pos_contract: tuple[Sequence[int], Sequence[int]] = ((), ()),
    pos_batch: tuple[Sequence[int], Sequence[int]] = ((), ()),
    precision: Any = None,
) -> Any:
    """Contract the named axis (or axes) `axis_name` of x and y, and positional dims per
    `pos_contract` / `pos_batch` (as `lax.dot_general`)."""
    names = (axis_name,) if isinstance(axis_name, str) else tuple(axis_name)
    dims = cast(lax.DotDimensionNumbers, (tuple(map(tuple, pos_contract)), tuple(map(tuple, pos_batch))))
    local = lax.dot_general(x, y, dims, precision=precision)
    if all(n in context.bound_axes() for n in names):  # names of enclosing xmaps (vmapped)
        return collectives.psum_local_transpose(local, names)
    return lax.psum(local, names)


def pvary(x: Any, axis_name: str | Sequence[str]) -> Any:
    """Mark x as varying over manual mesh axes (`lax.pcast(..., to='varying')` on today's JAX)."""
    names = (axis_name,) if isinstance(axis_name, str) else tuple(axis_name)
    if hasattr(lax, "pcast"):
        return lax.pcast(x, names, to="varying")
    if hasattr(lax, "pvary"):
        return lax.pvary(x, names)
    return x  # a JAX without varying-axis types: every value may vary


_JNP: dict[str, Callable[..., Any]] = {"sum": jnp.sum, "max": jnp.max, "min": jnp.min, "mean": jnp.mean}
_COLLECTIVE: dict[str, Callable[..., Any]] = {"sum": lax.psum, "max": lax.pmax, "min": lax.pmin, "mean": lax.pmean}
