"""`reveal_type(x)` and `reveal_locals()` in user code: NC003, a note with the inferred type, in every front end
(as mypy and pyright do). Bare (a type checker's builtin) or imported from `typing` / `typing_extensions`; a name
the program binds itself is its own function. A function analysed on its own and at its calls gets one note
listing each analysis's type."""

from __future__ import annotations

from typing import Any

import libcst as cst

from namedcheck.analyzer.refs import FuncRef, QualRef
from namedcheck.analyzer.scope import FrameState, label
from namedcheck.engine import spelling
from namedcheck.engine.codes import NC003
from namedcheck.engine.dtypes import numpy_name
from namedcheck.engine.errors import RuleError
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, DimVal, DtypeRef, Seq

NAMES = ("reveal_type", "reveal_locals")
MODULES = ("typing", "typing_extensions")


def revealed(f: FrameState, node: cst.Call) -> Any:
    """The value of a `reveal_type` / `reveal_locals` call after its note is reported; NotImplemented for any
    other call."""
    which = _which(f, node.func)
    if which is None:
        return NotImplemented
    if which == "reveal_locals":
        if node.args:
            return NotImplemented
        shown = [f"{k}: {text(v)}" for k, v in sorted(f.vars.items()) if plain(v)]
        _note(f, node, "", ", ".join(shown) or "none")
        return Const(None)
    if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
        return NotImplemented
    v = f.ev(node.args[0].value)
    what = label(node.args[0].value) or _code(node.args[0].value)
    _note(f, node, what, text(v), reveal=True)
    return v


def _which(f: FrameState, func: cst.BaseExpression) -> str | None:
    if isinstance(func, cst.Name):
        scope: Any = f
        while scope is not None:  # the program's own `reveal_type`
            if func.value in scope.vars:
                return None
            scope = scope.parent
        imported = f.an.imports.get(func.value)
        if imported is None:
            return func.value if func.value in NAMES else None
        module, _, name = imported.rpartition(".")
        return name if module in MODULES and name in NAMES else None  # (`from typing import reveal_type as rt`)
    if isinstance(func, cst.Attribute) and func.attr.value in NAMES:
        v = f.ev(func)
        if isinstance(v, QualRef) and v.name in (f"{m}.{func.attr.value}" for m in MODULES):
            return func.attr.value
    return None


def _code(node: cst.CSTNode) -> str:
    code = " ".join(cst.Module([]).code_for_node(node).split())
    return code if len(code) <= 60 else code[:57] + "..."


def plain(v: Any) -> bool:
    """A value `reveal_locals` shows (not a function, class, module or other analyzer reference)."""
    return v is UNKNOWN or isinstance(v, ArrayType | Seq | Const | DimVal | DtypeRef)


def text(v: Any) -> str:
    """A value in the annotation language (`f32[Array, Dims(3, 4)]`), with the sets an annotation cannot state."""
    if isinstance(v, ArrayType):
        return spelling.spell(v) + spelling.sets(v)
    if isinstance(v, Seq):
        inner = ", ".join(text(i) for i in v.items)
        return f"({inner}{',' if len(v.items) == 1 else ''})" if v.kind == "tuple" else f"[{inner}]"
    if v is UNKNOWN:
        return "unknown"
    if isinstance(v, Const):
        return repr(v.value)
    if isinstance(v, DimVal):
        return f"int (= {v.dim if v.dim is not None else 'a size not known'})"
    if isinstance(v, DtypeRef):
        return f"dtype {numpy_name(v.code) or '(not known)'}"
    if isinstance(v, FuncRef):
        return f"function {v.name}"
    if isinstance(v, QualRef):
        return v.name
    return "a value namedcheck does not type"  # (a class, a module, an analyzer reference)


def _note(f: FrameState, node: cst.Call, what: str, shown: str, reveal: bool = False) -> None:
    """Report the note, adding `shown` to the types an earlier analysis of the same call revealed."""
    if f.quiet:  # (a note the user asked for: shown under conditions too)
        return
    key = (id(node), NC003)
    old = f.an.found.get(key)
    types: list[str] = list(old[1].data.get("types", ())) if old is not None else []
    if shown in types:
        return
    types.append(shown)
    if reveal:
        listed = ", ".join(f"`{t}`" for t in types)
        message = (
            f"Revealed type of `{what}` is {listed}"
            if len(types) == 1
            else f"Revealed types of `{what}` are {listed} (one per analysis: the function on its own and at its calls)"
        )
    else:
        message = "Revealed local types are: " + " | ".join(types)
    f.an.found.pop(key, None)
    f.an.report(node, RuleError(NC003, message, data={"types": types}))
