"""JAX's sharding rules for layout ops (the sibling of sharding_rules.py): jnp's moveaxis, broadcast_to,
flip, roll, tril / triu, split, ravel, one_hot, outer and take_along_axis; lax's slices and dynamic slices
(kept sharding, divisible lengths), dynamic updates (operand and update sharded alike), broadcast_in_dim,
broadcast, select and convert_element_type. Each was checked against the installed JAX on an Explicit mesh
(tests/cases/shd_layout.py runs under it)."""

from __future__ import annotations

import math
from typing import Any

from namedcheck.engine.algebra import all_int, is_int, norm_axis
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Unprovable
from namedcheck.engine.ops.sharding_axis_ops import check_divisible_out
from namedcheck.engine.ops.sharding_rules import (
    Shd,
    _axes_desc,
    check_distinct,
    fmt_spec,
    has_out_sharding,
    out_sharding,
    reshape_sharding,
    sharding_rule,
)
from namedcheck.engine.sharding import fmt_type, of
from namedcheck.engine.values import ArrayType, Const, literal


def _known(call: Call, name: str) -> tuple[ArrayType, Shd]:
    x = call.array(name)
    s = of(x)
    if s is None:
        raise Unprovable
    return x, s


def _axes(v: Any, rank: int, short: str) -> list[int]:
    items = v if isinstance(v, tuple) else (v,)
    return [norm_axis(a, rank, short) for a in items]


@sharding_rule("jax.numpy.moveaxis")
def moveaxis_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A permutation: each dim keeps its mesh axes."""
    _, s = _known(call, "a")
    src = _axes(literal(call.get("source")), len(s), call.short)
    dst = _axes(literal(call.get("destination")), len(s), call.short)
    rest = [i for i in range(len(s)) if i not in src]
    order: list[int | None] = [None] * len(s)
    for a, b in zip(src, dst, strict=True):
        order[b] = a
    it = iter(rest)
    return tuple(s[o if o is not None else next(it)] for o in order)


@sharding_rule("jax.numpy.broadcast_to")
def broadcast_to_sharding(call: Call, result: ArrayType) -> Shd | None:
    """New leading dims and stretched size-1 dims are unsharded; the others keep their mesh axes."""
    if has_out_sharding(call):
        return out_sharding(call, len(result.shape))
    x, s = _known(call, "array")
    lead = len(result.shape) - len(s)
    if lead < 0:
        raise Unprovable
    return ((),) * lead + tuple(() if d == 1 and n != 1 else e
                                for d, n, e in zip(x.shape, result.shape[lead:], s))


@sharding_rule("jax.numpy.flip", "jax.numpy.tril", "jax.numpy.triu")
def keep_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Reversal (lax.rev) and triangular masks keep the operand's sharding."""
    return _known(call, "m" if "m" in call.args else "a")[1]


