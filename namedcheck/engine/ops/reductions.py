"""Reductions over positional and named axes, and the named-axis collectives."""

from __future__ import annotations

from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.algebra import norm_axis, num_elements
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Unprovable, rule
from namedcheck.engine.ops.elementwise import dtype_from_value
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import ArrayType, Const, Seq, literal, one_or_many

_DTYPE_MODE = {
    "sum": "int", "prod": "int", "mean": "float", "std": "float", "var": "float", "logsumexp": "float",
    "any": "bool", "all": "bool", "argmax": "index", "argmin": "index", "count_nonzero": "index",
    "nansum": "int", "nanmean": "float", "nanmax": "same", "nanmin": "same", "max": "same", "min": "same",
    "amax": "same", "amin": "same", "median": "float", "average": "float", "reduce_sum": "int",
    "reduce_max": "same", "reduce_min": "same", "reduce_prod": "int",
}


def split_axes(axis: Any) -> tuple[list[int], list[str], bool]:
    """An axis argument as (positional axes, names, all positional?) from its literal value."""
    if axis is None:
        return [], [], True
    items = axis if isinstance(axis, tuple) else (axis,)
    pos = [a for a in items if isinstance(a, int) and not isinstance(a, bool)]
    names = [a for a in items if isinstance(a, str)]
    if len(pos) + len(names) != len(items):
        raise Unprovable
    return pos, names, False


def reduced_dtype(code: str | None, mode: str) -> str | None:
    k = dtypes.kind(code)
    if mode == "bool":
        return "bool_"
    if mode == "index":
        return "i32"
    if mode == "float":
        return dtypes.materialize(dtypes.to_inexact(code))
    if mode == "int" and k in ("b", "i", "u") and code is not None:
        return "i32" if k in ("b", "i") or dtypes.is_weak(code) else "u32"
    return dtypes.materialize(code)


def reduce_type(x: ArrayType, axis: Any, keepdims: bool, op: str, mode: str, env: Any = None) -> ArrayType:
    """Reduce `x` over positional axes and names (a name the value lacks is legal: broadcast first)."""
    pos, names, everything = split_axes(axis)
    if env is not None:
        env.check_bound(names, op)
    if dtypes.is_weak(x.dtype_code) and not x.shape and pos:
        raise Unprovable  # numpy accepts axis=0 on Python scalars; jnp does not: not provable either way
    if x.has_ellipsis:
        if pos or everything:
            raise Unprovable
        shape = x.shape
    else:
        nd = len(x.shape)
        axes = set(range(nd)) if everything else set()
        for a in pos:
            n = norm_axis(a, nd, op)
            if n in axes and not everything:
                raise RuleError("NC701", f"Axis {a} is repeated in the axes of {op}")
            axes.add(n)
        if keepdims:
            shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        else:
            shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    named = {n: s for n, s in x.named if n not in names}
    return ArrayType.make(reduced_dtype(x.dtype_code, mode), shape, named)


def _axis_literal(call: Call, *names: str) -> Any:
    for n in names:
        if n in call.args:
            return literal(call.args[n])
    return None


@rule(*[f"jax.numpy.{n}" for n in ("sum", "prod", "mean", "std", "var", "max", "min", "any",
                                   "all", "nansum", "nanmean", "nanmax", "nanmin", "median", "count_nonzero")],
      "jax.nn.logsumexp")
def reduction_rule(call: Call) -> Any:
    if isinstance(call.get("a"), Const) and call.args.get("axis") is not None:
        raise Unprovable  # numpy accepts axis=0 on Python scalars; jnp does not
    x = call.array("a")
    axis = _axis_literal(call, "axis")
    keep = literal(call.get("keepdims", Const(False)))
    short = call.op.rsplit(".", 1)[1]
    out = reduce_type(x, axis, bool(keep), call.short, _DTYPE_MODE.get(short, "same"), call.env)
    dt = call.get("dtype", Const(None))
    if short in ("sum", "prod", "mean") and not (isinstance(dt, Const) and dt.value is None):
        out = out.with_dtype(dtype_from_value(dt))
    return out


@rule("jax.numpy.argmax", "jax.numpy.argmin")
def argminmax_rule(call: Call) -> Any:
    x = call.array("a")
    axis = _axis_literal(call, "axis")
    if axis is not None and not isinstance(axis, int):
        raise Unprovable
    keep = bool(literal(call.get("keepdims", Const(False))))
    return reduce_type(x, axis, keep, call.short, "index")


