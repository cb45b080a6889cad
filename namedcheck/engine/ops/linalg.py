"""Contractions: dot, matmul (@), tensordot, vdot, inner, outer."""

from __future__ import annotations

from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.algebra import broadcast_shapes, differ, fmt_shape, num_elements, union_named
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Unprovable, rule
from namedcheck.engine.values import ArrayType, Const, literal, one_or_many


def _operands(call: Call, a: str = "a", b: str = "b") -> tuple[ArrayType, ArrayType, str | None, dict[str, Any]]:
    x, y = call.array(a), call.array(b)
    if x.has_ellipsis or y.has_ellipsis:
        raise Unprovable
    named = union_named([x, y], [call.label(a), call.label(b)])
    dt = dtypes.promote(x.dtype_code, y.dtype_code)
    return x, y, dtypes.materialize(dt), named


def contract(call: Call, x: ArrayType, i: int, y: ArrayType, j: int, a: str = "a", b: str = "b",
             shown: tuple[ArrayType, ArrayType] | None = None) -> None:
    """Dimension i of x and j of y are contracted: their sizes must be equal (NC203).
    `shown`: the operands as the user wrote them (matmul promotes 1-d operands)."""
    dx, dy = x.shape[i], y.shape[j]
    if differ(dx, dy):
        sx, sy = shown or (x, y)
        ix = i % len(x.shape) - (len(x.shape) - len(sx.shape))
        iy = j % len(y.shape)
        raise RuleError(
            "NC203",
            f"{call.short} contracts dimension {max(ix, 0)} of {call.label(a)} (size {dx}, shape "
            f"{fmt_shape(sx.shape)}) with dimension {min(iy, max(len(sy.shape) - 1, 0))} of {call.label(b)} "
            f"(size {dy}, shape {fmt_shape(sy.shape)}); the sizes must be equal",
            hint="transpose one operand, or check which axis should be contracted")


@rule("jax.numpy.dot")
def dot_rule(call: Call) -> Any:
    x, y, dt, named = _operands(call)
    if not x.shape or not y.shape:
        shape = broadcast_shapes(x.shape, y.shape, call.label("a"), call.label("b"))
    elif len(y.shape) == 1:
        contract(call, x, -1, y, 0)
        shape = x.shape[:-1]
    else:
        contract(call, x, -1, y, -2)
        shape = x.shape[:-1] + y.shape[:-2] + y.shape[-1:]
    return ArrayType.make(dt, shape, named)


@rule("jax.numpy.matmul")
def matmul_rule(call: Call) -> Any:
    x, y, dt, named = _operands(call)
    if not x.shape or not y.shape:
        raise RuleError("NC203", f"{call.short} needs operands with at least one positional dimension; "
                                 f"found shapes {fmt_shape(x.shape)} and {fmt_shape(y.shape)}",
                        hint="use * for scalar multiplication")
    xs = ((1,) + x.shape) if len(x.shape) == 1 else x.shape
    ys = (y.shape + (1,)) if len(y.shape) == 1 else y.shape
    contract(call, x.with_shape(xs), -1, y.with_shape(ys), -2, shown=(x, y))
    batch = broadcast_shapes(xs[:-2], ys[:-2], call.label("a"), call.label("b"))
    shape = batch + (xs[-2:-1] if len(x.shape) > 1 else ()) + (ys[-1:] if len(y.shape) > 1 else ())
    return ArrayType.make(dt, shape, named)


