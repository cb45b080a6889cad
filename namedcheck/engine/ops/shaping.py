"""Shape manipulation: reshape, transpose, swapaxes, moveaxis, expand_dims, squeeze, concatenate,
stack, broadcast_to, ravel. Named axes pass through untouched (or are unioned when joining values)."""

from __future__ import annotations

from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.algebra import broadcast_dim, differ, fmt_shape, is_int, norm_axis, num_elements, union_named
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Unprovable, rule
from namedcheck.engine.ops.reductions import reduced_dtype
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import ArrayType, Const, DimVal, Seq, dim_of, literal, one_or_many


def positional(call: Call, name: str) -> ArrayType:
    x = call.array(name)
    if x.has_ellipsis:
        raise Unprovable
    return x


def shape_arg(v: Any) -> tuple[Any, ...]:
    """A shape argument (int or sequence of ints / DimVals) as a tuple of dims."""
    if isinstance(v, (Const, DimVal)):
        return (dim_of(v),)
    if isinstance(v, Seq):
        return tuple(dim_of(i) for i in v.items)
    raise Unprovable


@rule("jax.numpy.reshape")
def reshape_rule(call: Call) -> Any:
    x = positional(call, "a")
    new = shape_arg(call.get("shape", None) or call.get("newshape"))
    if sum(1 for d in new if d == -1) > 1:
        raise RuleError("NC203", f"{call.short} to {fmt_shape(new)}: only one dimension may be -1")
    for d in new:
        if is_int(d) and d < -1:
            raise RuleError("NC203", f"{call.short} to {fmt_shape(new)}: negative size {d}")
    total = num_elements(x.shape)
    known = num_elements([d for d in new if d != -1])
    if -1 in new:
        if total is not None and known is not None:
            if known == 0 or total % known:
                raise RuleError("NC203", f"Cannot {call.short} {fmt_shape(x.shape)} ({total} elements) to "
                                         f"{fmt_shape(new)}: {total} is not divisible by {known}")
            new = tuple(total // known if d == -1 else d for d in new)
        else:
            new = tuple(None if d == -1 else d for d in new)
    elif total is not None and known is not None and total != known:
        raise RuleError("NC203", f"Cannot {call.short} {fmt_shape(x.shape)} ({total} elements) to "
                                 f"{fmt_shape(new)} ({known} elements)",
                        hint="the element counts must match; use -1 for one inferred dimension")
    return x.with_shape(new)


@rule("jax.numpy.ravel")
def ravel_rule(call: Call) -> Any:
    x = positional(call, "a")
    return x.with_shape((num_elements(x.shape),))


@rule("jax.numpy.transpose", "jax.numpy.permute_dims")
def transpose_rule(call: Call) -> Any:
    x = positional(call, "a")
    axes = literal(call.get("axes", Const(None)))
    nd = len(x.shape)
    if axes is None:
        return x.with_shape(tuple(reversed(x.shape)))
    axes = one_or_many(axes)
    if len(axes) != nd:
        raise RuleError("NC701", f"{call.short} axes {axes!r} have {len(axes)} entries for a value with {nd} "
                                 f"positional dimensions {fmt_shape(x.shape)}")
    norm = [norm_axis(a, nd, call.short) for a in axes]
    if len(set(norm)) != nd:
        raise RuleError("NC701", f"{call.short} axes {axes!r} are not a permutation of 0..{nd - 1}")
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
        raise RuleError("NC701", f"{call.short}: {len(src)} source axes but {len(dst)} destination axes")
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
    x = positional(call, "a" if "a" in call.args else "array")
    axis = literal(call.get("axis", None) or call.get("dimensions"))
    axes = one_or_many(axis)
    nd = len(x.shape) + len(axes)
    norm = sorted(norm_axis(a, nd, call.short) for a in axes)
    if len(set(norm)) != len(norm):
        raise RuleError("NC701", f"{call.short}: axis {axis!r} is repeated")
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
        if any(not is_int(d) for d in x.shape):
            raise Unprovable
        return x.with_shape(tuple(d for d in x.shape if d != 1))
    axes = {norm_axis(a, nd, call.short) for a in one_or_many(axis)}
    for a in axes:
        if is_int(x.shape[a]) and x.shape[a] != 1:
            raise RuleError("NC203", f"{call.short} of axis {a} which has size {x.shape[a]}, not 1 "
                                     f"(shape {fmt_shape(x.shape)})")
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
        return ArrayType.make(_join_meta(call, ts)[0], (sum_dims([num_elements(t.shape) for t in ts]),),
                              _join_meta(call, ts)[1])
    nd = len(ts[0].shape)
    if nd == 0:
        raise RuleError("NC203", f"{call.short} of zero-dimensional arrays; use stack")
    for i, t in enumerate(ts[1:], 1):
        if len(t.shape) != nd:
            raise RuleError("NC203", f"{call.short}: array {i} has {len(t.shape)} dimensions {fmt_shape(t.shape)}, "
                                     f"array 0 has {nd} {fmt_shape(ts[0].shape)}")
    ax = norm_axis(axis, nd, call.short)
    shape = list(ts[0].shape)
    for i, t in enumerate(ts[1:], 1):
        for k in range(nd):
            if k != ax and differ(shape[k], t.shape[k]):
                raise RuleError("NC203", f"{call.short} along axis {axis}: dimension {k} of array {i} is "
                                         f"{t.shape[k]} but {shape[k]} in array 0 ({fmt_shape(t.shape)} vs "
                                         f"{fmt_shape(ts[0].shape)})")
    shape[ax] = sum_dims([t.shape[ax] for t in ts])
    dt, named = _join_meta(call, ts)
    return ArrayType.make(dt, tuple(shape), named)


def sum_dims(ds: list[Any]) -> Any:
    return sum(ds) if all(is_int(d) for d in ds) else None


@rule("jax.numpy.stack")
def stack_rule(call: Call) -> Any:
    ts = _array_list(call, "arrays")
    axis = literal(call.get("axis", Const(0)))
    first = ts[0].shape
    for i, t in enumerate(ts[1:], 1):
        if len(t.shape) != len(first) or any(differ(a, b) for a, b in zip(first, t.shape)):
            raise RuleError("NC203", f"{call.short}: array {i} has shape {fmt_shape(t.shape)} but array 0 has "
                                     f"{fmt_shape(first)}; stacked arrays must have one shape")
    ax = norm_axis(axis, len(first) + 1, call.short)
    dt, named = _join_meta(call, ts)
    return ArrayType.make(dt, first[:ax] + (len(ts),) + first[ax:], named)


@rule("jax.numpy.broadcast_to")
def broadcast_to_rule(call: Call) -> Any:
    x = positional(call, "array")
    target = shape_arg(call.get("shape"))
    if len(x.shape) > len(target):
        raise RuleError("NC201", f"Cannot broadcast {fmt_shape(x.shape)} to {fmt_shape(target)}: the target "
                                 f"has fewer dimensions")
    for i in range(1, len(x.shape) + 1):
        d, t = x.shape[-i], target[-i]
        try:
            b = broadcast_dim(d, t)
        except ValueError:
            b = None
        if d != 1 and differ(d, t) or (b is None and is_int(d) and is_int(t)):
            raise RuleError("NC201", f"Cannot broadcast {fmt_shape(x.shape)} to {fmt_shape(target)}: dimension "
                                     f"{-i} is {d}, target {t}")
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
        if not is_int(d):
            sizes: list[Any] = [None] * how
        elif call.op.endswith("array_split"):
            sizes = [d // how + (1 if i < d % how else 0) for i in range(how)]
        elif d % how:
            raise RuleError("NC203", f"{call.short} of dimension {axis} (size {d}) into {how} equal sections: "
                                     f"{d} is not divisible by {how}", hint="use jnp.array_split for unequal sections")
        else:
            sizes = [d // how] * how
    elif isinstance(how, tuple) and all(is_int(i) for i in how) and is_int(d):
        bounds = [0, *how, d]
        sizes = [max(0, min(b, d) - min(a, d)) for a, b in zip(bounds, bounds[1:])]
    else:
        raise Unprovable
    parts = tuple(x.with_shape(x.shape[:axis] + (s,) + x.shape[axis + 1:]) for s in sizes)
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
            raise RuleError("NC201", f"{call.short}: dimension {i} is {dx} in the array and {di} in the indices "
                                     f"({fmt_shape(x.shape)} vs {fmt_shape(idx.shape)})") from None
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
    return x.with_shape(tuple(d * r if is_int(d) else None for d, r in zip(shape, reps)))


@rule("jax.numpy.repeat")
def repeat_rule(call: Call) -> Any:
    x = positional(call, "a")
    reps = literal(call.get("repeats"))
    axis = literal(call.get("axis", Const(None)))
    if not is_int(reps):
        raise Unprovable
    if axis is None:
        n = num_elements(x.shape)
        return x.with_shape((n * reps if n is not None else None,))
    i = norm_axis(axis, len(x.shape), call.short)
    d = x.shape[i]
    return x.with_shape(x.shape[:i] + (d * reps if is_int(d) else None,) + x.shape[i + 1:])


@rule("jax.numpy.pad")
def pad_rule(call: Call) -> Any:
    x = positional(call, "array")
    pairs = _pad_pairs(literal(call.get("pad_width")), len(x.shape), call.short)
    return x.with_shape(tuple(d + a + b if is_int(d) else None for d, (a, b) in zip(x.shape, pairs)))


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
    raise RuleError("NC203", f"{short}: pad_width of shape {shape} for an array of {nd} dimension"
                             f"{'s' if nd != 1 else ''}; expected one of {(nd, 2)}, (1, 2), (2,), (1,) or ()")


@rule("jax.numpy.tril", "jax.numpy.triu")
def tri_rule(call: Call) -> Any:
    x = call.array("m")
    if not x.has_ellipsis and len(x.shape) < 2:
        raise RuleError("NC203", f"{call.short} needs an array of at least 2 dimensions; found "
                                 f"{fmt_shape(x.shape)}")
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
    return ArrayType.make(x.dtype_code, x.shape[:i] + idx.shape + x.shape[i + 1:], union_named([x, idx]))


@rule("jax.numpy.diagonal", "jax.numpy.trace")
def diagonal_rule(call: Call) -> Any:
    x = positional(call, "a")
    if literal(call.get("offset", Const(0))) != 0 or len(x.shape) < 2:
        raise Unprovable
    i = norm_axis(literal(call.get("axis1", Const(0))), len(x.shape), call.short)
    j = norm_axis(literal(call.get("axis2", Const(1))), len(x.shape), call.short)
    if i == j:
        raise RuleError("NC701", f"{call.short}: axis1 and axis2 are both {i}")
    rest = tuple(d for k, d in enumerate(x.shape) if k not in (i, j))
    di, dj = x.shape[i], x.shape[j]
    n = min(di, dj) if is_int(di) and is_int(dj) else (di if di == dj else None)
    if call.op.endswith("trace"):
        return ArrayType.make(reduced_dtype(x.dtype_code, "int"), rest, x.named_shape)
    return x.with_shape(rest + (n,))
