"""Shape manipulation: reshape, transpose, swapaxes, moveaxis, expand_dims, squeeze, concatenate,
stack, broadcast_to, ravel. Named axes pass through untouched (or are unioned when joining values).
Their sharding rules over Explicit mesh axes (`@sharding_rule`) follow the shape rules."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from namedcheck.engine import dtypes, symbolic
from namedcheck.engine.algebra import (
    all_int,
    broadcast_dim,
    differ,
    fmt_shape,
    is_int,
    maybe_one,
    norm_axis,
    num_elements,
    product,
    union_named,
)
from namedcheck.engine.codes import NC201, NC203, NC701, NC801, NC805, NC806, NC821
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Shd, Unprovable, rule, sharding_rule
from namedcheck.engine.ops.reductions import keep_sharding, reduced_dtype
from namedcheck.engine.ops.sharding_common import (
    axes_desc,
    check_divisible_out,
    fmt_spec,
    has_out_sharding,
    known_operand,
    known_sharding,
    literal_arg,
    out_sharding,
)
from namedcheck.engine.placement import fmt_type, of, spec_json
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, DimVal, Seq, dim_of, literal, one_or_many


def positional(call: Call, name: str) -> ArrayType:
    x = call.array(name)
    if x.has_ellipsis:
        raise Unprovable
    return x


def shape_arg(v: Any, unknown_items: bool = False) -> tuple[Any, ...]:
    """A shape argument (int or sequence of ints / DimVals) as a tuple of dims. With `unknown_items`, an item
    of a tuple or list that is not known (`(n, 784)`, `(x.shape[0], 10)` of an unknown `x`) is the symbol the
    analyzer named it after (`Seq.sizes`), else an unknown dim:
    each item of a sequence is exactly one dimension (anything else there makes JAX raise), so the rank and
    the known sizes survive."""
    if isinstance(v, (Const, DimVal)):
        return (dim_of(v),)
    if isinstance(v, Seq) and v.kind != "dict":
        sizes = v.sizes or (None,) * len(v.items)
        return tuple(sizes[k] if unknown_items and i is UNKNOWN else dim_of(i) for k, i in enumerate(v.items))
    raise Unprovable


@rule("jax.numpy.reshape")
def reshape_rule(call: Call) -> Any:
    x = as_array(call.get("a"))
    if x is UNKNOWN:  # the new shape gives the result's rank and known sizes whatever `a` is
        x = ArrayType.partial(exact=not call.env.manual)  # inside shard_map it may vary over anything
    if not isinstance(x, ArrayType):
        raise Unprovable
    new = shape_arg(call.get("shape", None) or call.get("newshape"), unknown_items=True)
    if sum(1 for d in new if d == -1) > 1:
        raise RuleError(NC203, f"{call.short} to {fmt_shape(new)}: only one dimension may be -1")
    for d in new:
        if is_int(d) and d < -1:
            raise RuleError(NC203, f"{call.short} to {fmt_shape(new)}: negative size {d}")
    total = None if x.has_ellipsis else product(x.shape)
    rest = [d for d in new if d != -1]
    known = product(rest)
    part = num_elements([d for d in rest if is_int(d)])
    rem = None if not part else total % part if is_int(total) else symbolic.remainder(total, part)
    if rem and not (is_int(total) and all(is_int(d) for d in rest)):  # whatever the symbols are
        raise RuleError(
            NC203,
            f"Cannot {call.short} {fmt_shape(x.shape)} ({total} elements) to {fmt_shape(new)}: "
            f"{total} is not divisible by {part}, the product of the known sizes",
        )
    if -1 in new:
        inferred = None
        if is_int(total) and is_int(known):
            if known == 0 or total % known:
                raise RuleError(
                    NC203,
                    f"Cannot {call.short} {fmt_shape(x.shape)} ({total} elements) to "
                    f"{fmt_shape(new)}: {total} is not divisible by {known}",
                )
            inferred = total // known
        elif total is not None and known is not None and known != 0:
            inferred = symbolic.quotient(total, known)
        new = tuple(inferred if d == -1 else d for d in new)
    elif total is not None and known is not None and differ(total, known):
        raise RuleError(
            NC203,
            f"Cannot {call.short} {fmt_shape(x.shape)} ({total} elements) to {fmt_shape(new)} ({known} elements)",
            hint="the element counts must match; use -1 for one inferred dimension",
        )
    return x.with_shape(new)


@rule("jax.numpy.ravel")
def ravel_rule(call: Call) -> Any:
    x = positional(call, "a")
    return x.with_shape((product(x.shape),))


@rule("jax.numpy.transpose", "jax.numpy.permute_dims")
def transpose_rule(call: Call) -> Any:
    x = positional(call, "a")
    axes = literal(call.get("axes", Const(None)))
    nd = len(x.shape)
    if axes is None:
        return x.with_shape(tuple(reversed(x.shape)))
    axes = one_or_many(axes)
    if len(axes) != nd:
        raise RuleError(
            NC701,
            f"{call.short} axes {axes!r} have {len(axes)} entries for a value with {nd} "
            f"positional dimensions {fmt_shape(x.shape)}",
        )
    norm = [norm_axis(a, nd, call.short) for a in axes]
    if len(set(norm)) != nd:
        raise RuleError(NC701, f"{call.short} axes {axes!r} are not a permutation of 0..{nd - 1}")
    return x.with_shape(tuple(x.shape[i] for i in norm))


@rule("jax.numpy.swapaxes")
def swapaxes_rule(call: Call) -> Any:
    x = positional(call, "a")
    nd = len(x.shape)
    i = norm_axis(literal(call.get("axis1")), nd, call.short)
    j = norm_axis(literal(call.get("axis2")), nd, call.short)
    s = list(x.shape)
    s[i], s[j] = s[j], s[i]
    return x.with_shape(tuple(s))


@rule("jax.numpy.moveaxis")
def moveaxis_rule(call: Call) -> Any:
    x = positional(call, "a")
    nd = len(x.shape)
    src, dst = literal(call.get("source")), literal(call.get("destination"))
    src, dst = one_or_many(src), one_or_many(dst)
    if len(src) != len(dst):
        raise RuleError(NC701, f"{call.short}: {len(src)} source axes but {len(dst)} destination axes")
    src = tuple(norm_axis(a, nd, call.short) for a in src)
    dst = tuple(norm_axis(a, nd, call.short) for a in dst)
    rest = [i for i in range(nd) if i not in src]
    order: list[int | None] = [None] * nd
    for s, d in sorted(zip(src, dst), key=lambda p: p[1]):
        order[d] = s
    it = iter(rest)
    perm = [o if o is not None else next(it) for o in order]
    return x.with_shape(tuple(x.shape[i] for i in perm))


@rule("jax.numpy.expand_dims", "jax.lax.expand_dims")
def expand_dims_rule(call: Call) -> Any:
    axis = literal(call.get("axis", None) or call.get("dimensions"))
    axes = one_or_many(axis)
    if len(set(axes)) != len(axes):  # `axis=(-3, -3)`: repeated whatever the rank is
        raise RuleError(NC701, f"{call.short}: axis {axis!r} is repeated")
    x = positional(call, "a" if "a" in call.args else "array")
    nd = len(x.shape) + len(axes)
    norm = sorted(norm_axis(a, nd, call.short) for a in axes)
    if len(set(norm)) != len(norm):
        raise RuleError(NC701, f"{call.short}: axis {axis!r} is repeated")
    shape = list(x.shape)
    for a in norm:
        shape.insert(a, 1)
    return x.with_shape(tuple(shape))


@rule("jax.numpy.squeeze")
def squeeze_rule(call: Call) -> Any:
    x = positional(call, "a")
    axis = literal(call.get("axis", Const(None)))
    nd = len(x.shape)
    if axis is None:
        if any(not is_int(d) and maybe_one(d) for d in x.shape):
            raise Unprovable
        return x.with_shape(tuple(d for d in x.shape if d != 1))
    axes = {norm_axis(a, nd, call.short) for a in one_or_many(axis)}
    for a in axes:
        if not maybe_one(x.shape[a]):
            raise RuleError(
                NC203, f"{call.short} of axis {a} which has size {x.shape[a]}, not 1 (shape {fmt_shape(x.shape)})"
            )
    return x.with_shape(tuple(d for i, d in enumerate(x.shape) if i not in axes))


def _array_list(call: Call, name: str) -> list[ArrayType]:
    seq = call.get(name)
    if not isinstance(seq, Seq) or not seq.items:
        raise Unprovable
    out = [as_array(i) for i in seq.items]
    if any(not isinstance(t, ArrayType) or t.has_ellipsis for t in out):
        raise Unprovable
    return out


def _join_meta(call: Call, ts: list[ArrayType]) -> tuple[str | None, dict[str, Any]]:
    labels = [f"array {i} of {call.label('arrays')}" for i in range(len(ts))]
    dt = dtypes.materialize(dtypes.promote(*[t.dtype_code for t in ts]))
    return dt, union_named(ts, labels)


@rule("jax.numpy.concatenate")
def concatenate_rule(call: Call) -> Any:
    ts = _array_list(call, "arrays")
    axis = literal(call.get("axis", None) or call.get("dimension", Const(0)))
    if axis is None:
        return ArrayType.make(
            _join_meta(call, ts)[0], (sum_dims([product(t.shape) for t in ts]),), _join_meta(call, ts)[1]
        )
    nd = len(ts[0].shape)
    if nd == 0:
        raise RuleError(NC203, f"{call.short} of zero-dimensional arrays; use stack")
    for i, t in enumerate(ts[1:], 1):
        if len(t.shape) != nd:
            raise RuleError(
                NC203,
                f"{call.short}: array {i} has {len(t.shape)} dimensions {fmt_shape(t.shape)}, "
                f"array 0 has {nd} {fmt_shape(ts[0].shape)}",
            )
    ax = norm_axis(axis, nd, call.short)
    shape = list(ts[0].shape)
    for i, t in enumerate(ts[1:], 1):
        for k in range(nd):
            if k != ax and differ(shape[k], t.shape[k]):
                raise RuleError(
                    NC203,
                    f"{call.short} along axis {axis}: dimension {k} of array {i} is "
                    f"{t.shape[k]} but {shape[k]} in array 0 ({fmt_shape(t.shape)} vs "
                    f"{fmt_shape(ts[0].shape)})",
                )
            if k != ax and (shape[k] is None or isinstance(shape[k], str) and is_int(t.shape[k])):
                shape[k] = t.shape[k]  # the best known of equal sizes
    shape[ax] = sum_dims([t.shape[ax] for t in ts])
    dt, named = _join_meta(call, ts)
    return ArrayType.make(dt, tuple(shape), named)


def sum_dims(ds: list[Any]) -> Any:
    """The sum of sizes: an int, a size expression over their symbols, or None when one is unknown."""
    if all(is_int(d) for d in ds):
        return sum(ds)
    total: Any = 0
    for d in ds:
        total = None if d is None or total is None else symbolic.arith("+", total, d)
    return total


@rule("jax.numpy.stack")
def stack_rule(call: Call) -> Any:
    ts = _array_list(call, "arrays")
    axis = literal(call.get("axis", Const(0)))
    first = ts[0].shape
    for i, t in enumerate(ts[1:], 1):
        if len(t.shape) != len(first) or any(differ(a, b) for a, b in zip(first, t.shape)):
            raise RuleError(
                NC203,
                f"{call.short}: array {i} has shape {fmt_shape(t.shape)} but array 0 has "
                f"{fmt_shape(first)}; stacked arrays must have one shape",
            )
    ax = norm_axis(axis, len(first) + 1, call.short)
    dt, named = _join_meta(call, ts)
    return ArrayType.make(dt, first[:ax] + (len(ts),) + first[ax:], named)


@rule("jax.numpy.broadcast_to")
def broadcast_to_rule(call: Call) -> Any:
    x = positional(call, "array")
    target = shape_arg(call.get("shape"), unknown_items=True)
    if len(x.shape) > len(target):
        raise RuleError(
            NC201, f"Cannot broadcast {fmt_shape(x.shape)} to {fmt_shape(target)}: the target has fewer dimensions"
        )
    for i in range(1, len(x.shape) + 1):
        d, t = x.shape[-i], target[-i]
        try:
            b = broadcast_dim(d, t)
        except ValueError:
            b = None
        if not maybe_one(d) and differ(d, t) or (b is None and is_int(d) and is_int(t)):
            raise RuleError(
                NC201,
                f"Cannot broadcast {fmt_shape(x.shape)} to {fmt_shape(target)}: dimension {-i} is {d}, target {t}",
            )
    return x.with_shape(target)


@rule("jax.numpy.split", "jax.numpy.array_split")
def split_rule(call: Call) -> Any:
    """Equal sections (NC203 when they do not divide the axis) or split points along an axis."""
    x = positional(call, "ary")
    axis = norm_axis(literal(call.get("axis", Const(0))), len(x.shape), call.short)
    how = literal(call.get("indices_or_sections"))
    d = x.shape[axis]
    if isinstance(how, int):
        if how <= 0:
            raise Unprovable
        sizes: list[Any]
        if call.op.endswith("array_split"):  # its sections may differ
            sizes = [d // how + (1 if i < d % how else 0) for i in range(how)] if is_int(d) else [None] * how
        elif d % how if is_int(d) else symbolic.remainder(d, how):  # '3*n+1' leaves 1 whatever n is
            raise RuleError(
                NC203,
                f"{call.short} of dimension {axis} (size {d}) into {how} equal sections: {d} is not divisible by {how}",
                hint="use jnp.array_split for unequal sections",
            )
        else:
            sizes = [d // how if is_int(d) else symbolic.quotient(d, how)] * how  # `3*C` in 3 is C
    elif isinstance(how, tuple) and all(is_int(i) for i in how) and is_int(d):
        bounds = [0, *how, d]
        sizes = [max(0, min(b, d) - min(a, d)) for a, b in zip(bounds, bounds[1:])]
    else:
        raise Unprovable
    parts = tuple(x.with_shape(x.shape[:axis] + (s,) + x.shape[axis + 1 :]) for s in sizes)
    return Seq(parts, "list")


@rule("jax.numpy.take_along_axis")
def take_along_axis_rule(call: Call) -> Any:
    x, idx = positional(call, "arr"), positional(call, "indices")
    axis = literal(call.get("axis"))
    if not isinstance(axis, int) or len(x.shape) != len(idx.shape):
        raise Unprovable
    a = norm_axis(axis, len(x.shape), call.short)
    shape = []
    for i, (dx, di) in enumerate(zip(x.shape, idx.shape)):
        if i == a:
            shape.append(di)
            continue
        try:
            shape.append(broadcast_dim(dx, di))
        except ValueError:
            raise RuleError(
                NC201,
                f"{call.short}: dimension {i} is {dx} in the array and {di} in the indices "
                f"({fmt_shape(x.shape)} vs {fmt_shape(idx.shape)})",
            ) from None
    dt, named = _join_meta(call, [x, idx])
    return ArrayType.make(x.dtype_code, tuple(shape), named)


@rule("jax.numpy.tile")
def tile_rule(call: Call) -> Any:
    x = positional(call, "A")
    reps = one_or_many(literal(call.get("reps")), object)
    if not all(is_int(r) for r in reps):
        raise Unprovable
    n = max(len(reps), len(x.shape))
    shape = (1,) * (n - len(x.shape)) + x.shape
    reps = (1,) * (n - len(reps)) + reps
    return x.with_shape(tuple(symbolic.arith("*", d, r) for d, r in zip(shape, reps)))


@rule("jax.numpy.repeat")
def repeat_rule(call: Call) -> Any:
    x = positional(call, "a")
    reps = literal(call.get("repeats"))
    axis = literal(call.get("axis", Const(None)))
    if not is_int(reps):
        raise Unprovable
    if axis is None:
        return x.with_shape((symbolic.arith("*", product(x.shape), reps),))
    i = norm_axis(axis, len(x.shape), call.short)
    d = x.shape[i]
    return x.with_shape(x.shape[:i] + (symbolic.arith("*", d, reps),) + x.shape[i + 1 :])


@rule("jax.numpy.pad")
def pad_rule(call: Call) -> Any:
    x = positional(call, "array")
    pairs = _pad_pairs(literal(call.get("pad_width")), len(x.shape), call.short)
    return x.with_shape(tuple(symbolic.arith("+", d, a + b) for d, (a, b) in zip(x.shape, pairs)))


def _pad_pairs(width: Any, nd: int, short: str) -> list[tuple[Any, Any]]:
    """pad_width as (before, after) per dimension; JAX accepts the shapes (nd, 2), (1, 2), (2,), (1,), ()."""
    if is_int(width):
        return [(width, width)] * nd
    if not isinstance(width, tuple) or not width:
        raise Unprovable
    if all(is_int(w) for w in width):
        shape: tuple[int, ...] = (len(width),)
        if len(width) in (1, 2):
            return [(width[0], width[-1])] * nd
    elif all(isinstance(w, tuple) and all(is_int(v) for v in w) for w in width) and len({len(w) for w in width}) == 1:
        shape = (len(width), len(width[0]))
        if shape[1] == 1:  # numpy's pad accepts (n, 1) (np.pad reads as jnp.pad): not proven wrong
            raise Unprovable
        if shape[1] == 2 and shape[0] in (1, nd):
            return [width[0]] * nd if shape[0] == 1 else list(width)
    else:
        raise Unprovable
    raise RuleError(
        NC203,
        f"{short}: pad_width of shape {shape} for an array of {nd} dimension"
        f"{'s' if nd != 1 else ''}; expected one of {(nd, 2)}, (1, 2), (2,), (1,) or ()",
    )


@rule("jax.numpy.tril", "jax.numpy.triu")
def tri_rule(call: Call) -> Any:
    x = call.array("m")
    if not x.has_ellipsis and len(x.shape) < 2:
        raise RuleError(NC203, f"{call.short} needs an array of at least 2 dimensions; found {fmt_shape(x.shape)}")
    return x


@rule("jax.numpy.take")
def take_rule(call: Call) -> Any:
    x = positional(call, "a")
    idx = as_array(call.get("indices"))
    axis = literal(call.get("axis", Const(None)))
    if not isinstance(idx, ArrayType) or idx.has_ellipsis:
        raise Unprovable
    if axis is None:
        return ArrayType.make(x.dtype_code, idx.shape, union_named([x, idx]))
    i = norm_axis(axis, len(x.shape), call.short)
    return ArrayType.make(x.dtype_code, x.shape[:i] + idx.shape + x.shape[i + 1 :], union_named([x, idx]))


@rule("jax.numpy.diagonal", "jax.numpy.trace", "jax.numpy.linalg.diagonal", "jax.numpy.linalg.trace")
def diagonal_rule(call: Call) -> Any:
    """jnp's diagonal / trace over axis1 and axis2 (0 and 1 by default); jnp.linalg's over the last two."""
    arg = "x" if ".linalg." in call.op else "a"
    x = positional(call, arg)
    if len(x.shape) < 2:
        raise RuleError(
            NC701,
            f"{call.short} needs an array of at least two dimensions (a matrix); {call.label(arg)} has shape "
            f"{fmt_shape(x.shape)}",
            "a vector's own elements are already its diagonal; or build the matrix with jnp.diag(v)",
        )
    if literal(call.get("offset", Const(0))) != 0:
        raise Unprovable
    first, second = (-2, -1) if arg == "x" else (0, 1)
    i = norm_axis(literal(call.get("axis1", Const(first))), len(x.shape), call.short)
    j = norm_axis(literal(call.get("axis2", Const(second))), len(x.shape), call.short)
    if i == j:
        raise RuleError(NC701, f"{call.short}: axis1 and axis2 are both {i}")
    rest = tuple(d for k, d in enumerate(x.shape) if k not in (i, j))
    di, dj = x.shape[i], x.shape[j]
    n = min(di, dj) if is_int(di) and is_int(dj) else (di if di == dj else None)
    if call.op.endswith("trace"):
        return ArrayType.make(reduced_dtype(x.dtype_code, "int"), rest, x.named_shape)
    return x.with_shape(rest + (n,))


# ---- sharding over Explicit mesh axes (JAX's sharding rules: the result's sharding, NC8xx) ----------------
# Tiling or repeating a sharded dimension needs `out_sharding=` (NC821); a pad, split or roll whose result
# dimension its mesh axes no longer divide is rejected (NC822; lax.py `_pad_sharding_rule`).


def _permute(s: Shd | None, perm: list[int]) -> Shd | None:
    return None if s is None else tuple(s[p] for p in perm)


@sharding_rule("jax.numpy.transpose", "jax.numpy.permute_dims")
def transpose_sharding(call: Call, result: ArrayType) -> Shd | None:
    s = of(call.array("a"))
    axes = literal(call.get("axes", Const(None)))
    if s is None:
        return None
    perm = (
        list(reversed(range(len(s)))) if axes is None else [norm_axis(a, len(s), call.short) for a in one_or_many(axes)]
    )
    return _permute(s, perm)


@sharding_rule("jax.numpy.swapaxes")
def swapaxes_sharding(call: Call, result: ArrayType) -> Shd | None:
    s = of(call.array("a"))
    if s is None:
        return None
    perm = list(range(len(s)))
    i, j = (norm_axis(literal(call.get(k)), len(s), call.short) for k in ("axis1", "axis2"))
    perm[i], perm[j] = perm[j], perm[i]
    return _permute(s, perm)


@sharding_rule("jax.numpy.expand_dims", "jax.lax.expand_dims")
def expand_dims_sharding(call: Call, result: ArrayType) -> Shd | None:
    """New size-1 dims are unsharded; the others keep their mesh axes."""
    s = of(call.array("a" if "a" in call.args else "array"))
    if s is None:
        return None
    axis = literal(call.get("axis", None) or call.get("dimensions"))
    new = {norm_axis(a, len(result.shape), call.short) for a in ((axis,) if isinstance(axis, int) else axis)}
    it = iter(s)
    return tuple(() if i in new else next(it) for i in range(len(result.shape)))


@sharding_rule("jax.numpy.squeeze")
def squeeze_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Squeezed dims have size 1 and are unsharded: the remaining entries keep their order."""
    x = call.array("a")
    s = of(x)
    if s is None:
        return None
    kept = tuple(e for e, d in zip(s, x.shape) if not (d == 1 and not e))
    return kept if len(kept) == len(result.shape) else None


