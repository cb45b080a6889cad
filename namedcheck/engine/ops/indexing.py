"""Basic indexing (`x[...]`): ints, slices, None, `...`, and one integer-array index."""

from __future__ import annotations

from typing import Any

from namedcheck.engine.algebra import fmt_shape, is_int, union_named
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Unprovable, rule
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
            raise RuleError("NC203", f"{label[:1].upper()}{label[1:]} is an array ({x}), which cannot be indexed "
                                     f"by the string {i.value!r}",
                            hint="a dict (of parameters?) was expected here: check the order of the arguments "
                                 "that brought this array")
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
        raise RuleError("NC203", f"Too many indices for {label}: {consumed} indices for {nd} positional "
                                 f"dimension{'s' if nd != 1 else ''} {fmt_shape(x.shape)}")
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
            out.extend(x.shape[dim:dim + n])
            dim += n
        elif isinstance(it, Const) and v is None:
            out.append(1)
        elif isinstance(it, Const) and isinstance(v, slice):
            out.append(_slice_len(v, x.shape[dim]))
            dim += 1
        elif (isinstance(it, Const) and is_int(v)) or isinstance(it, DimVal):
            d = x.shape[dim]
            if isinstance(it, Const) and is_int(d) and not -d <= v < d:  # type: ignore[operator]  # v: an int here
                raise RuleError("NC203", f"Index {v} is out of bounds for dimension {dim} of {label}, which has "
                                         f"size {d} (shape {fmt_shape(x.shape)})",
                                hint="JAX clamps out-of-bounds indices silently instead of raising")
            dim += 1
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
