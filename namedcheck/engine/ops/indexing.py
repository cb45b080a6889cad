"""Basic indexing (`x[...]`): ints, slices, None, `...`, and one integer-array index.
Their sharding rules over Explicit mesh axes (`@sharding_rule`) follow the shape rules."""

from __future__ import annotations

from typing import Any

from namedcheck.engine.algebra import fmt_shape, is_int, union_named
from namedcheck.engine.codes import NC203, NC801, NC806
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Shd, Unprovable, rule, sharding_rule
from namedcheck.engine.ops.sharding_common import (
    axes_desc,
    check_divisible_out,
    has_out_sharding,
    known_operand,
    out_sharding,
)
from namedcheck.engine.placement import fmt_type, of
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import ArrayType, Const, DimVal, Seq


def _slice_len(s: slice, d: Any) -> Any:
    if not is_int(d):
        if s.start is None and s.stop is None and s.step in (None, 1):
            return d
        return None
    if any(v is not None and not is_int(v) for v in (s.start, s.stop, s.step)) or s.step == 0:
        return None
    return len(range(*s.indices(d)))


def index_type(x: ArrayType, idx: Any, label: str = "the value") -> Any:
    """The type of `x[idx]` for an engine value idx (NC203 for out-of-bounds or too many indices)."""
    items = list(idx.items) if isinstance(idx, Seq) and idx.kind == "tuple" else [idx]
    for i in items:
        if isinstance(i, Const) and isinstance(i.value, str) and x.dtype_code is not None:
            # only numpy's structured arrays take field names, and their dtype is never one of ours
            raise RuleError(
                NC203,
                f"{label[:1].upper()}{label[1:]} is an array ({x}), which cannot be indexed by the string {i.value!r}",
                hint="a dict (of parameters?) was expected here: check the order of the arguments "
                "that brought this array",
            )
    if x.has_ellipsis:
        raise Unprovable
    for i in items:  # field names (structured arrays), booleans, unknown values: not modelled
        if isinstance(i, Const):
            if not (i.value is None or i.value is ... or isinstance(i.value, slice) or is_int(i.value)):
                raise Unprovable
        elif isinstance(i, ArrayType) and i.dtype_code in ("bool_", None):
            raise Unprovable  # boolean masks: data-dependent shapes
        elif not isinstance(i, (DimVal, ArrayType, Seq)):
            raise Unprovable
    consumed = sum(1 for i in items if not (isinstance(i, Const) and (i.value is None or i.value is ...)))
    nd = len(x.shape)
    if consumed > nd:
        raise RuleError(
            NC203,
            f"Too many indices for {label}: {consumed} indices for {nd} positional "
            f"dimension{'s' if nd != 1 else ''} {fmt_shape(x.shape)}",
        )
    if sum(1 for i in items if isinstance(i, Const) and i.value is ...) > 1:
        raise Unprovable
    out: list[Any] = []
    named = x.named_shape
    arrays: list[ArrayType] = []
    dim = 0
    for _pos, it in enumerate(items):
        v = it.value if isinstance(it, Const) else None
        if isinstance(it, Const) and v is ...:
            n = nd - consumed
            out.extend(x.shape[dim : dim + n])
            dim += n
        elif isinstance(it, Const) and v is None:
            out.append(1)
        elif isinstance(it, Const) and isinstance(v, slice):
            out.append(_slice_len(v, x.shape[dim]))
            dim += 1
        elif (isinstance(it, Const) and is_int(v)) or isinstance(it, DimVal):
            dim += 1  # an out-of-bounds int is clamped by JAX (never raised), so it is not checked
        else:
            t = as_array(it)
            if not isinstance(t, ArrayType) or t.has_ellipsis or t.dtype_code in ("bool_", None) or arrays:
                raise Unprovable
            arrays.append(t)
            out.extend(t.shape)
            dim += 1
    out.extend(x.shape[dim:])
    if arrays:
        named = union_named([x, *arrays], [label, "the index"])
    return ArrayType.make(x.dtype_code, tuple(out), named)


@rule("operator.getitem")
def getitem_rule(call: Call) -> Any:
    return index_type(call.array("a"), call.get("b"), call.label("a"))


_AT = "jax.numpy.ndarray.at."
AT_UPDATES = ("set", "add", "subtract", "multiply", "mul", "divide", "div", "power", "min", "max")


@rule(*[_AT + m for m in (*AT_UPDATES, "apply")])
def at_update_rule(call: Call) -> Any:
    """`x.at[idx].set(v)`, the other updates and `.apply(func)`: an array of x's shape and dtype
    (out-of-bounds updates are dropped, so the index is not checked)."""
    x = call.array("a")
    if x.has_ellipsis:
        raise Unprovable
    return x


@rule(_AT + "get")
def at_get_rule(call: Call) -> Any:
    """`x.at[idx].get()`: `x[idx]`'s type (an out-of-bounds index is clamped or filled there, not an error)."""
    try:
        return index_type(call.array("a"), call.get("index"), call.label("a"))
    except RuleError:
        raise Unprovable from None