def _reshape_error(call: Call, x: ArrayType, new: tuple[Any, ...]) -> RuleError:
    s = of(x) or ()
    keep = 0  # leading dims the reshape leaves alone keep their sharding in the suggested out_sharding
    while keep < min(len(s), len(new)) and x.shape[keep] == new[keep] and keep < len(new) - 1:
        keep += 1
    out = tuple(s[:keep]) + ((),) * (len(new) - keep)
    return RuleError(
        NC805,
        f"{call.short} of {call.label('a')}: {fmt_type(x)} to {tuple(new)} is not supported "
        f"for its sharding (the sharded dimension cannot be split or merged that way)",
        hint="pass out_sharding=P(...) to the reshape, or reshard the operand first",
        data={"op": call.short, "out_sharding": spec_json(out)},
    )


def _split_one(op: list[int], new: list[int]) -> list[Any] | None:
    """How `new` splits exactly one dim of `op` (per op dim: its size, or the list of sizes it splits
    into); None when it is not such a split; raises ValueError when more than one dim would split."""
    if len(new) <= len(op):
        return None
    ones = 0
    while op and new and op[-1] == 1 and new[-1] == 1:
        ones, op, new = ones + 1, op[:-1], new[:-1]
    i = j = count = 0
    out: list[Any] = []
    while j < len(new):
        if op[i] == new[j]:
            out.append(op[i])
        else:
            count += 1
            if count > 1:
                raise ValueError
            part = [new[j]]
            nj, ni = j + 1, i + 1
            while math.prod(part) != op[i] or (nj < len(new) and new[nj] == 1):
                if math.prod(part) > op[i]:
                    return None
                if math.prod(part) == op[i] and ni < len(op) and new[nj] == op[ni]:
                    break
                j += 1
                if j >= len(new):
                    return None
                part.append(new[j])
                nj += 1
            out.append(part)
        i += 1
        j += 1
    return out + [1] * ones


