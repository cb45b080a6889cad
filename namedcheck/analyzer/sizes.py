"""Sizes the analyzer cannot evaluate, named after their source: `config.batch_size`, `n`, `x.shape[0]`.

A shape item whose value is not known (`jnp.ones((config.batch_size, 784))`) still stands for one size: JAX
raises unless it is an int. It becomes a symbol spelled as its source, so two reads of one source are one
size, and arithmetic on such items keeps an expression (`B * T`, `d // heads`; engine/symbolic.py). Only
simple references (names, attribute chains, `x.shape[i]`, `len(x)`) are named: reading them has no effect.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import Any

import libcst as cst

from namedcheck.analyzer.literals import NotALiteral, literal_value
from namedcheck.analyzer.scope import FrameState
from namedcheck.engine import symbolic
from namedcheck.engine.algebra import is_int
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, Dim, DimVal, Seq

_ARITH = {"Add": "+", "Subtract": "-", "Multiply": "*", "FloorDivide": "//"}


def reference_text(node: cst.BaseExpression) -> str | None:
    """The source of a simple reference (`n`, `self.cfg.d_model`, `x.shape[-1]`, `len(xs)`), else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = reference_text(node.value)
        return f"{inner}.{node.attr.value}" if inner else None
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        inner = reference_text(node.value)
        key = node.slice[0].slice.value
        k = _index(key)
        if inner and k is not None:
            return f"{inner}[{k}]"
        if inner and isinstance(key, cst.SimpleString) and key.value[0] in "'\"":
            return f"{inner}[{key.value!s}]"
        return None
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value in ("len", "int")
        and len(node.args) == 1
        and not node.args[0].keyword
        and not node.args[0].star
    ):
        inner = reference_text(node.args[0].value)
        return f"{node.func.value}({inner})" if inner else None
    return None


def known_size(v: Any) -> Dim:
    """The int or symbol a value is known to be as a size (an int constant, a DimVal), else None."""
    if isinstance(v, Const) and is_int(v.value):
        return v.value
    return v.dim if isinstance(v, DimVal) else None


def size_of(f: FrameState, node: cst.BaseExpression, value: Any) -> Dim:
    """The size an expression stands for when used as one: its known int or symbol, else a symbol named after
    its source (arithmetic on such parts stays an expression); None when it is not a simple size."""
    known = known_size(value)
    if known is not None:
        return known
    if value is not UNKNOWN and not _unknown_int(value):
        return None
    return _node_size(f, node)


def _node_size(f: FrameState, node: cst.BaseExpression) -> Dim:
    if isinstance(node, cst.Integer):
        return _index(node)
    if isinstance(node, cst.Name):
        v = f.lookup(node.value)
        known = known_size(v)
        if known is not None:
            return known
        return node.value if v is UNKNOWN or _unknown_int(v) else None
    if isinstance(node, cst.BinaryOperation):
        op = _ARITH.get(type(node.operator).__name__)
        if op is None:
            return None
        a, b = _node_size(f, node.left), _node_size(f, node.right)
        return symbolic.arith(op, a, b) if a is not None and b is not None else None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        a = _node_size(f, node.expression)
        return symbolic.arith("-", 0, a) if a is not None else None
    text = reference_text(node)
    return symbolic.canonical(text) if text is not None and symbolic.poly(text) is not None else None


def sized_seq(f: FrameState, items: list[Any], nodes: list[Any], kind: str = "tuple") -> Seq:
    """A tuple or list display (or a method's varargs shape, `x.reshape(B, T, -1)`) with, for each item
    not known, the size it stands for if it is used as one (`Seq.sizes`); an item known to be an int of
    unknown size is given its symbol."""
    sizes: list[Dim] = []
    out: list[Any] = []
    for item, node in zip(items, nodes):
        size = size_of(f, node, item) if node is not None and (item is UNKNOWN or _unknown_int(item)) else None
        if _unknown_int(item) and size is not None:
            item = DimVal(size)
        out.append(item)
        sizes.append(size if item is UNKNOWN else None)
    named = tuple(sizes) if any(s is not None for s in sizes) else None
    return Seq(tuple(out), kind, named)


def _unknown_int(v: Any) -> bool:
    return isinstance(v, DimVal) and v.dim is None


def unpacked_shape(f: FrameState, target: cst.BaseExpression, node: cst.BaseExpression, v: Any) -> Any:
    """`B, T, C = x.shape`: the names are x's sizes. When x's rank or some of its sizes are not known, the
    unpacking states them (any other rank raises): x gets rank len(targets) and each unknown size the name it
    is unpacked to. Returns the value to unpack (the refined shape), or `v` unchanged."""
    name = shape_owner(node)
    if not (
        name is not None
        and isinstance(target, cst.Tuple | cst.List)
        and all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements)
    ):
        return v
    if name not in f.vars:
        return v
    x = f.vars[name]
    names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
    if x is UNKNOWN:
        shape: tuple[Dim, ...] = tuple(names)
        f.vars[name] = unknown_array(f, shape)
    elif isinstance(x, ArrayType) and not x.has_ellipsis and len(x.shape) == len(names) and None in x.shape:
        shape = tuple(n if d is None else d for d, n in zip(x.shape, names))
        f.vars[name] = replace(x, shape=shape)
    else:
        return v
    return Seq(tuple(Const(d) if is_int(d) else DimVal(d) for d in shape))


