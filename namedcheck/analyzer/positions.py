"""Source positions of a large module's nodes, resolved one top-level statement at a time.

libcst's `PositionProvider` over a whole module generates its code: about twice the time of its parse,
after the analysis and outside its budget (10,000 statements: 24 s on a loaded machine, for one diagnostic).
Here each top-level statement is resolved on its own, when a node of it is asked for, and moved to its line
in the file (found by CPython's parser, milliseconds); which statement holds a node comes from one walk over
the nodes' fields. Anything that does not line up falls back to the whole module's resolution.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Mapping
from typing import Any

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from namedcheck.analyzer.parsing import node_fields

LAZY_FROM = 400  # top-level statements from which positions are resolved statement by statement


def resolve_all(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


def positions_of(module: cst.Module, source: str | None) -> Any:
    """The positions of `module`'s nodes (a mapping: `in`, `[]`, `get`, `items`)."""
    if source is None or len(module.body) < LAZY_FROM:
        return resolve_all(module)
    return StatementPositions(module, source)


class StatementPositions:
    """A read-only mapping node -> CodeRange of a module, resolved per top-level statement."""

    def __init__(self, module: cst.Module, source: str) -> None:
        self.module = module
        self.source = source
        self._owner: dict[int, int] | None = None  # id(node) -> index of its top-level statement
        self._offsets: list[int] | None = None  # per statement: its first line in the file less its own
        self._done: dict[int, Mapping[cst.CSTNode, CodeRange]] = {}
        self._full: Mapping[cst.CSTNode, CodeRange] | None = None

    # ---- the mapping ------------------------------------------------------------------------------
    def get(self, node: cst.CSTNode, default: Any = None) -> Any:
        i = self._statement_of(node)
        if i is None:
            if self._full is not None:  # the statements did not line up
                return self._full.get(node, default)
            return default  # not a node of this module
        r = self._statement(i).get(node)
        if r is None:
            return default
        off = self._offsets[i] if self._offsets is not None else 0
        return CodeRange(CodePosition(r.start.line + off, r.start.column), CodePosition(r.end.line + off, r.end.column))

    def __contains__(self, node: object) -> bool:
        return isinstance(node, cst.CSTNode) and self.get(node) is not None

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        r = self.get(node)
        if r is None:
            raise KeyError(node)
        return r

    def items(self) -> Any:
        return self._whole().items()

    # ---- resolution -------------------------------------------------------------------------------
    def _whole(self) -> Mapping[cst.CSTNode, CodeRange]:
        if self._full is None:
            self._full = resolve_all(self.module)
        return self._full

    def _statement_of(self, node: cst.CSTNode) -> int | None:
        """The index of the top-level statement holding `node`; None when it is not a node of this module,
        or when the statements do not line up with CPython's (then the whole module is resolved)."""
        if self._owner is None:
            self._offsets = self._line_offsets()
            if self._offsets is None:
                self._whole()
                self._owner = {}
            else:
                self._owner = self._walk()
        return self._owner.get(id(node))

    def _walk(self) -> dict[int, int]:
        owner: dict[int, int] = {}
        for i, stmt in enumerate(self.module.body):
            stack: list[Any] = [stmt]
            while stack:
                n = stack.pop()
                owner[id(n)] = i
                for name in node_fields(type(n)) or ():
                    v = getattr(n, name)
                    if type(v) is tuple or type(v) is list:
                        stack.extend(x for x in v if node_fields(type(x)) is not None)
                    elif node_fields(type(v)) is not None:
                        stack.append(v)
        return owner

    def _line_offsets(self) -> list[int] | None:
        """Per top-level statement, its first line in the file less its first line when resolved alone
        (after its own leading lines); None when CPython's statements do not line up with libcst's."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(self.source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        body = tree.body
        out: list[int] = []
        j = 0
        for stmt in self.module.body:
            if j >= len(body):
                return None
            first = body[j]
            line = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", ()))])
            out.append(line - (1 + len(stmt.leading_lines)))
            j += len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
        return out if j == len(body) else None

    def _statement(self, i: int) -> Mapping[cst.CSTNode, CodeRange]:
        hit = self._done.get(i)
        if hit is None:
            alone = self.module.with_changes(body=[self.module.body[i]], header=[], footer=[])
            hit = self._done[i] = resolve_all(alone)
        return hit