def _partitions(call: Call, axes: tuple[str, ...], sizes: list[int], fail: RuleError) -> list[tuple[str, ...]]:
    """Mesh axes handed out, major first, to the dims of `sizes` (each size divisible by its axes)."""
    mesh = call.env.mesh
    rest = list(axes)
    out = []
    for o in sizes:
        mine: list[str] = []
        while o > 1 and rest:
            k = mesh.size(rest[0]) if mesh is not None else None
            if not is_int(k):
                raise Unprovable
            o, r = divmod(o, k)
            if r:
                raise fail
            mine.append(rest.pop(0))
        out.append(tuple(mine))
    if rest:
        raise Unprovable
    return out


@sharding_rule("jax.numpy.reshape")
def reshape_sharding(call: Call, result: ArrayType) -> Shd | None:
    """JAX's reshape rule: unsharded operands and moved size-1 dims are free; otherwise one dim may split
    (its axes go to the major parts) or consecutive dims may merge (only the leading ones sharded)."""
    if has_out_sharding(call):
        return out_sharding(call, len(result.shape))
    x = call.array("a")
    s = of(x)
    if s is None:
        return None
    if not any(s):
        return ((),) * len(result.shape)
    op, new = list(x.shape), list(result.shape)
    if not (all_int(op) and all_int(new)):
        raise Unprovable
    fail = _reshape_error(call, x, tuple(new))
    if [d for d in op if d != 1] == [d for d in new if d != 1]:
        it: Iterator[tuple[str, ...]] = iter(e for e, d in zip(s, op) if d != 1)
        return tuple(() if d == 1 else next(it) for d in new)
    try:
        split = _split_one(op, new)
        merge = None if split is not None else _split_one(new, op) if len(new) < len(op) else None
    except ValueError:
        raise fail from None
    out: list[tuple[str, ...]] = []
    if split is not None:
        for part, e in zip(split, s):
            if isinstance(part, list):
                out.extend([()] * len(part) if not e else _partitions(call, e, part, fail))
            else:
                out.append(e)
        return tuple(out)
    if merge is None:
        raise fail
    it = iter(s)
    for n, part in zip(new, merge):
        if not isinstance(part, list):
            out.append(next(it))
            continue
        group = [a for _ in part for a in (next(it) or (None,))]
        while group and group[-1] is None:
            group.pop()
        if not group:
            out.append(())
        elif None in group:
            raise fail
        else:
            out.extend(_partitions(call, tuple(group), [n], fail))  # type: ignore[arg-type]  # no None: raised above
    return tuple(out)