# ---- sharding over Explicit mesh axes (JAX's sharding rules: the result's sharding, NC8xx) ----------------
# Outside any trace a static index or partial slice of a sharded dimension is a gather (NC806), and so is an
# integer-array index or an `.at[...]` update of part of one, eager or traced (jax/_src/lax/slicing.py
# `_get_sharding_for_varying_out_shape`, `_gather_sharding_rule`).


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
    x, s = known_operand(call)
    idx = call.get(index)
    items = list(idx.items) if isinstance(idx, Seq) and idx.kind == "tuple" else [idx]
    arrays = [i for i in items if isinstance(i, ArrayType)]
    if not all(
        isinstance(i, Const)
        and (i.value is None or i.value is ... or isinstance(i.value, slice) or is_int(i.value))
        or isinstance(i, DimVal)
        for i in items
        if not isinstance(i, ArrayType)
    ):
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
            out.extend(s[dim : dim + k])
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
        raise RuleError(
            NC806,
            f"indexing {call.label('a')} ({fmt_type(x)}) slices dimension {d}, which is split "
            f"over {axes_desc(s[d])}: outside jit this is a gather whose out sharding cannot "
            f"be resolved unambiguously",
            hint="use x.at[...].get(out_sharding=P(...)), index inside jax.jit, or reshard the "
            "dimension unsharded first",
        )
    lengths = list(x.shape)
    for d, n in touched:
        lengths[d] = n
    check_divisible_out(
        call,
        x,
        s,
        tuple(lengths),
        "indexing slices",
        op="indexing",
        note=" (outside jit the index is a gather, which fails as well)",
    )
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
                raise RuleError(
                    NC806,
                    f"indexing {call.label('a')} ({fmt_type(x)}) with an integer array gathers "
                    f"along dimension {dim}, which is split over {axes_desc(s[dim])}: the "
                    f"gather's out sharding cannot be resolved unambiguously",
                    hint="use x.at[ids].get(out_sharding=P(...)), or reshard the dimension unsharded first",
                )
            if si is not None and any(si):  # jax/_src/lax/slicing.py `_gather_spec_computation`
                raise RuleError(
                    NC806,
                    f"indexing {call.label('a')} ({fmt_type(x)}) with an integer array sharded over mesh axes "
                    f"({fmt_type(ids)}): the gather's out sharding cannot be resolved unambiguously (JAX "
                    f"needs the indices replicated)",
                    hint="use x.at[ids].get(out_sharding=P(...)), or reshard the indices replicated first",
                )
            if si is None:
                raise Unprovable
            out.extend(si)
            dim += 1
            continue
        v = it.value if isinstance(it, Const) else it
        if v is ...:
            k = len(s) - n_used
            out.extend(s[dim : dim + k])
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
    x, s = known_operand(call)
    for dim, e in enumerate(s):
        if e:
            raise RuleError(
                NC806,
                f"{call.label('a')}.at[...].apply: the scatter's out sharding cannot be resolved "
                f"unambiguously: {call.label('a')} ({fmt_type(x)}) has dimension {dim} split over "
                f"{axes_desc(e)}, and apply takes no out_sharding=",
                hint="jax.sharding.reshard the array to P() (fully replicated) before the update, and back after it",
            )
    return s


@sharding_rule(
    *[
        f"jax.numpy.ndarray.at.{m}"
        for m in ("set", "add", "subtract", "multiply", "mul", "divide", "div", "power", "min", "max")
    ]
)
def at_update_sharding(call: Call, result: ArrayType) -> Shd | None:
    """`x.at[idx].set(v)` (a scatter) keeps x's sharding. It cannot resolve its out sharding when it updates
    part of a sharded dimension (an int, array or partial slice index; `::-1` too), eager or under jit
    (NC806), unless `out_sharding=` is given. The values are broadcast to the updated slice with x's
    sharding: each of their dims must be unsharded or split like the slice's (NC801)."""
    if has_out_sharding(call):
        return out_sharding(call, len(result.shape))
    x, s = known_operand(call)
    idx = call.get("index")
    items = list(idx.items) if isinstance(idx, Seq) and idx.kind == "tuple" else [idx]
    for it in items:
        if not (
            isinstance(it, (ArrayType, DimVal))
            or (isinstance(it, Const) and (it.value is ... or isinstance(it.value, slice) or is_int(it.value)))
        ):
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
                slice_shd.extend(s[dim : dim + k])
            dim += k
            continue
        whole = isinstance(v, slice) and v.step in (None, 1) and _full(v, x.shape[dim])
        if s[dim] and not whole:
            what = "an integer array" if isinstance(v, ArrayType) else "a slice" if isinstance(v, slice) else "an index"
            raise RuleError(
                NC806,
                f"{call.label('a')}.at[...].{call.op.rsplit('.', 1)[1]}: the scatter's out "
                f"sharding cannot be resolved unambiguously: it updates dimension {dim} of "
                f"{call.label('a')} ({fmt_type(x)}) at {what}, and that dimension is split over "
                f"{axes_desc(s[dim])}",
                hint=f"pass out_sharding=P(...) to .{call.op.rsplit('.', 1)[1]}(...), or reshard the "
                f"array so that dimension {dim} is unsharded first",
            )
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
    want = slice_shd[len(slice_shd) - len(sv) :] if slice_shd else []
    for i, (e, w) in enumerate(zip(sv, want)):
        if e and e != w:
            raise RuleError(
                NC801,
                f"{call.label('a')}.at[...].{call.op.rsplit('.', 1)[1]}: the values "
                f"{call.label('values')} ({fmt_type(v)}) split dimension {i} over "
                f"{axes_desc(e)}, but the updated slice of {call.label('a')} ({fmt_type(x)}) "
                f"is split {'over ' + axes_desc(w) if w else 'over no mesh axis'} there",
                hint="reshard the values to the updated slice's sharding, or pass them unsharded",
            )
