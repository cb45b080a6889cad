"""JAX's sharding rules for ops along one dimension (the sibling of sharding_rules.py): cumulative
reductions, sort / argsort / top_k / median, lax and nan- reductions, vector norms, pad, tile and repeat,
indexing (`x[...]`) and index updates (`x.at[...]`).

Over Explicit mesh axes: a cumulative reduction, a sort or top_k along a sharded dimension is rejected
(NC821); tiling or repeating a sharded dimension needs `out_sharding=` (NC821); a pad or a slice whose
result dimension is no longer divisible by its mesh axes is rejected (NC822); outside any trace a static
index or partial slice of a sharded dimension is a gather (NC806), and so is an integer-array index or an
`.at[...]` update of part of one, eager or traced. Each fact was checked against the
installed JAX (jax/_src/lax/control_flow/loops.py `_cumred_sharding_rule`, lax.py `_sort_abstract_eval`,
`_pad_sharding_rule`, slicing.py `_get_sharding_for_varying_out_shape`, `_gather_sharding_rule`).
"""

from __future__ import annotations

from typing import Any

from namedcheck.engine.algebra import is_int, norm_axis
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Unprovable
from namedcheck.engine.ops.sharding_rules import (
    Shd,
    _axes_desc,
    fmt_spec,
    has_out_sharding,
    out_sharding,
    reduce_sharding,
    sharding_rule,
)
from namedcheck.engine.sharding import fmt_type, of, split_size
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import ArrayType, Const, DimVal, Seq, literal

_UNSHARD_HINT = "jax.sharding.reshard the operand so that dimension {i} is unsharded first: reshard({x}, {spec})"


def _along(call: Call, x: ArrayType, s: Shd, i: int, what: str) -> None:
    """NC821: an op that runs along dimension i needs it unsharded."""
    if s[i]:
        unsharded = s[:i] + ((),) + s[i + 1:]
        raise RuleError("NC821", f"{call.short} {what} dimension {i} of {call.label(_first(call))}, which is split over "
                                 f"{_axes_desc(s[i])} ({fmt_type(x)}): the operand must be unsharded along it",
                        hint=_UNSHARD_HINT.format(i=i, x=call.label(_first(call)).strip("`"), spec=fmt_spec(unsharded)))


def _replicated(call: Call, x: ArrayType, s: Shd, what: str) -> None:
    """NC821: an op over the flattened array (axis=None) needs a fully replicated operand."""
    if any(s):
        raise RuleError("NC821", f"{call.short} with axis=None {what} {call.label(_first(call))} flattened, which is "
                                 f"sharded ({fmt_type(x)}): the operand must be fully replicated",
                        hint=f"pass axis= (an unsharded dimension), or reshard the operand to "
                             f"{fmt_spec(((),) * len(s))} first")


def _first(call: Call) -> str:
    return next(iter(call.args))


def _operand(call: Call) -> tuple[ArrayType, Shd]:
    x = call.array(_first(call))
    s = of(x)
    if s is None:
        raise Unprovable
    return x, s


def _axis(call: Call, name: str, default: Any) -> Any:
    return literal(call.get(name, Const(default)))


# ---- cumulative reductions, sorts, top_k -------------------------------------------------------------

@sharding_rule("jax.numpy.cumsum", "jax.numpy.cumprod", "jax.lax.cumsum", "jax.lax.cumprod", "jax.lax.cummax",
               "jax.lax.cummin", "jax.lax.cumlogsumexp")