def _same_all(call: Call, name: str, what: str) -> Shd | None:
    items = call.get(name)
    if not isinstance(items, Seq):
        raise Unprovable
    ts = [as_array(v) for v in items.items]
    shds = [of(t) for t in ts]
    known = [(i, s) for i, s in enumerate(shds) if s is not None]
    for i, s in known[1:]:
        if s != known[0][1]:
            raise RuleError(
                NC801,
                f"{call.short}: all operands should have the same sharding, got {what} "
                f"{known[0][0]}: {fmt_type(ts[known[0][0]])} and {what} {i}: {fmt_type(ts[i])}",
                hint=f"reshard {what} {i} to {fmt_spec(known[0][1])} first",
            )
    return known[0][1] if known and len(known) == len(shds) else None


@sharding_rule("jax.numpy.concatenate")
def concatenate_sharding(call: Call, result: ArrayType) -> Shd | None:
    return _same_all(call, "arrays", "operand")


@sharding_rule("jax.numpy.stack")
def stack_sharding(call: Call, result: ArrayType) -> Shd | None:
    s = _same_all(call, "arrays", "operand")
    if s is None:
        return None
    axis = norm_axis(literal(call.get("axis", Const(0))), len(result.shape), call.short)
    return s[:axis] + ((),) + s[axis:]