@rule("jax.lax.reduce_sum", "jax.lax.reduce_max", "jax.lax.reduce_min", "jax.lax.reduce_prod")
def lax_reduce_rule(call: Call) -> Any:
    x = call.array("operand")
    axes = literal(call.get("axes"))
    if not isinstance(axes, tuple):
        raise Unprovable  # JAX's `axes` is a sequence of ints
    return reduce_type(x, one_or_many(axes), False, call.short, _DTYPE_MODE[call.op.rsplit(".", 1)[1]])


@rule("jax.numpy.cumsum", "jax.numpy.cumprod")
def cumulative_rule(call: Call) -> Any:
    """Cumulative reductions keep the shape; axis=None flattens first."""
    x = call.array("a")
    axis = _axis_literal(call, "axis")
    if x.has_ellipsis or not (axis is None or isinstance(axis, int)):
        raise Unprovable
    shape = (num_elements(x.shape),) if axis is None else x.shape
    if axis is not None:
        norm_axis(axis, len(x.shape), call.short)
    return ArrayType.make(reduced_dtype(x.dtype_code, "int"), shape, x.named_shape)


@rule("jax.lax.cumsum", "jax.lax.cumprod", "jax.lax.cummax", "jax.lax.cummin", "jax.lax.cumlogsumexp")
def lax_cumulative_rule(call: Call) -> Any:
    """lax's cumulative reductions keep the shape (a negative axis is left to JAX)."""
    x = call.array("operand")
    axis = literal(call.get("axis", Const(0)))
    if not isinstance(axis, int) or axis < 0:
        raise Unprovable
    if not x.has_ellipsis:
        norm_axis(axis, len(x.shape), call.short)
    return x


@rule("jax.lax.sort")
def lax_sort_rule(call: Call) -> Any:
    """lax.sort of one array keeps its shape; a sequence of operands of one shape (sorted together by the
    first `num_keys`) gives a tuple of the same arrays' types."""
    ops = call.args.get("operand")
    if isinstance(ops, Seq):
        items = [as_array(i) for i in ops.items]
        if not items or not all(isinstance(i, ArrayType) and not i.has_ellipsis for i in items) or \
                len({i.shape for i in items}) != 1:
            raise Unprovable
        norm_axis(literal(call.get("dimension", Const(-1))), len(items[0].shape), call.short)
        return Seq(tuple(items), "tuple")
    x = call.array("operand")
    if not x.has_ellipsis:
        norm_axis(literal(call.get("dimension", Const(-1))), len(x.shape), call.short)
    return x


@rule("jax.numpy.linalg.norm")
def norm_rule(call: Call) -> Any:
    """Vector / matrix norms: a float reduction over `axis` (None: every positional axis)."""
    if not (isinstance(call.get("ord", Const(None)), Const)):
        raise Unprovable
    x = call.array("x")
    axis = _axis_literal(call, "axis")
    keep = bool(literal(call.get("keepdims", Const(False))))
    if isinstance(axis, tuple) and len(axis) > 2 or isinstance(axis, str):
        raise Unprovable
    return reduce_type(x, axis, keep, call.short, "float", call.env)


@rule("jax.numpy.argsort")
def argsort_rule(call: Call) -> Any:
    x = call.array("a")
    axis = literal(call.get("axis", Const(-1)))
    if axis is None:
        return ArrayType.make("i32", (num_elements(x.shape),), x.named_shape)
    if not x.has_ellipsis:
        norm_axis(axis, len(x.shape), call.short)
    return x.with_dtype("i32")


@rule("jax.numpy.sort", "jax.numpy.flip", "jax.numpy.roll")
def same_shape_along_axis_rule(call: Call) -> Any:
    """Ops that keep the shape and check an axis argument (axis=None: sort flattens, flip/roll keep)."""
    x = call.array("a")
    default = Const(-1) if call.op.endswith("sort") else Const(None)
    axis = literal(call.get("axis", default))
    if axis is None:
        if call.op.endswith("sort"):
            return x.with_shape((num_elements(x.shape),))
        return x
    for a in one_or_many(axis):
        if not x.has_ellipsis:
            norm_axis(a, len(x.shape), call.short)
    return x
