"""A project module read as a dependency, parsed only as far as what is imported from it needs.

`ModuleOutline` splits a module's text into its top-level statements with CPython's `ast` (fast) and records
the names each binds and reads. `partial_module(keep)` is the module with every statement that the wanted
names do not need (transitively: a statement binding any name another kept statement reads, anywhere in it)
turned into blank lines, so libcst parses little and every kept node keeps its line and column in the file.
Imports, compound statements, statements that bind nothing, and assignments that lay out devices or configure JAX
are always kept; the
`if __name__ == "__main__":` block never (a dependency does not run it).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

import libcst as cst

_ALWAYS = re.compile(r"devices|Mesh|jax\.config|jax_enable|prng|PRNG|__all__")


@dataclass(frozen=True)
class _Stmt:
    first: int  # 1-based first line (decorators included)
    last: int  # 1-based last line
    binds: frozenset[str]
    reads: frozenset[str]
    always: bool


def _is_main_guard(s: ast.stmt) -> bool:
    t = s.test if isinstance(s, ast.If) else None
    return (
        isinstance(t, ast.Compare)
        and isinstance(t.left, ast.Name)
        and t.left.id == "__name__"
        and len(t.comparators) == 1
        and isinstance(t.comparators[0], ast.Constant)
        and t.comparators[0].value == "__main__"
    )


def _targets(t: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}


class ModuleOutline:
    """The top-level statements of a module's text, with the names they bind and read."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.text = text
        self.lines = text.splitlines(keepends=True)
        stmts: list[_Stmt] = []
        for s in tree.body:
            if _is_main_guard(s):
                continue
            first = min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", ()))])
            last = s.end_lineno or s.lineno
            binds: set[str] = set()
            always = False
            if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                binds.add(s.name)
            elif isinstance(s, ast.Assign):
                for t in s.targets:
                    binds |= _targets(t)
            elif isinstance(s, ast.AnnAssign | ast.AugAssign):
                binds |= _targets(s.target)
            else:  # imports, expressions, compound statements: kept (cheap, and they may bind anything)
                always = True
            reads = frozenset(n.id for n in ast.walk(s) if isinstance(n, ast.Name))
            if not always and not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                # module code that lays out the devices or configures JAX runs whatever is imported
                always = bool(_ALWAYS.search("".join(self.lines[first - 1 : last])))
            always = always or not binds
            stmts.append(_Stmt(first, last, frozenset(binds), reads, always))
        self.stmts = stmts
        self._parsed: dict[int, tuple[tuple[Any, ...], int]] = {}  # statement -> (libcst statements, last line)
        self.binders: dict[str, list[int]] = {}
        for i, st in enumerate(stmts):
            for n in st.binds:
                self.binders.setdefault(n, []).append(i)

    def binds(self, name: str) -> bool:
        return name in self.binders

    def needed(self, wanted: set[str]) -> set[int]:
        """The statements the wanted names need (the always-kept ones included)."""
        keep = {i for i, st in enumerate(self.stmts) if st.always}
        todo = list(wanted)
        for i in keep:
            todo.extend(self.stmts[i].reads)
        seen: set[str] = set()
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            for i in self.binders.get(n, ()):
                if i not in keep:
                    keep.add(i)
                    todo.extend(self.stmts[i].reads)
        return keep

    def share(self, keep: set[int]) -> float:
        """The share of the module's lines the statements in `keep` take."""
        n = sum(self.stmts[i].last - self.stmts[i].first + 1 for i in keep)
        return n / max(1, len(self.lines))

    def partial_module(self, keep: set[int]) -> Any:
        """A libcst module of the statements in `keep`, each parsed once (cached), with blank lines where the
        others were: every node has its line and column in the file."""
        from namedcheck.analyzer.parsing import parse_module

        body: list[Any] = []
        line = 1  # the next line of the file the module renders
        for i in sorted(keep):
            st = self.stmts[i]
            if st.first < line:  # shares a line with the previous statement (`a = 1; b = 2`): parsed with it
                continue
            nodes = self._parsed.get(i)
            if nodes is None:
                last = st.last
                for j in range(i + 1, len(self.stmts)):  # statements sharing its last line come along
                    if self.stmts[j].first > last:
                        break
                    last = max(last, self.stmts[j].last)
                text = "".join(self.lines[st.first - 1 : last])
                if not text.endswith("\n"):
                    text += "\n"
                nodes = self._parsed[i] = (tuple(parse_module(text, trusted=True).body), last)
            stmts, last = nodes
            gap = st.first - line
            if stmts:
                first = stmts[0]
                pad = [cst.EmptyLine() for _ in range(gap)]
                body.append(first.with_changes(leading_lines=[*pad, *first.leading_lines]))
                body.extend(stmts[1:])
            line = last + 1
        # the file's indentation: a block libcst parsed with no indent of its own renders with it, so a 2-space
        # file's nested nodes keep their columns
        return cst.Module(body=body, default_indent=_indentation(self.lines))


def _indentation(lines: list[str]) -> str:
    """The indentation of a file's first indented block (as libcst infers a module's `default_indent`)."""
    before = ""
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if before.rstrip().endswith(":"):
            indent = line[: len(line) - len(line.lstrip())]
            outer = before[: len(before) - len(before.lstrip())]
            if indent.startswith(outer) and len(indent) > len(outer):
                return indent[len(outer) :]
        before = line
    return "    "