def named_sizes(f: FrameState, node: cst.BaseExpression, x: ArrayType) -> ArrayType:
    """An array read through its name (`x.shape`) whose rank is known but some sizes are not: each unknown
    size becomes the symbol `x.shape[i]` in the name's binding, so what is computed from `x.shape[i]` and x
    itself agree on it (unless an earlier value of the name already gave that symbol another meaning)."""
    if not isinstance(node, cst.Name) or x.has_ellipsis or None not in x.shape or f.vars.get(node.value) is not x:
        return x
    name = node.value
    shape = tuple(_fresh(f, f"{name}.shape[{i}]") if d is None else d for i, d in enumerate(x.shape))
    if shape == x.shape:
        return x
    named = replace(x, shape=shape)
    f.vars[name] = named
    return named


def shape_read(f: FrameState, node: cst.Subscript) -> Any:
    """`x.shape[k]` of a name bound to nothing known (an unannotated parameter): x is an array with a dimension
    k, the symbol `x.shape[k]` (its rank otherwise unknown, `(..., 'x.shape[-1]')`). Returns that size, or
    None when `node` is not such a read."""
    name = shape_owner(node.value)
    if name is None or len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    text = reference_text(node)
    k = _index(node.slice[0].slice.value)
    if text is None or k is None or f.vars.get(name, None) is not UNKNOWN:
        return None
    sym = _fresh(f, text)
    if sym is None:
        return None
    shape: tuple[Dim, ...] = (*(None,) * k, sym, ...) if k >= 0 else (..., sym, *(None,) * (-k - 1))
    f.vars[name] = unknown_array(f, shape)
    return DimVal(sym)


def unknown_array(f: FrameState, shape: tuple[Dim, ...]) -> ArrayType:
    """An array known only by its shape (what the code states of an unknown value): its dtype and named axes
    stay unknown, and so do the mesh axes it varies over inside shard_map (outside nothing varies)."""
    return ArrayType(None, shape, named_open=True, vary_exact=not f.env.manual)


def _index(node: cst.BaseExpression) -> int | None:
    """An int literal (`3`, `-1`, `0x10`), else None."""
    if not isinstance(node, cst.Integer | cst.UnaryOperation):
        return None
    try:
        v = literal_value(node)
    except NotALiteral:
        return None
    return v if is_int(v) else None


def shape_owner(node: cst.BaseExpression) -> str | None:
    """The name whose shape `node` reads (`x.shape`: x), else None."""
    if isinstance(node, cst.Attribute) and node.attr.value == "shape" and isinstance(node.value, cst.Name):
        return node.value.value
    return None


def _fresh(f: FrameState, sym: str) -> str | None:
    """`sym` when no value of the scope mentions it yet (a name rebound since would make it ambiguous), else None."""
    for v in f.vars.values():
        if _mentions(v, sym):
            return None
    return sym


def _mentions(v: Any, sym: str) -> bool:
    if isinstance(v, ArrayType):
        return any(isinstance(d, str) and sym in d for d in (*v.shape, *(s for _, s in v.named)))
    if isinstance(v, DimVal):
        return isinstance(v.dim, str) and sym in v.dim
    if isinstance(v, Seq):
        return any(_mentions(i, sym) for i in v.items)
    return False


# Op parameters that take one int size: an argument not known there is a symbol named after its source.
SIZE_PARAMS: dict[str, tuple[str, ...]] = {
    "jax.numpy.eye": ("N", "M"),
    "jax.numpy.identity": ("n",),
    "jax.numpy.linspace": ("num",),
    "jax.numpy.tri": ("N", "M"),
    "jax.nn.one_hot": ("num_classes",),
    "jax.lax.top_k": ("k",),
    "jax.lax.iota": ("size",),
    "jax.lax.dynamic_slice_in_dim": ("slice_size",),
}


def size_arguments(
    f: FrameState,
    names: list[str],
    params: Collection[str],
    pos: list[Any],
    kw: dict[str, Any],
    pos_nodes: list[Any],
    call: cst.CSTNode | None,
) -> tuple[list[Any], dict[str, Any]]:
    """A call's arguments (positional ones bound to `names` in order, keyword ones by name) with each unknown
    one passed for a size parameter (`params`) made the symbol of its source."""
    arg_nodes: dict[str, Any] = dict(zip(names, pos_nodes))
    if isinstance(call, cst.Call):
        arg_nodes.update({a.keyword.value: a.value for a in call.args if a.keyword is not None})

    def sized(name: str | None, v: Any) -> Any:
        node = arg_nodes.get(name) if name is not None and name in params else None
        size = size_of(f, node, v) if v is UNKNOWN and node is not None else None
        return DimVal(size) if size is not None else v

    return [sized(names[i] if i < len(names) else None, v) for i, v in enumerate(pos)], {
        k: sized(k, v) for k, v in kw.items()
    }
