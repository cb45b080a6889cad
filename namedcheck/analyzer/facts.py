"""Equalities the code states about sizes, learned where they hold.

`assert x.shape == (B, D)`, `assert n == 8`, and `if x.shape[-1] != d: raise ...` (after the `if`) tell the
analyzer that two sizes are equal. A symbol is replaced by what it equals in every value of the current
scope (`n` becomes 8 in `('n', 784)`), and an array whose dims were unknown gets the stated ones. Only
equalities are learned, and only from `==` / `!=` of sizes: nothing is assumed where the code states nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import libcst as cst

from namedcheck.analyzer.scope import FrameState
from namedcheck.analyzer.sizes import known_size, shape_owner, size_of, unknown_array
from namedcheck.engine import symbolic
from namedcheck.engine.algebra import is_int
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, Dim, DimVal, Seq


def learn(f: FrameState, test: cst.BaseExpression, holds: bool) -> None:
    """Learn the equalities `test` states when it is true (`holds`) or false (an `if ...: raise` passed)."""
    for left, right in _equalities(test, holds):
        _learn_equal(f, left, right)


def _equalities(test: cst.BaseExpression, holds: bool) -> list[tuple[cst.BaseExpression, cst.BaseExpression]]:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _equalities(test.expression, not holds)
    if isinstance(test, cst.BooleanOperation):
        # `a == b and c == d` holds: both do; `a != b or c != d` fails: neither does
        both = isinstance(test.operator, cst.And) if holds else isinstance(test.operator, cst.Or)
        return _equalities(test.left, holds) + _equalities(test.right, holds) if both else []
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        op = test.comparisons[0].operator
        if isinstance(op, cst.Equal) and holds or isinstance(op, cst.NotEqual) and not holds:
            return [(test.left, test.comparisons[0].comparator)]
    return []


def _quiet_ev(f: FrameState, node: cst.BaseExpression) -> Any:
    saved = f.quiet
    f.quiet = True
    try:
        return f.ev(node)
    finally:
        f.quiet = saved


def _learn_equal(f: FrameState, left: cst.BaseExpression, right: cst.BaseExpression) -> None:
    lv, rv = _quiet_ev(f, left), _quiet_ev(f, right)
    lshape, rshape = _shape_items(f, left, lv), _shape_items(f, right, rv)
    if lshape is None and rshape is not None and shape_owner(left) and lv is UNKNOWN:
        lshape = [None] * len(rshape)  # `x.shape == (B, D)` of an x not known
    if rshape is None and lshape is not None and shape_owner(right) and rv is UNKNOWN:
        rshape = [None] * len(lshape)
    if lshape is not None and rshape is not None:
        if len(lshape) != len(rshape):
            return
        subst: dict[str, Dim] = {}
        for a, b in zip(lshape, rshape):
            _unify(a, b, subst)
        _apply(f, subst)
        for node, dims in ((left, rshape), (right, lshape)):  # `x.shape == (B, D)`: x has those dims
            _refine_array(f, node, [symbolic.substitute(d, subst) for d in dims])
        return
    a, b = size_of(f, left, lv), size_of(f, right, rv)
    subst = {}
    _unify(a, b, subst)
    _apply(f, subst)


def _shape_items(f: FrameState, node: cst.BaseExpression, v: Any) -> list[Dim] | None:
    """A shape's sizes (`x.shape`, a tuple display of sizes), None when it is not one."""
    if isinstance(v, Seq) and v.kind != "dict":
        nodes = [e.value for e in node.elements] if isinstance(node, cst.Tuple | cst.List) else [None] * len(v.items)
        dims = []
        for item, n in zip(v.items, nodes):
            d = size_of(f, n, item) if n is not None else known_size(item)
            dims.append(d)
        return dims
    return None


def _unify(a: Dim, b: Dim, subst: dict[str, Dim]) -> None:
    """Record that sizes a and b are equal: a symbol (an atom: a name, a reference) is replaced by the other side,
    an int preferred."""
    a, b = symbolic.substitute(a, subst), symbolic.substitute(b, subst)
    if a is None or b is None or a == b:
        return
    for sym, other in ((a, b), (b, a)):
        if _is_atom(sym) and not (is_int(other) and other < 0) and sym not in symbolic.atoms(other):
            subst[sym] = other  # type: ignore[index]
            return


def _is_atom(d: Dim) -> bool:
    if not isinstance(d, str):
        return False
    p = symbolic.poly(d)
    return p is not None and len(p) == 1 and next(iter(p.items())) == ((d,), 1)


def _apply(f: FrameState, subst: dict[str, Dim]) -> None:
    """Replace the symbols in every value of the current scope; a name that is a symbol gets its size."""
    if not subst:
        return
    for name, v in list(f.vars.items()):
        if name in subst and (v is UNKNOWN or isinstance(v, DimVal)):
            size = subst[name]
            f.vars[name] = Const(size) if is_int(size) else DimVal(size)
            continue
        new = _subst_value(v, subst)
        if new is not v:
            f.vars[name] = new
    for sym, size in subst.items():  # a name read as a size, not yet bound in this scope (a parameter's)
        if sym.isidentifier() and sym not in f.vars and f.lookup(sym) is UNKNOWN:
            f.vars[sym] = Const(size) if is_int(size) else DimVal(size)


def _subst_value(v: Any, subst: dict[str, Dim]) -> Any:
    if isinstance(v, DimVal) and isinstance(v.dim, str):
        d = symbolic.substitute(v.dim, subst)
        return v if d == v.dim else (Const(d) if is_int(d) else DimVal(d))
    if isinstance(v, ArrayType):
        shape = tuple(symbolic.substitute(d, subst) for d in v.shape)
        named = tuple((n, symbolic.substitute(d, subst)) for n, d in v.named)
        return v if shape == v.shape and named == v.named else replace(v, shape=shape, named=named)
    if isinstance(v, Seq):
        items = tuple(_subst_value(i, subst) for i in v.items)
        sizes = tuple(symbolic.substitute(d, subst) for d in v.sizes) if v.sizes else v.sizes
        if all(a is b for a, b in zip(items, v.items)) and sizes == v.sizes:
            return v
        return Seq(items, v.kind, sizes)
    return v


def _refine_array(f: FrameState, node: cst.BaseExpression, dims: list[Dim]) -> None:
    """`x.shape == dims` holds for a name `x`: its unknown dims become the stated ones."""
    name = shape_owner(node)
    if name is None or name not in f.vars:
        return
    x = f.vars[name]
    if isinstance(x, ArrayType) and not x.has_ellipsis and len(x.shape) == len(dims):
        shape = tuple(old if old is not None and not isinstance(new, int) else new for old, new in zip(x.shape, dims))
        if shape != x.shape:
            f.vars[name] = replace(x, shape=shape)
    elif (x is UNKNOWN or isinstance(x, ArrayType) and x.has_ellipsis and not x.shape[:-1]) and None not in dims:
        t = unknown_array(f, tuple(dims))
        f.vars[name] = t.with_dtype(x.dtype_code) if isinstance(x, ArrayType) else t
