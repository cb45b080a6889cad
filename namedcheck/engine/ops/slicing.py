"""Dynamic slicing (`lax.dynamic_slice` and friends): the slice sizes are static, the starts are
not. Indices of any value are accepted; the rank and sizes are what can be proven wrong.
Their sharding rules over Explicit mesh axes (`@sharding_rule`) follow the shape rules."""

from __future__ import annotations

from typing import Any

from namedcheck.engine import dtypes, symbolic
from namedcheck.engine.algebra import fmt_shape, is_int, norm_axis
from namedcheck.engine.codes import NC203, NC304, NC801
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Shd, Unprovable, rule, sharding_rule
from namedcheck.engine.ops.shaping import positional, shape_arg
from namedcheck.engine.ops.sharding_common import check_divisible_out, fmt_spec, known_sharding
from namedcheck.engine.placement import fmt_type
from namedcheck.engine.values import ArrayType, Const, Seq, literal


def _fits(call: Call, x: ArrayType, sizes: tuple[Any, ...], what: str) -> None:
    for i, (s, d) in enumerate(zip(sizes, x.shape)):
        if is_int(s) and s < 0:
            raise RuleError(NC203, f"{call.short}: negative {what} size {s} for dimension {i}")
        if symbolic.exceeds(s, d):
            raise RuleError(
                NC203,
                f"{call.short}: {what} size {s} exceeds dimension {i} of size {d} of the operand {fmt_shape(x.shape)}",
                hint="a dynamic slice cannot be larger than the array it slices",
            )


def _rank(call: Call, x: ArrayType, n: int, what: str) -> None:
    if n != len(x.shape):
        raise RuleError(
            NC203,
            f"{call.short}: {n} {what} for an operand of rank {len(x.shape)} {fmt_shape(x.shape)}",
            hint="give one entry per dimension of the operand",
        )


def _check_starts(call: Call, x: ArrayType) -> None:
    """One start index per dimension of the operand (when their number is known)."""
    try:
        _rank(call, x, _count(call.get("start_indices")), "start indices")
    except Unprovable:
        pass


def _count(v: Any) -> int:
    if isinstance(v, Seq):
        return len(v.items)
    if isinstance(v, ArrayType) and len(v.shape) == 1 and is_int(v.shape[0]):
        return v.shape[0]
    raise Unprovable


@rule("jax.lax.dynamic_slice")
def dynamic_slice_rule(call: Call) -> Any:
    x = positional(call, "operand")
    sizes = shape_arg(call.get("slice_sizes"), unknown_items=True)
    _rank(call, x, len(sizes), "slice sizes")
    _check_starts(call, x)
    _fits(call, x, sizes, "slice")
    return x.with_shape(sizes)


@rule("jax.lax.dynamic_slice_in_dim")
def dynamic_slice_in_dim_rule(call: Call) -> Any:
    x = positional(call, "operand")
    i = norm_axis(literal(call.get("axis", Const(0))), len(x.shape), call.short)
    sizes = shape_arg(call.get("slice_size"))
    if len(sizes) != 1:
        raise Unprovable  # one size
    size = sizes[0]
    shape = x.shape[:i] + (size,) + x.shape[i + 1 :]
    _fits(call, x, shape, "slice")
    return x.with_shape(shape)


@rule("jax.lax.dynamic_index_in_dim")
def dynamic_index_in_dim_rule(call: Call) -> Any:
    x = positional(call, "operand")
    i = norm_axis(literal(call.get("axis", Const(0))), len(x.shape), call.short)
    keep = literal(call.get("keepdims", Const(True)))
    return x.with_shape(x.shape[:i] + ((1,) if keep else ()) + x.shape[i + 1 :])


