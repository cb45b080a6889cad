"""The type algebra: dimension comparison, positional and named broadcasting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeGuard, overload

from namedcheck.engine import symbolic
from namedcheck.engine.codes import NC201, NC202, NC701
from namedcheck.engine.errors import RuleError, Unprovable
from namedcheck.engine.values import ArrayType, Dim


def fmt_shape(shape: Sequence[Dim]) -> str:
    parts = ["..." if d is ... else "?" if d is None else repr(d) if isinstance(d, str) else str(d) for d in shape]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def is_int(d: object) -> TypeGuard[int]:
    return isinstance(d, int) and not isinstance(d, bool)


@overload
def all_int(ds: list[Dim]) -> TypeGuard[list[int]]: ...
@overload
def all_int(ds: tuple[Dim, ...]) -> TypeGuard[tuple[int, ...]]: ...
def all_int(ds: Sequence[Dim]) -> bool:
    """Every dim a concrete size."""
    return all(is_int(d) for d in ds)


def differ(a: Dim, b: Dim) -> bool:
    """Two dims provably differ: two different concrete sizes, or sizes whose difference is nonzero whatever
    their symbols are (`'N'` and `'N+1'`, `'784*B'` and `'100*B'`; engine/symbolic.py)."""
    if is_int(a) and is_int(b):
        return a != b
    if a is None or b is None or a is ... or b is ...:
        return False
    return symbolic.differ(a, b)


def maybe_one(d: Dim) -> bool:
    """A dim that may be 1, which broadcasting stretches: unknown, a symbol, or 1."""
    if is_int(d):
        return d == 1
    return d is None or d is ... or symbolic.maybe_one(d)


def product(dims: Sequence[Dim]) -> Dim:
    """The number of elements of a shape: an int, a size expression over its symbols, or None."""
    if any(d is None or d is ... for d in dims):
        return None
    n = num_elements(dims)
    return n if n is not None else symbolic.product(dims)


def same(a: Dim, b: Dim) -> bool:
    """Two dims provably equal."""
    return a is not None and a is not ... and a == b


def broadcast_dim(a: Dim, b: Dim) -> Dim:
    """The broadcast of two aligned dims, or raise ValueError if they provably clash."""
    if same(a, b):
        return a
    if a == 1:
        return b
    if b == 1:
        return a
    if differ(a, b) and not maybe_one(a) and not maybe_one(b):
        raise ValueError
    if is_int(a):
        return a
    if is_int(b):
        return b
    return None


def broadcast_shapes(
    a: tuple[Dim, ...], b: tuple[Dim, ...], la: str = "left operand", lb: str = "right operand"
) -> tuple[Dim, ...]:
    """Right-aligned positional broadcasting (NC201). A shape with `...` keeps a `...` prefix."""
    var = ... in a or ... in b
    ta = a[a.index(...) + 1 :] if ... in a else a
    tb = b[b.index(...) + 1 :] if ... in b else b
    n = min(len(ta), len(tb)) if var else max(len(ta), len(tb))
    out: list[Dim] = []
    for i in range(1, n + 1):
        da = ta[-i] if i <= len(ta) else 1
        db = tb[-i] if i <= len(tb) else 1
        try:
            out.append(broadcast_dim(da, db))
        except ValueError:
            raise RuleError(
                NC201,
                f"Cannot broadcast positional shapes {fmt_shape(a)} of {la} and {fmt_shape(b)} of {lb}: "
                f"dimension {-i} is {da} in {la} and {db} in {lb}",
                hint="sizes must be equal or 1 when right-aligned; reshape or expand_dims one operand",
            ) from None
    out.reverse()
    return ((...,) if var else ()) + tuple(out)


def union_named(types: Sequence[ArrayType], labels: Sequence[str] | None = None) -> dict[str, Dim]:
    """The union of named shapes; one name must have one size everywhere (NC202)."""
    out: dict[str, Dim] = {}
    seen_in: dict[str, str] = {}
    for i, t in enumerate(types):
        label = labels[i] if labels and i < len(labels) else f"operand {i + 1}"
        for name, size in t.named:
            if name in out:
                if differ(out[name], size):
                    raise RuleError(
                        NC202,
                        f"Named axis {name!r} has size {out[name]} in {seen_in[name]} and size {size} in {label}",
                        hint="a named axis has one size everywhere; named axes never stretch from size 1",
                    )
                if out[name] is None or (isinstance(out[name], str) and is_int(size)):
                    out[name] = size
            else:
                out[name] = size
                seen_in[name] = label
    return out


def broadcast_types(
    types: Sequence[ArrayType], labels: Sequence[str] | None = None
) -> tuple[tuple[Dim, ...], dict[str, Dim]]:
    """Positional broadcast of all shapes, union of all named shapes."""

    def lab(i: int) -> str:
        return labels[i] if labels and i < len(labels) else f"operand {i + 1}"

    shape: tuple[Dim, ...] = ()
    acc_label = lab(0)
    for i, t in enumerate(types):
        shape = t.shape if i == 0 else broadcast_shapes(shape, t.shape, acc_label, lab(i))
        if i:
            acc_label = "the broadcast of the preceding operands" if i > 1 or len(types) > 2 else acc_label
    return shape, union_named(types, [lab(i) for i in range(len(types))])


def num_elements(shape: Sequence[Dim]) -> int | None:
    total = 1
    for d in shape:
        if not is_int(d):
            return None
        total *= d
    return total


def norm_axis(axis: int, ndim: int, op: str) -> int:
    """Normalise a possibly negative axis, or raise NC701 (Unprovable for an axis that is not an int)."""
    if not isinstance(axis, int):
        raise Unprovable
    if not -ndim <= axis < ndim:
        raise RuleError(
            NC701,
            f"Axis {axis} is out of range for {op} of a value with {ndim} positional "
            f"dimension{'s' if ndim != 1 else ''}",
            hint=f"valid axes are {-ndim}..{ndim - 1}" if ndim else "the value is a scalar",
        )
    return axis % ndim if ndim else 0


_INT_OPS = {
    "jax.numpy.add": lambda a, b: a + b,
    "jax.numpy.subtract": lambda a, b: a - b,
    "jax.numpy.multiply": lambda a, b: _times(a, b),
    "jax.numpy.floor_divide": lambda a, b: a // b,
    "jax.numpy.mod": lambda a, b: a % b,
    "jax.numpy.divide": lambda a, b: a / b,
    "jax.numpy.power": lambda a, b: _power(a, b),
}


MAX_INT_BITS = 4096  # a constant folded from sizes stays below 2**4096 (`x = x * x` forty times: 2**40 digits)


def _power(a: Any, b: Any) -> Any:
    """`a ** b` on Python numbers, None when it is not a real number of modest size."""
    if abs(b) > 64 or (a == 0 and b < 0):
        return None
    if isinstance(a, int) and a.bit_length() * abs(b) > MAX_INT_BITS:
        return None
    try:
        r = a**b
    except OverflowError:
        return None
    return r if is_number(r) else None


def _times(a: Any, b: Any) -> Any:
    """`a * b`, None for a product of ints past `MAX_INT_BITS`."""
    if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() > MAX_INT_BITS:
        return None
    return a * b


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def dim_arith(op: str, a: Any, b: Any) -> Any:
    """Python arithmetic on sizes and constants (`d // heads`, `8 * 16.`): a number, a symbol when the
    other side is the identity, or None when not static. Raises KeyError for other operators, and for
    `/` and `**` unless both sides are numbers."""
    fn = _INT_OPS[op]
    if op in ("jax.numpy.divide", "jax.numpy.power"):  # not sizes: only numbers give a number
        r = fn(a, b) if is_number(a) and is_number(b) and not (b == 0 and op == "jax.numpy.divide") else None
        if r is None:
            raise KeyError(op)
        return r
    if is_number(a) and is_number(b):
        return fn(a, b) if not (b == 0 and op in ("jax.numpy.floor_divide", "jax.numpy.mod")) else None
    sym_op = {"jax.numpy.add": "+", "jax.numpy.subtract": "-", "jax.numpy.multiply": "*"}.get(op)
    if op == "jax.numpy.floor_divide" and (isinstance(b, str) or is_int(b) and b > 0):
        sym_op = "//"
    if sym_op and all(is_int(v) or isinstance(v, str) for v in (a, b)):
        return symbolic.arith(sym_op, a, b)
    identity = {"jax.numpy.add": 0, "jax.numpy.subtract": 0, "jax.numpy.multiply": 1, "jax.numpy.floor_divide": 1}
    if isinstance(a, str) and b == identity.get(op):
        return a
    if isinstance(b, str) and a == identity.get(op) and op in ("jax.numpy.add", "jax.numpy.multiply"):
        return b
    return None