@sharding_rule("jax.numpy.take")
def take_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A gather whose indices are sharded, or that gathers along a sharded dim, needs an out sharding."""
    x, idx = call.array("a"), as_array(call.get("indices"))
    axis = literal(call.get("axis", Const(None)))
    sx, si = of(x), of(idx)
    if not isinstance(idx, ArrayType):
        return None
    if axis is None:  # the flattened array is gathered from: it must be replicated
        if sx is not None and any(sx):
            raise RuleError(
                NC806,
                f"{call.short} with axis=None gathers from {call.label('a')} flattened, which "
                f"is sharded ({fmt_type(x)}): the gather's out sharding cannot be resolved "
                f"unambiguously",
                hint="pass axis=, or reshard the array replicated first",
            )
        x, axis = x.with_shape((None,)).with_sharding(((),)), 0
        sx = ((),) if sx is not None else None
    k = norm_axis(axis, len(x.shape), call.short)
    if (si is not None and any(si)) or (sx is not None and sx[k]):
        which = (
            f"its indices {call.label('indices')} are sharded ({fmt_type(idx)})"
            if si and any(si)
            else f"it gathers along dimension {k} of {call.label('a')}, split over {axes_desc(sx[k] if sx else ())}"
        )
        raise RuleError(
            NC806,
            f"{call.short}: the gather's out sharding cannot be resolved unambiguously: {which}",
            hint="index with x.at[ids].get(out_sharding=P(...)), or reshard the indices / operand "
            "to be unsharded there first",
        )
    if sx is None or si is None:
        return None
    return sx[:k] + si + sx[k + 1 :]


@sharding_rule("jax.numpy.pad")
def pad_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Constant padding (lax.pad) keeps the operand's sharding: each padded sharded dim must stay
    divisible by its mesh axes. Other modes slice and concatenate: Unknown unless nothing is sharded."""
    x, s = known_operand(call)
    mode = literal(call.get("mode", Const("constant")))
    if not any(s):
        return s
    if mode != "constant":
        raise Unprovable
    check_divisible_out(call, x, s, result.shape, "pads")
    return s