def _update(call: Call, x: ArrayType, axis: int | None = None) -> ArrayType:
    """The update checked against the operand; `axis`: an index update, whose update may lack that dim."""
    u = call.array("update")
    if u.has_ellipsis:
        raise Unprovable
    if axis is not None and len(u.shape) == len(x.shape) - 1:  # JAX expands it at `axis`
        u = u.with_shape(u.shape[:axis] + (1,) + u.shape[axis:])
    if len(u.shape) != len(x.shape):
        raise RuleError(
            NC203,
            f"{call.short}: the update has rank {len(u.shape)} {fmt_shape(u.shape)} but the "
            f"operand has rank {len(x.shape)} {fmt_shape(x.shape)}",
            hint="the update must have the operand's rank (expand_dims it)",
        )
    _fits(call, x, u.shape, "update")
    if u.dtype_code and x.dtype_code and not u.weak and dtypes.definitely_different(u.dtype_code, x.dtype_code):
        raise RuleError(
            NC304,
            f"{call.short}: the update has dtype {u.dtype} but the operand {x.dtype}",
            hint="cast the update with .astype(operand.dtype)",
        )
    return u


@rule("jax.lax.dynamic_update_slice")
def dynamic_update_slice_rule(call: Call) -> Any:
    x = positional(call, "operand")
    _update(call, x)
    _check_starts(call, x)
    return x


@rule("jax.lax.dynamic_update_slice_in_dim", "jax.lax.dynamic_update_index_in_dim")
def dynamic_update_in_dim_rule(call: Call) -> Any:
    x = positional(call, "operand")
    i = norm_axis(literal(call.get("axis")), len(x.shape), call.short)
    # an update of the operand's rank is written as a slice, whatever its size along `axis` (JAX checks only
    # that it fits): `dynamic_update_index_in_dim` expands an update of one rank less
    _update(call, x, i if call.op.endswith("index_in_dim") else None)
    return x


# ---- sharding over Explicit mesh axes (JAX's sharding rules: the result's sharding, NC8xx) ----------------


@sharding_rule("jax.lax.dynamic_slice", "jax.lax.dynamic_slice_in_dim")
def lax_slice_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A (dynamic) slice keeps the operand's sharding: a sharded dim's new length must stay divisible (NC822)."""
    x, s = known_sharding(call, "operand")
    if len(result.shape) != len(s):
        raise Unprovable
    check_divisible_out(call, x, s, result.shape, "slices")
    return s


@sharding_rule("jax.lax.dynamic_index_in_dim")
def lax_index_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A dynamic slice of length 1 along `axis` (dropped without keepdims): that dim must be unsharded."""
    x, s = known_sharding(call, "operand")
    i = norm_axis(literal(call.get("axis", Const(0))), len(s), call.short)
    check_divisible_out(call, x, s, x.shape[:i] + (1,) + x.shape[i + 1 :], "indexes")
    return s if literal(call.get("keepdims", Const(True))) else s[:i] + s[i + 1 :]


@sharding_rule(
    "jax.lax.dynamic_update_slice", "jax.lax.dynamic_update_slice_in_dim", "jax.lax.dynamic_update_index_in_dim"
)
def lax_update_sharding(call: Call, result: ArrayType) -> Shd | None:
    """dynamic_update_slice needs the update sharded exactly like the operand (NC801); the result keeps it.
    dynamic_update_index_in_dim first gives a one-rank-lower update an unsharded size-1 dim at `axis`."""
    x, s = known_sharding(call, "operand")
    u, su = known_sharding(call, "update")
    if call.op.endswith("index_in_dim") and len(su) == len(s) - 1:
        i = norm_axis(literal(call.get("axis")), len(s), call.short)
        su = su[:i] + ((),) + su[i:]
    if len(su) != len(s):
        raise Unprovable
    if su != s:
        raise RuleError(
            NC801,
            f"{call.short}: the update {call.label('update')} ({fmt_type(u)}) must be sharded "
            f"like the operand {call.label('operand')} ({fmt_type(x)})",
            hint=f"jax.sharding.reshard the update to {fmt_spec(s)} first",
        )
    return s