@rule("jax.numpy.tensordot")
def tensordot_rule(call: Call) -> Any:
    x, y, dt, named = _operands(call)
    axes = literal(call.get("axes", Const(2)))
    if isinstance(axes, int):
        if axes > min(len(x.shape), len(y.shape)) or axes < 0:
            raise RuleError("NC701", f"{call.short} with axes={axes} needs operands of rank >= {axes}; found "
                                     f"{fmt_shape(x.shape)} and {fmt_shape(y.shape)}")
        ax = list(range(len(x.shape) - axes, len(x.shape)))
        ay = list(range(axes))
    else:
        if not (isinstance(axes, tuple) and len(axes) == 2):
            raise Unprovable  # an int or a pair of axis sequences
        ax, ay = (list(one_or_many(a)) for a in axes)
        if len(ax) != len(ay):
            raise RuleError("NC203", f"{call.short} axes {axes!r} pair {len(ax)} axes with {len(ay)}")
        from namedcheck.engine.algebra import norm_axis
        ax = [norm_axis(a, len(x.shape), call.short) for a in ax]
        ay = [norm_axis(a, len(y.shape), call.short) for a in ay]
    for i, j in zip(ax, ay):
        contract(call, x, i, y, j)
    shape = tuple(d for i, d in enumerate(x.shape) if i not in ax) + tuple(d for j, d in enumerate(y.shape) if j not in ay)
    return ArrayType.make(dt, shape, named)


@rule("jax.numpy.vdot")
def vdot_rule(call: Call) -> Any:
    x, y, dt, named = _operands(call)
    nx, ny = num_elements(x.shape), num_elements(y.shape)
    if nx is not None and ny is not None and nx != ny:
        raise RuleError("NC203", f"{call.short} flattens both operands; {call.label('a')} has {nx} elements and "
                                 f"{call.label('b')} has {ny}")
    return ArrayType.make(dt, (), named)


@rule("jax.numpy.inner")
def inner_rule(call: Call) -> Any:
    x, y, dt, named = _operands(call)
    if not x.shape or not y.shape:
        return ArrayType.make(dt, x.shape + y.shape, named)
    contract(call, x, -1, y, -1)
    return ArrayType.make(dt, x.shape[:-1] + y.shape[:-1], named)


@rule("jax.numpy.outer")
def outer_rule(call: Call) -> Any:
    x, y, dt, named = _operands(call)
    return ArrayType.make(dt, (num_elements(x.shape), num_elements(y.shape)), named)


def _dim_pair(v: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """`pos_contract` / `pos_batch`: a pair of dimension sequences (another shape is not modelled)."""
    if not (isinstance(v, tuple) and len(v) == 2):
        raise Unprovable
    return one_or_many(v[0]), one_or_many(v[1])


@rule("jax.lax.pdot")
def pdot_rule(call: Call) -> Any:
    """Contract named axes (and optionally positional ones, as in dot_general) of two operands."""
    x, y, dt, _ = _operands(call, "x", "y")
    names = literal(call.get("axis_name"))
    names = names if isinstance(names, tuple) else (names,)
    if any(not isinstance(n, str) for n in names):
        raise Unprovable
    xn, yn = x.named_shape, y.named_shape
    for n in names:
        if n in xn and n in yn and differ(xn[n], yn[n]):
            raise RuleError("NC202", f"{call.short} contracts named axis {n!r} of size {xn[n]} in "
                                     f"{call.label('x')} with size {yn[n]} in {call.label('y')}")
    (cx, cy), (bx, by) = (_dim_pair(literal(call.get(p, Const(((), ()))))) for p in ("pos_contract", "pos_batch"))
    if not all(-len(x.shape) <= i < len(x.shape) for i in cx + bx) or \
            not all(-len(y.shape) <= j < len(y.shape) for j in cy + by):
        raise Unprovable  # dimensions out of range: JAX raises
    for i, j in zip(cx, cy):
        contract(call, x, i, y, j, "x", "y")
    free_x = [d for i, d in enumerate(x.shape) if i not in cx and i not in bx]
    free_y = [d for j, d in enumerate(y.shape) if j not in cy and j not in by]
    shape = tuple(x.shape[i] for i in bx) + tuple(free_x) + tuple(free_y)
    rest_x = ArrayType.make(None, (), {n: s for n, s in xn.items() if n not in names})
    rest_y = ArrayType.make(None, (), {n: s for n, s in yn.items() if n not in names})
    named = union_named([rest_x, rest_y], [call.label("x"), call.label("y")])
    return ArrayType.make(dt, shape, named)
