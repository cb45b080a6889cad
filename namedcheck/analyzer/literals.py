"""Syntax -> Python literals, and array annotations -> engine types (via engine.syntax)."""

from __future__ import annotations

from typing import Any

import libcst as cst

from namedcheck.engine import jaxtyping
from namedcheck.engine.codes import NC101, NC105
from namedcheck.engine.dtypes import ANNOTATION_HEADS, FAMILY_HEADS
from namedcheck.engine.errors import RuleError
from namedcheck.engine.syntax import BASE, Dims, Pairs, parse_item
from namedcheck.engine.values import ArrayType

# every head of an array annotation: dtypes, `Array` and the dtype families (`Float`, ...)
ARRAY_HEADS = ANNOTATION_HEADS | FAMILY_HEADS


_STRINGS: dict[str, Any] = {}  # a string literal's text (quotes and prefix included) -> its value


class NotALiteral(Exception):
    def __init__(self, node: cst.CSTNode) -> None:
        super().__init__("not a literal")
        self.node = node


def literal_value(node: cst.BaseExpression) -> Any:
    """The Python value of a literal expression (dicts become Pairs), or raise NotALiteral."""
    if isinstance(node, cst.Integer):
        return int(node.value.replace("_", ""), 0)
    if isinstance(node, cst.Float):
        return float(node.value.replace("_", ""))
    if type(node) is cst.SimpleString:  # its text evaluated once per process (libcst runs `ast.literal_eval`)
        text = node.value
        v = _STRINGS.get(text, _STRINGS)
        if v is _STRINGS:
            if len(_STRINGS) > 50_000:
                _STRINGS.clear()
            v = _STRINGS[text] = node.evaluated_value
        if isinstance(v, str):
            return v
        raise NotALiteral(node)
    if isinstance(node, cst.ConcatenatedString):
        v = node.evaluated_value
        if isinstance(v, str):
            return v
        raise NotALiteral(node)
    if isinstance(node, cst.Ellipsis):
        return ...
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        v = literal_value(node.expression)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v
        raise NotALiteral(node)
    if isinstance(node, cst.Tuple):
        return tuple(_element(e) for e in node.elements)
    if isinstance(node, cst.List):
        return [_element(e) for e in node.elements]
    if isinstance(node, cst.Dict):
        out = Pairs()
        for e in node.elements:
            if not isinstance(e, cst.DictElement):
                raise NotALiteral(node)
            out.append((literal_value(e.key), literal_value(e.value)))
        return out
    raise NotALiteral(node)


def _element(e: cst.BaseElement) -> Any:
    if isinstance(e, cst.StarredElement):
        raise NotALiteral(e)
    return literal_value(e.value)


def _dims_call(node: cst.Call) -> Dims:
    """`Dims(5, 'N', batch=20)` as written (keywords in order; `**{'my-axis': 2}` spelled out)."""
    dims: list[Any] = []
    named = Pairs()
    for a in node.args:
        if a.keyword is not None:
            named.append((a.keyword.value, literal_value(a.value)))
        elif a.star == "**" and isinstance(a.value, cst.Dict):
            named.extend(literal_value(a.value))
        elif a.star:
            raise NotALiteral(a.value)
        else:
            dims.append(literal_value(a.value))
    return Dims.written(tuple(dims), named)


def subscript_item(node: cst.Subscript) -> Any:
    """What is written between the brackets, as the runtime's __getitem__ would receive it: the leading
    type of the short spelling (`Array`, `jax.Array`) as `BASE`, a `Dims(...)` call as a `Dims`."""
    elems: list[Any] = []
    for i, s in enumerate(node.slice):
        if not isinstance(s.slice, cst.Index) or s.slice.star is not None:
            raise NotALiteral(node)
        value = s.slice.value
        if (
            i == 0
            and len(node.slice) > 1
            and isinstance(value, cst.Name | cst.Attribute)
            and not (isinstance(value, cst.Name) and value.value in ("True", "False", "None"))
        ):
            elems.append(BASE)
        elif isinstance(value, cst.Call) and elems and elems[0] is BASE:
            elems.append(_dims_call(value))  # `Dims(...)`, under any name it was imported as
        else:
            elems.append(literal_value(value))
    return elems[0] if len(elems) == 1 else tuple(elems)