@sharding_rule("jax.numpy.tile")
def tile_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Tiling keeps the operand's sharding (new leading dims unsharded); a sharded dim may not be tiled."""
    x, s = known_operand(call)
    reps = literal(call.get("reps"))
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    n = max(len(reps), len(s))
    reps = (1,) * (n - len(reps)) + reps
    full = ((),) * (n - len(s)) + s
    for i, (r, e) in enumerate(zip(reps, full)):
        if e and r != 1:
            raise RuleError(
                NC821,
                f"{call.short}: dimension {i - (n - len(s))} of {call.label('A')} is split over "
                f"{axes_desc(e)} ({fmt_type(x)}) and is tiled {r} times: the operand cannot "
                f"be sharded on a dimension with non-trivial tiling",
                hint="reshard the operand so that the tiled dimension is unsharded first",
            )
    return full


@sharding_rule("jax.numpy.repeat")
def repeat_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Repeating along a sharded dimension (or flattening a sharded array, axis=None) needs out_sharding=."""
    if has_out_sharding(call):
        return out_sharding(call, len(result.shape))
    x, s = known_operand(call)
    axis = literal_arg(call, "axis", None)
    if axis is None:
        if any(s):
            raise RuleError(
                NC821,
                f"{call.short} with axis=None flattens {call.label('a')}, which is sharded "
                f"({fmt_type(x)}): pass the result's sharding via out_sharding=",
                hint="pass out_sharding=P(...) to jnp.repeat, or reshard the operand first",
            )
        return ((),)
    i = norm_axis(axis, len(s), call.short)
    if s[i]:
        raise RuleError(
            NC821,
            f"{call.short} repeats dimension {i} of {call.label('a')}, which is split over "
            f"{axes_desc(s[i])} ({fmt_type(x)}): pass the result's sharding via out_sharding=",
            hint="pass out_sharding=P(...) to jnp.repeat, or reshard the operand so that dimension "
            f"{i} is unsharded first",
        )
    return s


def _axes(v: Any, rank: int, short: str) -> list[int]:
    items = v if isinstance(v, tuple) else (v,)
    return [norm_axis(a, rank, short) for a in items]


@sharding_rule("jax.numpy.moveaxis")
def moveaxis_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A permutation: each dim keeps its mesh axes."""
    _, s = known_sharding(call, "a")
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
    x, s = known_sharding(call, "array")
    lead = len(result.shape) - len(s)
    if lead < 0:
        raise Unprovable
    return ((),) * lead + tuple(() if d == 1 and n != 1 else e for d, n, e in zip(x.shape, result.shape[lead:], s))


