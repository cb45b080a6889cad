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
        if name in f.rebound_elsewhere:  # a nested function rebinds it (`nonlocal n`): a fact holds only here
            continue
        if name in subst and (v is UNKNOWN or isinstance(v, DimVal)):
            size = subst[name]
            f.vars[name] = Const(size) if is_int(size) else DimVal(size)
            continue
        new = _subst_value(v, subst)
        if new is not v:
            f.vars[name] = new
    for sym, size in subst.items():  # a name read as a size, not yet bound in this scope (a parameter's)
        if sym.isidentifier() and sym not in f.vars and sym not in f.rebound_elsewhere and f.lookup(sym) is UNKNOWN:
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


# ---- a branch's rank: `if x.ndim == 2:`, `if len(x.shape) == 1:`, `if jnp.asarray(i).shape:` ----------------
_AS_ARRAY = {"asarray", "array", "shape", "ndim", "atleast_1d"}  # `jnp.asarray(x).shape`: x's shape


def narrow(f: FrameState, test: cst.BaseExpression, holds: bool) -> None:
    """In a branch whose test is not known, a value of unknown rank gets the rank the test states there: `x.ndim
    == k` / `len(x.shape) == k` (and `!=` in the other branch), a shape or rank tested for truth (empty: rank 0)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        narrow(f, test.expression, not holds)
    elif isinstance(test, cst.BooleanOperation):
        if isinstance(test.operator, cst.And) == holds:  # both parts hold (`and`), or both fail (`or`)
            narrow(f, test.left, holds)
            narrow(f, test.right, holds)
    elif isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        op = test.comparisons[0].operator
        if not (isinstance(op, cst.Equal) and holds or isinstance(op, cst.NotEqual) and not holds):
            return
        for side, other in ((test.left, test.comparisons[0].comparator), (test.comparisons[0].comparator, test.left)):
            name = _rank_of(side)
            k = _quiet_ev(f, other)
            if name is not None and isinstance(k, Const) and is_int(k.value) and 0 <= k.value <= 32:
                _set_rank(f, name, k.value, direct=_direct(side))
    elif not holds:  # `if not x.shape:`, `if x.ndim: ... else:`: rank 0
        name = _rank_of(test)
        if name is not None:
            _set_rank(f, name, 0, direct=_direct(test))


def _rank_of(node: cst.BaseExpression) -> str | None:
    """The name whose rank `node` reads (`x.ndim`, `len(x.shape)`, `x.shape`, `jnp.asarray(x).shape`,
    `np.ndim(x)`), else None."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" and node.args:
        if len(node.args) == 1 and isinstance(node.args[0].value, cst.Attribute):
            return _rank_of(node.args[0].value) if node.args[0].value.attr.value == "shape" else None
        return None
    if isinstance(node, cst.Attribute) and node.attr.value in ("ndim", "shape"):
        return _array_name(node.value)
    if isinstance(node, cst.Call) and _called(node) in ("ndim", "shape"):
        return _array_name(node)
    return None


def _called(node: cst.Call) -> str | None:
    func = node.func
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("jnp", "np"):
        return func.attr.value
    return None


def _array_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Call) and _called(node) in _AS_ARRAY and len(node.args) == 1 and not node.args[0].keyword:
        inner = node.args[0].value
        if _called(node) == "atleast_1d":
            return None
        return inner.value if isinstance(inner, cst.Name) else None
    return None


def _direct(node: cst.BaseExpression) -> bool:
    """`x.ndim`, `x.shape`, `len(x.shape)`: x itself has a shape (an array), not only its conversion."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        return _direct(node.args[0].value)
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)


def _set_rank(f: FrameState, name: str, rank: int, direct: bool) -> None:
    """A value of the scope of unknown rank (an array of unknown shape; one not known at all that the test reads
    `.shape` / `.ndim` of) has `rank` here."""
    x = f.vars.get(name)
    if (
        isinstance(x, ArrayType)
        and x.has_ellipsis
        and all(d is None for d in x.shape[:-1])
        and len(x.shape) - 1 <= rank
    ):
        f.vars[name] = replace(x, shape=(None,) * rank)
    elif x is UNKNOWN and direct:
        f.vars[name] = unknown_array(f, (None,) * rank)