def cumulative_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A cumulative reduction keeps its operand's sharding; the accumulated dimension must be unsharded
    (jnp's axis=None flattens a fully replicated operand)."""
    x, s = _operand(call)
    lax = call.op.startswith("jax.lax.")
    axis = _axis(call, "axis", 0 if lax else None)
    if axis is None:
        _replicated(call, x, s, "accumulates")
        return ((),)
    i = norm_axis(axis, len(s), call.short)
    _along(call, x, s, i, "accumulates along")
    return s


@sharding_rule("jax.numpy.sort", "jax.numpy.argsort", "jax.lax.sort")
def sort_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Sorting keeps the operand's sharding; the sorted dimension must be unsharded."""
    if call.op == "jax.lax.sort" and isinstance(call.args.get("operand"), Seq):
        return _sort_together(call)
    x, s = _operand(call)
    if call.op == "jax.lax.sort":
        if literal(call.get("num_keys", Const(1))) != 1:
            raise Unprovable
        axis = _axis(call, "dimension", -1)
    else:
        axis = _axis(call, "axis", -1)
    if axis is None:
        _replicated(call, x, s, "sorts")
        return ((),)
    i = norm_axis(axis, len(s), call.short)
    _along(call, x, s, i, "sorts along")
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
            raise RuleError("NC801", f"{call.short} got operands of different shardings: operand 0 is "
                                     f"{fmt_type(first)} and operand {j} {fmt_type(items[j])}; JAX sorts only "
                                     f"equally sharded operands together",
                            hint=f"jax.sharding.reshard operand {j} to {fmt_spec(s)} first")
    i = norm_axis(_axis(call, "dimension", -1), len(s), call.short)
    _along(call, first, s, i, "sorts along")
    return s


@sharding_rule("jax.lax.top_k")
def top_k_sharding(call: Call, result: ArrayType) -> Shd | None:
    x, s = _operand(call)
    i = norm_axis(_axis(call, "axis", -1), len(s), call.short)
    _along(call, x, s, i, "selects along")
    return s


@sharding_rule("jax.lax.reduce_sum", "jax.lax.reduce_max", "jax.lax.reduce_min", "jax.lax.reduce_prod")
def lax_reduce_sharding(call: Call, result: ArrayType) -> Shd | None:
    """lax.reduce_*: the reduced dims drop out with their mesh axes."""
    _, s = _operand(call)
    axes = {norm_axis(a, len(s), call.short) for a in literal(call.get("axes"))}
    return tuple(e for i, e in enumerate(s) if i not in axes)


@sharding_rule("jax.numpy.nansum", "jax.numpy.nanmean", "jax.numpy.nanmax", "jax.numpy.nanmin",
               "jax.numpy.count_nonzero", "jax.nn.logsumexp")
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
    x, s = _operand(call)
    axis = _axis(call, "axis", None)
    if axis is None:
        _replicated(call, x, s, "sorts")
    elif isinstance(axis, int):
        _along(call, x, s, norm_axis(axis, len(s), call.short), "sorts along")
    else:
        raise Unprovable
    return reduce_sharding(call, result)


@sharding_rule("jax.numpy.linalg.norm")
def norm_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A vector norm (an int axis, default ord) reduces that axis away."""
    _, s = _operand(call)
    axis = _axis(call, "axis", None)
    if literal(call.get("ord", Const(None))) is not None or not isinstance(axis, int):
        raise Unprovable
    i = norm_axis(axis, len(s), call.short)
    keep = bool(literal(call.get("keepdims", Const(False))))
    return tuple(() if j == i else e for j, e in enumerate(s) if keep or j != i)


# ---- pad, tile, repeat ---------------------------------------------------------------------------------

def check_divisible_out(call: Call, x: ArrayType, s: Shd, out_shape: tuple[Any, ...], what: str,
                        op: str | None = None, note: str = "") -> None:
    """NC822: JAX keeps the operand's sharding when an op changes a dimension's size (pad, slice), and
    rejects a sharded dimension whose new size its mesh axes do not divide."""
    mesh = call.env.mesh
    if mesh is None:
        raise Unprovable
    for i, (d, o, e) in enumerate(zip(x.shape, out_shape, s)):
        if not e or d == o:
            continue
        k = split_size(e, mesh)
        if not (is_int(k) and is_int(o)):
            raise Unprovable
        if o % k:
            raise RuleError("NC822", f"{op or call.short}: {what} dimension {i} of {call.label(_first(call))} "
                                     f"({fmt_type(x)}) to size {o}, which its {k} devices of {_axes_desc(e)} do "
                                     f"not divide: JAX keeps the operand's sharding and does not implement an "
                                     f"uneven one{note}",
                            hint=f"keep dimension {i} a multiple of {k}, or reshard it unsharded first")


@sharding_rule("jax.numpy.pad")
def pad_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Constant padding (lax.pad) keeps the operand's sharding: each padded sharded dim must stay
    divisible by its mesh axes. Other modes slice and concatenate: Unknown unless nothing is sharded."""
    x, s = _operand(call)
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
    x, s = _operand(call)
    reps = literal(call.get("reps"))
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    n = max(len(reps), len(s))
    reps = (1,) * (n - len(reps)) + reps
    full = ((),) * (n - len(s)) + s
    for i, (r, e) in enumerate(zip(reps, full)):
        if e and r != 1:
            raise RuleError("NC821", f"{call.short}: dimension {i - (n - len(s))} of {call.label('A')} is split over "
                                     f"{_axes_desc(e)} ({fmt_type(x)}) and is tiled {r} times: the operand cannot "
                                     f"be sharded on a dimension with non-trivial tiling",
                            hint="reshard the operand so that the tiled dimension is unsharded first")
    return full


@sharding_rule("jax.numpy.repeat")
def repeat_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Repeating along a sharded dimension (or flattening a sharded array, axis=None) needs out_sharding=."""
    if has_out_sharding(call):
        return out_sharding(call, len(result.shape))
    x, s = _operand(call)
    axis = _axis(call, "axis", None)
    if axis is None:
        if any(s):
            raise RuleError("NC821", f"{call.short} with axis=None flattens {call.label('a')}, which is sharded "
                                     f"({fmt_type(x)}): pass the result's sharding via out_sharding=",
                            hint="pass out_sharding=P(...) to jnp.repeat, or reshard the operand first")
        return ((),)
    i = norm_axis(axis, len(s), call.short)
    if s[i]:
        raise RuleError("NC821", f"{call.short} repeats dimension {i} of {call.label('a')}, which is split over "
                                 f"{_axes_desc(s[i])} ({fmt_type(x)}): pass the result's sharding via out_sharding=",
                        hint="pass out_sharding=P(...) to jnp.repeat, or reshard the operand so that dimension "
                             f"{i} is unsharded first")
    return s


# ---- indexing -----------------------------------------------------------------------------------

def _full(sl: slice, d: Any) -> bool:
    """A slice that keeps the whole dimension in order (`:`, `:8` or `-8:` of 8) or reverses it (`::-1`,
    `7::-1` of 8)."""
    if not is_int(d):
        return sl.start is None and sl.stop is None and sl.step in (None, 1, -1)
    if sl.step == 0 or any(b is not None and not is_int(b) for b in (sl.start, sl.stop, sl.step)):
        raise Unprovable  # a zero step or a bound not an int (a symbol; Python raises for others)
    start, stop, step = sl.indices(d)
    return (step == 1 and start == 0 and stop == d) or (step == -1 and start == d - 1 and stop == -1)


@sharding_rule("operator.getitem")
def getitem_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Static indexing: ints, slices, None and `...` (arrays as indices: Unknown). An unsharded dim may be
    indexed freely; a sharded one kept whole (`:`, `::-1`) keeps its mesh axes. Indexing a sharded dim
    otherwise is, outside any trace, a gather JAX cannot shard (NC806); under jit a slice whose length its
    mesh axes do not divide (an int index: length 1) is rejected (NC822), a divisible one keeps the axes.
    Reported where certain: the gather only for module-level code, the uneven slice everywhere."""
    return _index_sharding(call, "b")


@sharding_rule("jax.numpy.ndarray.at.get")
def at_get_sharding(call: Call, result: ArrayType) -> Shd | None:
    """`x.at[idx].get()`: as `x[idx]`, or the `out_sharding=` given."""
    if has_out_sharding(call):
        return out_sharding(call, len(result.shape))
    return _index_sharding(call, "index")


def _index_sharding(call: Call, index: str) -> Shd | None:
    x, s = _operand(call)
    idx = call.get(index)
    items = list(idx.items) if isinstance(idx, Seq) and idx.kind == "tuple" else [idx]
    arrays = [i for i in items if isinstance(i, ArrayType)]
    if not all(isinstance(i, Const) and (i.value is None or i.value is ... or isinstance(i.value, slice)
                                         or is_int(i.value)) or isinstance(i, DimVal) for i in items
               if not isinstance(i, ArrayType)):
        raise Unprovable
    if arrays:
        return _array_index(call, x, s, items, arrays)
    n_used = sum(1 for i in items if not (isinstance(i, Const) and (i.value is None or i.value is ...)))
    out: list[tuple[str, ...]] = []
    touched: list[tuple[int, Any]] = []  # (operand dim, result length) of sharded dims indexed partially
    dim = 0
    for it in items:
        v = it.value if isinstance(it, Const) else it
        if v is ...:
            k = len(s) - n_used
            out.extend(s[dim:dim + k])
            dim += k
        elif v is None:
            out.append(())
        elif isinstance(v, slice):
            if any(b is not None and not is_int(b) for b in (v.start, v.stop, v.step)):
                if s[dim]:
                    raise Unprovable
                out.append(())
            elif _full(v, x.shape[dim]):
                out.append(s[dim])
            else:
                out.append(s[dim])
                if s[dim]:
                    touched.append((dim, len(range(*v.indices(x.shape[dim]))) if is_int(x.shape[dim]) else None))  # type: ignore[arg-type]  # an int
            dim += 1
        else:  # an int (or a static size) drops the dim
            if s[dim]:
                touched.append((dim, 1))
            dim += 1
    out.extend(s[dim:])
    if not touched:
        return tuple(out)
    if call.env.eager:
        d = touched[0][0]
        raise RuleError("NC806", f"indexing {call.label('a')} ({fmt_type(x)}) slices dimension {d}, which is split "
                                 f"over {_axes_desc(s[d])}: outside jit this is a gather whose out sharding cannot "
                                 f"be resolved unambiguously",
                        hint="use x.at[...].get(out_sharding=P(...)), index inside jax.jit, or reshard the "
                             "dimension unsharded first")
    lengths = list(x.shape)
    for d, n in touched:
        lengths[d] = n
    check_divisible_out(call, x, s, tuple(lengths), "indexing slices", op="indexing",
                        note=" (outside jit the index is a gather, which fails as well)")
    return tuple(out)


def _array_index(call: Call, x: ArrayType, s: Shd, items: list[Any], arrays: list[ArrayType]) -> Shd:
    """One integer array among whole slices, None and `...` (`x[:, ids]`): a gather. Along a sharded dim
    it cannot resolve its out sharding, under jit too (NC806); along an unsharded one the result has the
    index array's dims (replicated indices only) where it stands."""
    ids = arrays[0]
    si = of(ids)
    if len(arrays) > 1 or ids.dtype_code in (None, "bool_") or ids.has_ellipsis:
        raise Unprovable
    n_used = sum(1 for i in items if not (isinstance(i, Const) and (i.value is None or i.value is ...)))
    out: list[tuple[str, ...]] = []
    dim = 0
    for it in items:
        if it is ids:
            if s[dim]:
                raise RuleError("NC806", f"indexing {call.label('a')} ({fmt_type(x)}) with an integer array gathers "
                                         f"along dimension {dim}, which is split over {_axes_desc(s[dim])}: the "
                                         f"gather's out sharding cannot be resolved unambiguously",
                                hint="use x.at[ids].get(out_sharding=P(...)), or reshard the dimension unsharded "
                                     "first")
            if si is None or any(si):
                raise Unprovable
            out.extend(si)
            dim += 1
            continue
        v = it.value if isinstance(it, Const) else it
        if v is ...:
            k = len(s) - n_used
            out.extend(s[dim:dim + k])
            dim += k
        elif v is None:
            out.append(())
        elif isinstance(v, slice) and v == slice(None):
            out.append(s[dim])
            dim += 1
        else:
            raise Unprovable  # ints and partial slices beside an array index: not modelled
    return tuple(out + list(s[dim:]))


@sharding_rule("jax.numpy.ndarray.at.apply")
def at_apply_sharding(call: Call, result: ArrayType) -> Shd | None:
    """`x.at[idx].apply(func)` (scatter_apply, which takes no out_sharding=): JAX resolves its out sharding
    only for a fully replicated x; any sharded dimension, whatever the index, is NC806 (eager or jit)."""
    x, s = _operand(call)
    for dim, e in enumerate(s):
        if e:
            raise RuleError("NC806", f"{call.label('a')}.at[...].apply: the scatter's out sharding cannot be resolved "
                                     f"unambiguously: {call.label('a')} ({fmt_type(x)}) has dimension {dim} split over "
                                     f"{_axes_desc(e)}, and apply takes no out_sharding=",
                            hint="jax.sharding.reshard the array to P() (fully replicated) before the update, "
                                 "and back after it")
    return s


@sharding_rule(*[f"jax.numpy.ndarray.at.{m}" for m in ("set", "add", "subtract", "multiply", "mul", "divide", "div",
                                                         "power", "min", "max")])
def at_update_sharding(call: Call, result: ArrayType) -> Shd | None:
    """`x.at[idx].set(v)` (a scatter) keeps x's sharding. It cannot resolve its out sharding when it updates
    part of a sharded dimension (an int, array or partial slice index; `::-1` too), eager or under jit
    (NC806), unless `out_sharding=` is given. The values are broadcast to the updated slice with x's
    sharding: each of their dims must be unsharded or split like the slice's (NC801)."""
    if has_out_sharding(call):
        return out_sharding(call, len(result.shape))
    x, s = _operand(call)
    idx = call.get("index")
    items = list(idx.items) if isinstance(idx, Seq) and idx.kind == "tuple" else [idx]
    for it in items:
        if not (isinstance(it, (ArrayType, DimVal)) or
                (isinstance(it, Const) and (it.value is ... or isinstance(it.value, slice) or is_int(it.value)))):
            raise Unprovable  # None, booleans, unknown values: not modelled
    n_used = len(items) - sum(1 for i in items if isinstance(i, Const) and i.value is ...)
    if n_used > len(s) or len(s) != len(x.shape):
        raise Unprovable  # too many indices: JAX raises IndexError
    slice_shd: list[tuple[str, ...]] | None = []
    dim = 0
    for it in items:
        v = it.value if isinstance(it, Const) else it
        if v is ...:
            k = len(s) - n_used
            if slice_shd is not None:
                slice_shd.extend(s[dim:dim + k])
            dim += k
            continue
        whole = isinstance(v, slice) and v.step in (None, 1) and _full(v, x.shape[dim])
        if s[dim] and not whole:
            what = "an integer array" if isinstance(v, ArrayType) else "a slice" if isinstance(v, slice) else \
                "an index"
            raise RuleError("NC806", f"{call.label('a')}.at[...].{call.op.rsplit('.', 1)[1]}: the scatter's out "
                                     f"sharding cannot be resolved unambiguously: it updates dimension {dim} of "
                                     f"{call.label('a')} ({fmt_type(x)}) at {what}, and that dimension is split over "
                                     f"{_axes_desc(s[dim])}",
                            hint=f"pass out_sharding=P(...) to .{call.op.rsplit('.', 1)[1]}(...), or reshard the "
                                 f"array so that dimension {dim} is unsharded first")
        if isinstance(v, ArrayType):
            slice_shd = None  # where the index array's dims go: not modelled
        elif isinstance(v, slice) and slice_shd is not None:
            slice_shd.append(s[dim])
        dim += 1
    if slice_shd is not None:
        slice_shd.extend(s[dim:])
    _check_values(call, x, slice_shd)
    return s


def _check_values(call: Call, x: ArrayType, slice_shd: list[tuple[str, ...]] | None) -> None:
    """NC801: values split over a mesh axis where the updated slice of x is not split over it."""
    v = as_array(call.get("values"))
    if not isinstance(v, ArrayType):
        raise Unprovable
    sv = of(v)
    if sv is None or (any(sv) and slice_shd is None) or len(sv) > len(slice_shd or ()):
        if sv is not None and not any(sv):
            return
        raise Unprovable
    want = slice_shd[len(slice_shd) - len(sv):] if slice_shd else []
    for i, (e, w) in enumerate(zip(sv, want)):
        if e and e != w:
            raise RuleError("NC801", f"{call.label('a')}.at[...].{call.op.rsplit('.', 1)[1]}: the values "
                                     f"{call.label('values')} ({fmt_type(v)}) split dimension {i} over "
                                     f"{_axes_desc(e)}, but the updated slice of {call.label('a')} ({fmt_type(x)}) "
                                     f"is split {'over ' + _axes_desc(w) if w else 'over no mesh axis'} there",
                            hint="reshard the values to the updated slice's sharding, or pass them unsharded")


__all__ = ["check_divisible_out"]