@sharding_rule("jax.numpy.split", "jax.numpy.array_split")
def split_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Every part keeps the operand's sharding: along a sharded dim each part's length must be divisible
    by its mesh axes (NC822)."""
    x, s = known_sharding(call, "ary")
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
            check_divisible_out(call, x, s, x.shape[:i] + (part,) + x.shape[i + 1 :], "splits")
    return s


@sharding_rule("jax.numpy.take_along_axis")
def take_along_axis_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A gather along `axis`: that dim of arr must be unsharded (NC806); the other dims take arr's or the
    indices' mesh axes (both: they must agree, else Unknown); the gathered dim is unsharded."""
    x, s = known_sharding(call, "arr")
    axis = literal(call.get("axis"))
    if axis is None:
        raise Unprovable
    i = norm_axis(axis, len(s), call.short)
    if s[i]:
        raise RuleError(
            NC806,
            f"{call.short}: the gather's out sharding cannot be resolved unambiguously: it gathers "
            f"along dimension {i} of {call.label('arr')}, split over {axes_desc(s[i])} "
            f"({fmt_type(x)})",
            hint="reshard the array so that the gathered dimension is unsharded first",
        )
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


sharding_rule("jax.numpy.ravel")(reshape_sharding)  # a reshape to one dim


sharding_rule("jax.numpy.tril", "jax.numpy.triu")(keep_sharding)  # masks keep the operand's sharding


@rule("jax.image.resize")
def image_resize_rule(call: Call) -> Any:
    """`jax.image.resize(image, shape, method)`: an array of `shape` in the image's dtype; `shape` has one size
    per dimension of the image (NC203 otherwise, as JAX raises)."""
    x = call.array("image")
    shape = shape_arg(call.get("shape"), unknown_items=True)
    if x.has_ellipsis or x.named:
        raise Unprovable
    if len(shape) != len(x.shape):
        raise RuleError(
            NC203,
            f"{call.short}: shape {fmt_shape(shape)} has {len(shape)} sizes for an image of {len(x.shape)} "
            f"dimensions {fmt_shape(x.shape)}",
            "give one output size per dimension of the image, the batch and channel sizes too",
        )
    return ArrayType.make(x.dtype_code, shape)