def parse_annotation_subscript(head: str, node: cst.Subscript) -> Any:
    """An `f32[...]` subscript as an ArrayType; raises RuleError (NC1xx) with the offending node."""
    try:
        item = subscript_item(node)
    except NotALiteral as e:
        err = RuleError(
            NC105,
            f"Annotation part `{cst.Module([]).code_for_node(e.node)}` is not a literal; "
            f"sizes and names must be written as ints and strings",
            hint="write a symbolic size as a string, e.g. f32[('N', 7)]",
        )
        raise err from None
    return parse_item(None if head == "Array" else head, item)


def parse_jaxtyping_subscript(cls_name: str, node: cst.Subscript) -> Any:
    """jaxtyping's `Float[Array, "b d"]` as an ArrayType: the first part is any type (`Array`, `np.ndarray`,
    `Array | np.ndarray`), the second a dimension string. None when the string is not written literally (an
    f-string, a name: jaxtyping reads it when the program runs); raises RuleError (NC1xx) for a malformed one."""
    parts = [s.slice for s in node.slice if isinstance(s.slice, cst.Index) and s.slice.star is None]
    if len(parts) != 2 or len(node.slice) != 2:
        raise RuleError(
            NC101,
            f'A jaxtyping annotation is `{cls_name}[ArrayType, "dims"]`: an array type and a dimension string; '
            f"found {len(parts)} part{'s' if len(parts) != 1 else ''}",
            hint=f'write e.g. {cls_name}[Array, "batch 3"]',
        )
    dims = parts[1].value
    if isinstance(dims, cst.FormattedString | cst.Name | cst.Attribute | cst.Call | cst.BinaryOperation | cst.Ellipsis):
        return None  # (`Float[Array, ...]`: any shape, as code under postponed annotations means it)
    try:
        text = literal_value(dims)
    except NotALiteral:
        return None
    return jaxtyping.annotation(cls_name, text)


def stated(t: Any, checked: bool) -> Any:
    """A parameter's or return's declared type as a fact of the analysis: a jaxtyping annotation only where
    jaxtyping checks it when the program runs (`checked`); elsewhere it is documentation, often not kept up
    to date (a wrong one would make correct code an error), and the value's own type is used."""
    if not checked and isinstance(t, ArrayType) and t.spelling == "jaxtyping":
        return None
    return t


__all__ = [
    "stated",
    "ANNOTATION_HEADS",
    "ARRAY_HEADS",
    "NotALiteral",
    "literal_value",
    "parse_annotation_subscript",
    "parse_jaxtyping_subscript",
]


# String methods folded on a constant receiver (a mesh shape given as a config string, `'1,-1'.split(',')`).
MAX_FOLDED_TEXT = 1 << 16  # characters of a string folded from constants
STR_METHODS = {"split", "rsplit", "strip", "lstrip", "rstrip", "lower", "upper", "replace"}


def str_method(text: str, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """The value of `text.name(*args, **kwargs)` for constant arguments (engine `Const` values): a `Const`
    string, or for split a list of them; None when an argument is not constant or the call raises."""
    from namedcheck.engine.values import Const, Seq

    if name not in STR_METHODS or not all(isinstance(a, Const) for a in (*args, *kwargs.values())):
        return None
    if name == "replace" and args and isinstance(args[0].value, str) and len(args) > 1:
        old, new = args[0].value, args[1].value
        if isinstance(new, str) and len(text) + (text.count(old) + 1) * len(new) > MAX_FOLDED_TEXT:
            return None  # `s = s.replace('a', s)` squares the length each time
    try:
        out = getattr(text, name)(*(a.value for a in args), **{k: v.value for k, v in kwargs.items()})
    except (TypeError, ValueError):
        return None
    if isinstance(out, list):
        return Seq(tuple(Const(s) for s in out), "list") if len(out) <= 256 else None
    return Const(out) if isinstance(out, str) and len(out) <= MAX_FOLDED_TEXT else None
