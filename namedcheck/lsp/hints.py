"""Inlay hints: the inferred type after each unannotated `name = ...` and after the `)` of each function
without a return annotation, in the spelling an annotation takes (`f32[Array, Dims(4, 8)]`)."""

from __future__ import annotations

from typing import Any

import libcst as cst

from namedcheck.analyzer.incremental import Analysis, distinct, format_value
from namedcheck.analyzer.scope import has_array
from namedcheck.edits.infer import closing_paren


def _label(values: list[Any]) -> str | None:
    """The values' types as an annotation would state them (pasted as one, it holds where each size is known or a
    symbol); several analyses that disagree joined with `|`. Varying sets are not part of it (hover shows them)."""
    known = [v for v in distinct(values) if has_array(v)]
    if not known:
        return None
    return " | ".join(format_value(v, sets=False) for v in known[:2]) + (" | ..." if len(known) > 2 else "")


class _Sites(cst.CSTVisitor):
    def __init__(self) -> None:
        self.assigns: list[tuple[cst.Name, cst.BaseExpression]] = []
        self.functions: list[cst.FunctionDef] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self.assigns.append((node.targets[0].target, node.value))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.returns is None:
            self.functions.append(node)


def inlay_hints(source: str, a: Analysis, rows: tuple[int, int] | None = None) -> list[tuple[int, int, str]]:
    """(1-based line, 0-based column, label) of each hint, in file order; `rows`: (first, last), 1-based, of
    the top-level chunks to read (a request's range: the others are not visited)."""
    by_node: dict[int, list[Any]] = {}
    for node, v in a.values:
        by_node.setdefault(id(node), []).append(v)
    lines = source.splitlines()
    out: list[tuple[int, int, str]] = []
    for offset, chunk in a.chunks:
        if rows is not None and not (offset < rows[1] and rows[0] <= offset + chunk.line_count):
            continue
        sites = _Sites()
        chunk.module.visit(sites)
        if not sites.assigns and not sites.functions:
            continue
        pos = chunk.positions()
        for target, value in sites.assigns:
            label = _label(by_node.get(id(value), []))
            if label is not None:
                r = pos[target]
                out.append((r.end.line + offset, r.end.column, f": {label}"))
        for fn in sites.functions:
            records = a.functions.get(id(fn))
            label = _label([rec.returns for rec in records[1]]) if records else None
            if label is None:
                continue
            close = closing_paren(lines, pos[fn.params].end.line + offset, pos[fn.params].end.column)
            if close is not None:
                out.append((close[0], close[1], f" -> {label}"))
    return sorted(out)
