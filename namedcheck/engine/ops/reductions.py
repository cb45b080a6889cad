"""Reductions over positional and named axes, and the named-axis collectives.
Their sharding rules over Explicit mesh axes (`@sharding_rule`) follow the shape rules."""

from __future__ import annotations

import math
from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.algebra import all_int, is_int, norm_axis, product
from namedcheck.engine.codes import NC701, NC801, NC821
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Shd, Unprovable, rule, sharding_rule
from namedcheck.engine.ops.elementwise import dtype_from_value
from namedcheck.engine.ops.sharding_common import (
    check_divisible_out,
    check_unsharded_along,
    first_arg,
    fmt_spec,
    known_operand,
    known_sharding,
    literal_arg,
)
from namedcheck.engine.placement import fmt_type, of
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import ArrayType, Const, Seq, literal, one_or_many

_DTYPE_MODE = {
    "sum": "int",
    "prod": "int",
    "mean": "float",
    "std": "float",
    "var": "float",
    "logsumexp": "float",
    "any": "bool",
    "all": "bool",
    "argmax": "index",
    "argmin": "index",
    "count_nonzero": "index",
    "nansum": "int",
    "nanmean": "float",
    "nanmax": "same",
    "nanmin": "same",
    "max": "same",
    "min": "same",
    "amax": "same",
    "amin": "same",
    "median": "float",
    "average": "float",
    "reduce_sum": "int",
    "reduce_max": "same",
    "reduce_min": "same",
    "reduce_prod": "int",
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


def no_repeats(axes: list[int], op: str) -> None:
    """Literal axes written twice (`axis=(-1, -1)`): JAX rejects them whatever the rank is (NC701)."""
    if len(set(axes)) != len(axes):
        raise RuleError(NC701, f"Axis {next(a for a in axes if axes.count(a) > 1)} is repeated in the axes of {op}")


def reduce_type(x: ArrayType, axis: Any, keepdims: bool, op: str, mode: str, env: Any = None) -> ArrayType:
    """Reduce `x` over positional axes and names (a name the value lacks is legal: broadcast first)."""
    pos, names, everything = split_axes(axis)
    if env is not None:
        env.check_bound(names, op)
    if dtypes.is_weak(x.dtype_code) and not x.shape and pos:
        raise Unprovable  # numpy accepts axis=0 on Python scalars; jnp does not: not provable either way
    no_repeats(pos, op)
    suffix = x.shape[1:] if x.shape[:1] == (...,) else None
    if x.has_ellipsis and suffix is not None and pos and all(-len(suffix) <= a < 0 for a in pos):
        # `(..., T, C)` over axis -1: the known trailing dims are what the axis counts from
        gone = {len(suffix) + a for a in pos}
        kept = tuple(1 if i in gone else d for i, d in enumerate(suffix) if keepdims or i not in gone)
        shape = (..., *kept)
    elif x.has_ellipsis:
        if pos or everything:
            raise Unprovable
        shape = x.shape
    else:
        nd = len(x.shape)
        axes = set(range(nd)) if everything else set()
        for a in pos:
            n = norm_axis(a, nd, op)
            if n in axes and not everything:
                raise RuleError(NC701, f"Axis {a} is repeated in the axes of {op}")
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


@rule(
    *[
        f"jax.numpy.{n}"
        for n in (
            "sum",
            "prod",
            "mean",
            "std",
            "var",
            "max",
            "min",
            "any",
            "all",
            "nansum",
            "nanmean",
            "nanmax",
            "nanmin",
            "median",
            "count_nonzero",
        )
    ],
    "jax.nn.logsumexp",
)
def reduction_rule(call: Call) -> Any:
    if isinstance(call.get("a"), Const) and call.args.get("axis") is not None:
        raise Unprovable  # numpy accepts axis=0 on Python scalars; jnp does not
    axis = _axis_literal(call, "axis")
    no_repeats(split_axes(axis)[0], call.short)  # whatever the operand is
    x = call.array("a")
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
    shape = (product(x.shape),) if axis is None else x.shape
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
        if (
            not items
            or not all(isinstance(i, ArrayType) and not i.has_ellipsis for i in items)
            or len({i.shape for i in items}) != 1
        ):
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
        return ArrayType.make("i32", (product(x.shape),), x.named_shape)
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
            return x.with_shape((product(x.shape),))
        return x
    for a in one_or_many(axis):
        if not x.has_ellipsis:
            norm_axis(a, len(x.shape), call.short)
    return x


# ---- sharding over Explicit mesh axes (JAX's sharding rules: the result's sharding, NC8xx) ----------------
# A cumulative reduction, sort or top_k along a sharded dimension is rejected (NC821; jax/_src/lax/control_flow/
# loops.py `_cumred_sharding_rule`, lax.py `_sort_abstract_eval`); reduced dims drop their mesh axes.


@sharding_rule(
    *[f"jax.numpy.{n}" for n in ("sum", "prod", "mean", "std", "var", "max", "min", "any", "all", "argmax", "argmin")]
)
def reduce_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Reduced dims drop their mesh axes (kept as unsharded size-1 dims under keepdims)."""
    s = of(call.array("a"))
    if s is None:
        return None
    axis = literal(call.get("axis", Const(None)))
    keep = bool(literal(call.get("keepdims", Const(False))))
    if axis is None:
        axes = set(range(len(s)))
    else:
        axes = {norm_axis(a, len(s), call.short) for a in (axis if isinstance(axis, tuple) else (axis,))}
    return tuple(() if i in axes else e for i, e in enumerate(s) if keep or i not in axes)


def _replicated(call: Call, x: ArrayType, s: Shd, what: str) -> None:
    """NC821: an op over the flattened array (axis=None) needs a fully replicated operand."""
    if any(s):
        raise RuleError(
            NC821,
            f"{call.short} with axis=None {what} {call.label(first_arg(call))} flattened, which is "
            f"sharded ({fmt_type(x)}): the operand must be fully replicated",
            hint=f"pass axis= (an unsharded dimension), or reshard the operand to {fmt_spec(((),) * len(s))} first",
        )


@sharding_rule(
    "jax.numpy.cumsum",
    "jax.numpy.cumprod",
    "jax.lax.cumsum",
    "jax.lax.cumprod",
    "jax.lax.cummax",
    "jax.lax.cummin",
    "jax.lax.cumlogsumexp",
)
def cumulative_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A cumulative reduction keeps its operand's sharding; the accumulated dimension must be unsharded
    (jnp's axis=None flattens a fully replicated operand)."""
    x, s = known_operand(call)
    lax = call.op.startswith("jax.lax.")
    axis = literal_arg(call, "axis", 0 if lax else None)
    if axis is None:
        _replicated(call, x, s, "accumulates")
        return ((),)
    i = norm_axis(axis, len(s), call.short)
    check_unsharded_along(call, x, s, i, "accumulates along")
    return s


@sharding_rule("jax.numpy.sort", "jax.numpy.argsort", "jax.lax.sort")
def sort_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Sorting keeps the operand's sharding; the sorted dimension must be unsharded."""
    if call.op == "jax.lax.sort" and isinstance(call.args.get("operand"), Seq):
        return _sort_together(call)
    x, s = known_operand(call)
    if call.op == "jax.lax.sort":
        if literal(call.get("num_keys", Const(1))) != 1:
            raise Unprovable
        axis = literal_arg(call, "dimension", -1)
    else:
        axis = literal_arg(call, "axis", -1)
    if axis is None:
        _replicated(call, x, s, "sorts")
        return ((),)
    i = norm_axis(axis, len(s), call.short)
    check_unsharded_along(call, x, s, i, "sorts along")
    return s


def _sort_together(call: Call) -> Shd:
    """lax.sort of several operands: JAX needs them equally sharded (NC801) and each unsharded along the
    sorted dimension (NC821); the results keep that sharding."""
    items = [as_array(i) for i in call.args["operand"].items]
    shds = [of(i) if isinstance(i, ArrayType) else None for i in items]
    if not shds or any(s is None for s in shds):
        raise Unprovable
    first, s = items[0], shds[0]
    assert s is not None
    for j, other in enumerate(shds[1:], 1):
        if other != s:
            raise RuleError(
                NC801,
                f"{call.short} got operands of different shardings: operand 0 is "
                f"{fmt_type(first)} and operand {j} {fmt_type(items[j])}; JAX sorts only "
                f"equally sharded operands together",
                hint=f"jax.sharding.reshard operand {j} to {fmt_spec(s)} first",
            )
    i = norm_axis(literal_arg(call, "dimension", -1), len(s), call.short)
    check_unsharded_along(call, first, s, i, "sorts along")
    return s


@sharding_rule("jax.lax.reduce_sum", "jax.lax.reduce_max", "jax.lax.reduce_min", "jax.lax.reduce_prod")
def lax_reduce_sharding(call: Call, result: ArrayType) -> Shd | None:
    """lax.reduce_*: the reduced dims drop out with their mesh axes."""
    _, s = known_operand(call)
    axes = {norm_axis(a, len(s), call.short) for a in literal(call.get("axes"))}
    return tuple(e for i, e in enumerate(s) if i not in axes)


@sharding_rule(
    "jax.numpy.nansum",
    "jax.numpy.nanmean",
    "jax.numpy.nanmax",
    "jax.numpy.nanmin",
    "jax.numpy.count_nonzero",
    "jax.nn.logsumexp",
)
def more_reductions_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Reductions built from reduce_* (logsumexp: with a max and a sum broadcast back) drop the reduced
    dims' mesh axes, as jnp.sum does."""
    if any(k in call.args for k in ("where", "b", "initial")) or literal(call.get("return_sign", Const(False))):
        raise Unprovable
    return reduce_sharding(call, result)


@sharding_rule("jax.numpy.median")
def median_sharding(call: Call, result: ArrayType) -> Shd | None:
    """jnp.median sorts along its axis (NC821 when sharded; axis=None flattens: replicated only), then
    drops it."""
    x, s = known_operand(call)
    axis = literal_arg(call, "axis", None)
    if axis is None:
        _replicated(call, x, s, "sorts")
    elif isinstance(axis, int):
        check_unsharded_along(call, x, s, norm_axis(axis, len(s), call.short), "sorts along")
    else:
        raise Unprovable
    return reduce_sharding(call, result)


@sharding_rule("jax.numpy.linalg.norm")
def norm_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A vector norm (an int axis, default ord) reduces that axis away."""
    _, s = known_operand(call)
    axis = literal_arg(call, "axis", None)
    if literal(call.get("ord", Const(None))) is not None or not isinstance(axis, int):
        raise Unprovable
    i = norm_axis(axis, len(s), call.short)
    keep = bool(literal(call.get("keepdims", Const(False))))
    return tuple(() if j == i else e for j, e in enumerate(s) if keep or j != i)


@sharding_rule("jax.numpy.flip")
def keep_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Reversal (lax.rev) and triangular masks keep the operand's sharding."""
    return known_sharding(call, "m" if "m" in call.args else "a")[1]


@sharding_rule("jax.numpy.roll")
def roll_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Rolling by `shift` along an axis concatenates two slices of lengths shift and n - shift (mod n):
    along a sharded dim both must stay divisible by its mesh axes (NC822). axis=None rolls the array
    flattened (a reshape to one dim and back): known where at most the leading dim is sharded."""
    x, s = known_sharding(call, "a")
    axis, shift = literal(call.get("axis", Const(None))), literal(call.get("shift"))
    if axis is None and is_int(shift) and not any(s[1:]):
        n = math.prod(x.shape) if all_int(x.shape) else None
        if s and s[0] and n:
            flat = x.with_shape((n,)).with_sharding(s[:1])
            k = shift % n
            if k:
                for part in (k, n - k):
                    check_divisible_out(
                        call,
                        flat,
                        s[:1],
                        (part,),
                        f"rolls by {shift}: it slices",
                        note=" (axis=None rolls the array flattened)",
                    )
        elif s and s[0]:
            raise Unprovable
        return s
    if not (is_int(axis) and is_int(shift)):
        raise Unprovable
    i = norm_axis(axis, len(s), call.short)
    n = x.shape[i]  # type: ignore[assignment]  # any dim here: is_int below
    if not is_int(n):
        raise Unprovable
    k = shift % n if n else 0
    if k and s[i]:
        for part in (k, n - k):
            check_divisible_out(call, x, s, x.shape[:i] + (part,) + x.shape[i + 1 :], f"rolls by {shift}: it slices")
    return s
