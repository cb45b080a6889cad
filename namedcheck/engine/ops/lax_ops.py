"""jax.lax's structural ops that real code calls most after the jnp ones (measured over the
maxtext, easydel, levanter, flax, equinox and praxis sources): dot_general, top_k, select,
broadcast_in_dim, broadcast, broadcasted_iota, iota, slice_in_dim, convert_element_type,
and jnp.unstack. Unlike jnp, lax does not broadcast: operands must agree exactly.
Their sharding rules over Explicit mesh axes (`@sharding_rule`) follow the shape rules."""

from __future__ import annotations

from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.algebra import differ, fmt_shape, is_int, maybe_one, norm_axis, union_named
from namedcheck.engine.codes import NC203, NC701, NC801, NC803
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Shd, Unprovable, rule, sharding_rule
from namedcheck.engine.ops.elementwise import dtype_from_value
from namedcheck.engine.ops.linalg import contract, contract_sharding
from namedcheck.engine.ops.shaping import positional, shape_arg
from namedcheck.engine.ops.sharding_common import (
    axes_desc,
    check_unsharded_along,
    fmt_spec,
    has_out_sharding,
    known_operand,
    known_sharding,
    literal_arg,
    out_sharding,
)
from namedcheck.engine.ops.slicing import lax_slice_sharding
from namedcheck.engine.placement import fmt_type, of
from namedcheck.engine.values import ArrayType, Const, Seq, literal, one_or_many


def _ints(v: Any) -> tuple[int, ...]:
    t = literal(v)
    t = t if isinstance(t, tuple) else (t,)
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in t):
        raise Unprovable
    return t


@rule("jax.lax.dot_general")
def dot_general_rule(call: Call) -> Any:
    """Batch dims, then lhs free dims, then rhs free dims; contracting and batch sizes must agree."""
    x, y = positional(call, "lhs"), positional(call, "rhs")
    dn = literal(call.get("dimension_numbers"))
    if not (isinstance(dn, tuple) and len(dn) == 2 and all(isinstance(p, tuple) and len(p) == 2 for p in dn)):
        raise Unprovable  # not ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))
    (lc, rc), (lb, rb) = dn
    lc, rc, lb, rb = (one_or_many(v) for v in (lc, rc, lb, rb))
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise RuleError(
            NC203,
            f"{call.short} pairs {len(lc)} contracting / {len(lb)} batch dimensions of the lhs "
            f"with {len(rc)} / {len(rb)} of the rhs",
        )
    lc = tuple(norm_axis(i, len(x.shape), call.short) for i in lc)
    rc = tuple(norm_axis(i, len(y.shape), call.short) for i in rc)
    lb = tuple(norm_axis(i, len(x.shape), call.short) for i in lb)
    rb = tuple(norm_axis(i, len(y.shape), call.short) for i in rb)
    for i, j in zip(lc, rc):
        contract(call, x, i, y, j, "lhs", "rhs")
    for i, j in zip(lb, rb):
        if differ(x.shape[i], y.shape[j]):
            raise RuleError(
                NC203,
                f"{call.short} batch dimension {i} of {call.label('lhs')} has size {x.shape[i]} "
                f"but batch dimension {j} of {call.label('rhs')} has size {y.shape[j]} "
                f"(shapes {fmt_shape(x.shape)} and {fmt_shape(y.shape)})",
            )
    free_x = [d for i, d in enumerate(x.shape) if i not in lc and i not in lb]
    free_y = [d for i, d in enumerate(y.shape) if i not in rc and i not in rb]
    shape = tuple(x.shape[i] for i in lb) + tuple(free_x) + tuple(free_y)
    named = union_named([x, y], [call.label("lhs"), call.label("rhs")])
    pref = call.args.get("preferred_element_type")
    dt = (
        dtype_from_value(pref)
        if pref is not None and not (isinstance(pref, Const) and pref.value is None)
        else dtypes.materialize(dtypes.promote(x.dtype_code, y.dtype_code))
    )
    return ArrayType.make(dt, shape, named)


@rule("jax.lax.top_k")
def top_k_rule(call: Call) -> Any:
    """(values, indices), both with dimension `axis` (default: the last) replaced by k."""
    x = positional(call, "operand")
    k = literal(call.get("k"))
    if not x.shape or not isinstance(k, int):
        raise Unprovable
    i = norm_axis(literal(call.get("axis", Const(-1))), len(x.shape), call.short)
    if is_int(x.shape[i]) and k > x.shape[i]:  # type: ignore[operator]  # is_int(x.shape[i])
        raise RuleError(
            NC203, f"{call.short}: k={k} is larger than dimension {i} of size {x.shape[i]} ({fmt_shape(x.shape)})"
        )
    shape = x.shape[:i] + (k,) + x.shape[i + 1 :]
    return Seq((x.with_shape(shape), ArrayType.make("i32", shape, dict(x.named))))