@sharding_rule("jax.numpy.roll")
def roll_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Rolling by `shift` along an axis concatenates two slices of lengths shift and n - shift (mod n):
    along a sharded dim both must stay divisible by its mesh axes (NC822). axis=None rolls the array
    flattened (a reshape to one dim and back): known where at most the leading dim is sharded."""
    x, s = _known(call, "a")
    axis, shift = literal(call.get("axis", Const(None))), literal(call.get("shift"))
    if axis is None and is_int(shift) and not any(s[1:]):
        n = math.prod(x.shape) if all_int(x.shape) else None
        if s and s[0] and n:
            flat = x.with_shape((n,)).with_sharding(s[:1])
            k = shift % n
            if k:
                for part in (k, n - k):
                    check_divisible_out(call, flat, s[:1], (part,), f"rolls by {shift}: it slices",
                                        note=" (axis=None rolls the array flattened)")
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
            check_divisible_out(call, x, s, x.shape[:i] + (part,) + x.shape[i + 1:], f"rolls by {shift}: it slices")
    return s


@sharding_rule("jax.numpy.split", "jax.numpy.array_split")
def split_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Every part keeps the operand's sharding: along a sharded dim each part's length must be divisible
    by its mesh axes (NC822)."""
    x, s = _known(call, "ary")
    i = norm_axis(literal(call.get("axis", Const(0))), len(s), call.short)
    how, n = literal(call.get("indices_or_sections")), x.shape[i]
    if not s[i]:
        return s
    if not is_int(n):
        raise Unprovable
    if isinstance(how, int) and how > 0:
        sizes = [n // how + (1 if j < n % how else 0) for j in range(how)]
    elif isinstance(how, tuple) and all(is_int(b) for b in how):
        bounds = [0, *how, n]
        sizes = [max(0, min(b, n) - min(a, n)) for a, b in zip(bounds, bounds[1:])]
    else:
        raise Unprovable
    for part in sizes:
        if part != n:
            check_divisible_out(call, x, s, x.shape[:i] + (part,) + x.shape[i + 1:], "splits")
    return s


@sharding_rule("jax.nn.one_hot")
def one_hot_sharding(call: Call, result: ArrayType) -> Shd | None:
    """The class dimension is new and unsharded; the others keep the indices' mesh axes."""
    _, s = _known(call, "x")
    i = norm_axis(literal(call.get("axis", Const(-1))), len(s) + 1, call.short)
    return s[:i] + ((),) + s[i:]


@sharding_rule("jax.numpy.outer")
def outer_sharding(call: Call, result: ArrayType) -> Shd | None:
    """jnp.outer multiplies a column by a row of the flattened operands: the result may not use one mesh
    axis twice. An N-d operand is raveled first, which keeps a sharded leading dim's axes (known only when
    no other dim is sharded)."""
    (_, sa), (_, sb) = _known(call, "a"), _known(call, "b")
    flat = []
    for s in (sa, sb):
        if any(s[1:]):
            raise Unprovable  # the ravel of a later sharded dim is a reshape JAX may reject (NC805) or merge
        flat.append(s[0] if s else ())
    return check_distinct(call, (flat[0], flat[1]), f"{call.label('a')} and {call.label('b')}")


@sharding_rule("jax.numpy.take_along_axis")
def take_along_axis_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A gather along `axis`: that dim of arr must be unsharded (NC806); the other dims take arr's or the
    indices' mesh axes (both: they must agree, else Unknown); the gathered dim is unsharded."""
    x, s = _known(call, "arr")
    axis = literal(call.get("axis"))
    if axis is None:
        raise Unprovable
    i = norm_axis(axis, len(s), call.short)
    if s[i]:
        raise RuleError("NC806", f"{call.short}: the gather's out sharding cannot be resolved unambiguously: it gathers "
                                 f"along dimension {i} of {call.label('arr')}, split over {_axes_desc(s[i])} "
                                 f"({fmt_type(x)})",
                        hint="reshard the array so that the gathered dimension is unsharded first")
    idx = call.array("indices")
    si = of(idx)
    if si is None or len(si) != len(s) or si[i]:
        raise Unprovable
    out = []
    for j, (a, b) in enumerate(zip(s, si)):
        if a and b and a != b:
            raise Unprovable
        out.append(() if j == i else a or b)
    return tuple(out)


# ---- lax ---------------------------------------------------------------------------------------------------

@sharding_rule("jax.lax.dynamic_slice", "jax.lax.dynamic_slice_in_dim", "jax.lax.slice_in_dim")
def lax_slice_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A (dynamic) slice keeps the operand's sharding: a sharded dim's new length must stay divisible (NC822)."""
    x, s = _known(call, "operand")
    if len(result.shape) != len(s):
        raise Unprovable
    check_divisible_out(call, x, s, result.shape, "slices")
    return s


@sharding_rule("jax.lax.dynamic_index_in_dim")
def lax_index_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A dynamic slice of length 1 along `axis` (dropped without keepdims): that dim must be unsharded."""
    x, s = _known(call, "operand")
    i = norm_axis(literal(call.get("axis", Const(0))), len(s), call.short)
    check_divisible_out(call, x, s, x.shape[:i] + (1,) + x.shape[i + 1:], "indexes")
    return s if literal(call.get("keepdims", Const(True))) else s[:i] + s[i + 1:]


@sharding_rule("jax.lax.dynamic_update_slice", "jax.lax.dynamic_update_slice_in_dim",
               "jax.lax.dynamic_update_index_in_dim")
def lax_update_sharding(call: Call, result: ArrayType) -> Shd | None:
    """dynamic_update_slice needs the update sharded exactly like the operand (NC801); the result keeps it.
    dynamic_update_index_in_dim first gives a one-rank-lower update an unsharded size-1 dim at `axis`."""
    x, s = _known(call, "operand")
    u, su = _known(call, "update")
    if call.op.endswith("index_in_dim") and len(su) == len(s) - 1:
        i = norm_axis(literal(call.get("axis")), len(s), call.short)
        su = su[:i] + ((),) + su[i:]
    if len(su) != len(s):
        raise Unprovable
    if su != s:
        raise RuleError("NC801", f"{call.short}: the update {call.label('update')} ({fmt_type(u)}) must be sharded "
                                 f"like the operand {call.label('operand')} ({fmt_type(x)})",
                        hint=f"jax.sharding.reshard the update to {fmt_spec(s)} first")
    return s


@sharding_rule("jax.lax.broadcast_in_dim")
def broadcast_in_dim_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Operand dims keep their mesh axes where they land (a stretched size-1 dim: unsharded); new dims are
    unsharded."""
    if has_out_sharding(call):
        return out_sharding(call, len(result.shape))
    x, s = _known(call, "operand")
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
    _, s = _known(call, "operand")
    return ((),) * (len(result.shape) - len(s)) + s


@sharding_rule("jax.lax.select")
def select_sharding(call: Call, result: ArrayType) -> Shd | None:
    """lax.select: the cases must be sharded alike, the predicate (unless a scalar) like them (NC801)."""
    (tt, st_), (tf, sf) = _known(call, "on_true"), _known(call, "on_false")
    if st_ != sf:
        raise RuleError("NC801", f"{call.short}: select cases must have the same shardings, got "
                                 f"{call.label('on_true')}: {fmt_type(tt)} and {call.label('on_false')}: {fmt_type(tf)}",
                        hint=f"reshard {call.label('on_false')} to {fmt_spec(st_)} first")
    p = call.array("pred")
    sp = of(p)
    if p.shape and sp is not None and sp != st_:
        raise RuleError("NC801", f"{call.short}: the predicate {call.label('pred')} must be a scalar or sharded like "
                                 f"the cases, got {fmt_type(p)} and {fmt_type(tt)}",
                        hint=f"reshard the predicate to {fmt_spec(st_)} first")
    return st_


@sharding_rule("jax.lax.convert_element_type")
def convert_sharding(call: Call, result: ArrayType) -> Shd | None:
    return _known(call, "operand")[1]


sharding_rule("jax.numpy.ravel")(reshape_sharding)  # a reshape to one dim


__all__: list[str] = []