@rule("jax.lax.select")
def select_rule(call: Call) -> Any:
    """lax.select does not broadcast: the branches have one shape, the predicate that shape or ()."""
    p, a, b = call.array("pred"), positional(call, "on_true"), positional(call, "on_false")
    if differ_shapes(a.shape, b.shape):
        raise RuleError(
            NC203,
            f"{call.short} needs branches of one shape; {call.label('on_true')} is "
            f"{fmt_shape(a.shape)} and {call.label('on_false')} is {fmt_shape(b.shape)}",
            hint="lax.select does not broadcast: use jnp.where, or broadcast explicitly",
        )
    if not p.has_ellipsis and p.shape and differ_shapes(p.shape, a.shape):
        raise RuleError(
            NC203,
            f"{call.short} needs a predicate of shape () or {fmt_shape(a.shape)}; "
            f"{call.label('pred')} is {fmt_shape(p.shape)}",
        )
    return a.with_named(union_named([p, a, b]))


def differ_shapes(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return len(a) != len(b) or any(differ(x, y) for x, y in zip(a, b))


@rule("jax.lax.broadcast_in_dim")
def broadcast_in_dim_rule(call: Call) -> Any:
    x = positional(call, "operand")
    shape = shape_arg(call.get("shape"), unknown_items=True)
    dims = _ints(call.get("broadcast_dimensions"))
    if len(dims) != len(x.shape):
        raise RuleError(
            NC203,
            f"{call.short}: broadcast_dimensions {dims!r} has {len(dims)} entries for an "
            f"operand of rank {len(x.shape)} {fmt_shape(x.shape)}",
        )
    for i, d in enumerate(dims):
        if not 0 <= d < len(shape):
            raise RuleError(
                NC701, f"{call.short}: broadcast dimension {d} is out of range for shape {fmt_shape(shape)}"
            )
        if not maybe_one(x.shape[i]) and differ(x.shape[i], shape[d]):
            raise RuleError(
                NC203,
                f"{call.short}: operand dimension {i} of size {x.shape[i]} cannot broadcast "
                f"to dimension {d} of size {shape[d]} of {fmt_shape(shape)}",
            )
    return x.with_shape(shape)


@rule("jax.lax.broadcast")
def broadcast_rule(call: Call) -> Any:
    x = positional(call, "operand")
    return x.with_shape(shape_arg(call.get("sizes"), unknown_items=True) + x.shape)


@rule("jax.lax.broadcasted_iota")
def broadcasted_iota_rule(call: Call) -> Any:
    code = dtype_from_value(call.get("dtype"))
    shape = shape_arg(call.get("shape"), unknown_items=True)
    norm_axis(literal(call.get("dimension")), len(shape), call.short)
    if code is None:
        raise Unprovable
    return ArrayType.make(code, shape)


@rule("jax.lax.iota")
def iota_rule(call: Call) -> Any:
    code = dtype_from_value(call.get("dtype"))
    if code is None:
        raise Unprovable
    return ArrayType.make(code, shape_arg(call.get("size")))


@rule("jax.lax.slice_in_dim")
def slice_in_dim_rule(call: Call) -> Any:
    x = positional(call, "operand")
    i = norm_axis(literal(call.get("axis", Const(0))), len(x.shape), call.short)
    d = x.shape[i]
    start, limit = literal(call.get("start_index")), literal(call.get("limit_index"))
    stride = literal(call.get("stride", Const(1)))
    if not is_int(d) or not all(isinstance(v, int) or v is None for v in (start, limit)) or not isinstance(stride, int):
        return x.with_shape(x.shape[:i] + (None,) + x.shape[i + 1 :])
    lo = 0 if start is None else start + d if start < 0 else start
    hi = d if limit is None else limit + d if limit < 0 else limit
    if not 0 <= lo <= hi <= d or stride < 1:
        raise RuleError(
            NC203,
            f"{call.short}: slice [{start}:{limit}:{stride}] of dimension {i} of size {d} is out "
            f"of bounds ({fmt_shape(x.shape)})",
            hint="lax slices do not clamp; check the bounds",
        )
    return x.with_shape(x.shape[:i] + (-(-(hi - lo) // stride),) + x.shape[i + 1 :])


@rule("jax.lax.convert_element_type")
def convert_element_type_rule(call: Call) -> Any:
    x = call.array("operand")
    code = dtype_from_value(call.get("new_dtype"))
    if code is None:
        raise Unprovable
    return x.with_dtype(code)


@rule("jax.numpy.unstack")
def unstack_rule(call: Call) -> Any:
    x = positional(call, "x")
    i = norm_axis(literal(call.get("axis", Const(0))), len(x.shape), call.short)
    n = x.shape[i]
    if not is_int(n) or n > 64:
        raise Unprovable
    part = x.with_shape(x.shape[:i] + x.shape[i + 1 :])
    return Seq((part,) * n)


# ---- sharding over Explicit mesh axes (JAX's sharding rules: the result's sharding, NC8xx) ----------------


@sharding_rule("jax.lax.dot_general")
def dot_general_sharding(call: Call, result: ArrayType) -> Shd | None:
    """lax.dot_general: batch dims first (the lhs's entries; NC803 when both sides are sharded differently),
    then the lhs's and the rhs's free dims."""
    ta, tb = call.array("lhs"), call.array("rhs")
    (lc, rc), (lb, rb) = (tuple(tuple(d) for d in pair) for pair in literal(call.get("dimension_numbers")))
    sa, sb = of(ta), of(tb)
    if sa is None or sb is None:
        return out_sharding(call, len(result.shape)) if has_out_sharding(call) else None
    if not has_out_sharding(call):
        for i, j in zip(lb, rb):
            if sa[i] and sb[j] and sa[i] != sb[j]:
                raise RuleError(
                    NC803,
                    f"{call.short}: batch dimension {i} of {call.label('lhs')} is split over "
                    f"{axes_desc(sa[i])} and dimension {j} of {call.label('rhs')} over "
                    f"{axes_desc(sb[j])}",
                    hint="reshard one operand so the batch dims agree",
                )
    out = (
        [sa[i] for i in lb]
        + [e for i, e in enumerate(sa) if i not in lc + lb]
        + [e for j, e in enumerate(sb) if j not in rc + rb]
    )
    return contract_sharding(call, "lhs", "rhs", list(zip(lc, rc)), out, ta, tb, len(result.shape))


@sharding_rule("jax.lax.top_k")
def top_k_sharding(call: Call, result: ArrayType) -> Shd | None:
    x, s = known_operand(call)
    i = norm_axis(literal_arg(call, "axis", -1), len(s), call.short)
    check_unsharded_along(call, x, s, i, "selects along")
    return s


@sharding_rule("jax.lax.broadcast_in_dim")
def broadcast_in_dim_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Operand dims keep their mesh axes where they land (a stretched size-1 dim: unsharded); new dims are
    unsharded."""
    if has_out_sharding(call):
        return out_sharding(call, len(result.shape))
    x, s = known_sharding(call, "operand")
    dims = literal(call.get("broadcast_dimensions"))
    out: list[tuple[str, ...]] = [()] * len(result.shape)
    for i, d in enumerate(dims):
        out[d] = s[i] if x.shape[i] == result.shape[d] else ()
    return tuple(out)


@sharding_rule("jax.lax.broadcast")
def broadcast_sharding(call: Call, result: ArrayType) -> Shd | None:
    """New leading dims are unsharded."""
    if has_out_sharding(call):
        return out_sharding(call, len(result.shape))
    _, s = known_sharding(call, "operand")
    return ((),) * (len(result.shape) - len(s)) + s


@sharding_rule("jax.lax.select")
def select_sharding(call: Call, result: ArrayType) -> Shd | None:
    """lax.select: the cases must be sharded alike, the predicate (unless a scalar) like them (NC801)."""
    (tt, st_), (tf, sf) = known_sharding(call, "on_true"), known_sharding(call, "on_false")
    if st_ != sf:
        raise RuleError(
            NC801,
            f"{call.short}: select cases must have the same shardings, got "
            f"{call.label('on_true')}: {fmt_type(tt)} and {call.label('on_false')}: {fmt_type(tf)}",
            hint=f"reshard {call.label('on_false')} to {fmt_spec(st_)} first",
        )
    p = call.array("pred")
    sp = of(p)
    if p.shape and sp is not None and sp != st_:
        raise RuleError(
            NC801,
            f"{call.short}: the predicate {call.label('pred')} must be a scalar or sharded like "
            f"the cases, got {fmt_type(p)} and {fmt_type(tt)}",
            hint=f"reshard the predicate to {fmt_spec(st_)} first",
        )
    return st_


@sharding_rule("jax.lax.convert_element_type")
def convert_sharding(call: Call, result: ArrayType) -> Shd | None:
    return known_sharding(call, "operand")[1]


sharding_rule("jax.lax.slice_in_dim")(lax_slice_sharding)  # a slice, as dynamic_slice_in_dim
