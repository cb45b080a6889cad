"""`namedcheck infer`: annotations the engine fully knows, added to unannotated parameters (from their call
sites, when every call agrees), returns and local assignments (when every analysis agrees).

Types are written in the annotation language (`f32[(8, 4)]`, or `Annotated[jax.Array, f32[(8, 4)]]` with
spelling "annotated"); varying sets are never written (annotations do not state them). A name assigned
more than once in its scope is left alone. The edits are applied and the file analysed again until nothing
new is found, so a second run changes nothing.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from typing import Any

import libcst as cst

from namedcheck.analyzer.chunks import ChunkPositions
from namedcheck.analyzer.incremental import Analysis, DocumentAnalyser
from namedcheck.analyzer.parsing import parse_checked
from namedcheck.analyzer.session import Session
from namedcheck.diagnostic import Edit
from namedcheck.edits.fixes import apply_edits
from namedcheck.engine import symbolic
from namedcheck.engine.values import UNKNOWN, ArrayType, Seq

MAX_ROUNDS = 4


@dataclass(frozen=True)
class Inferred:
    """One annotation to add: where (1-based line, 0-based column), what kind of site, the name and type."""

    line: int
    column: int
    kind: str  # "parameter", "return" or "local"
    name: str
    type: str


def known_type(v: Any) -> ArrayType | Seq | None:
    """The value as an annotation states it, when every part of it is known (tuples of such arrays too)."""
    if isinstance(v, Seq) and v.kind == "tuple" and v.items:
        items = [known_type(i) for i in v.items]
        return Seq(tuple(items), "tuple") if all(isinstance(i, ArrayType) for i in items) else None
    if not isinstance(v, ArrayType) or v.weak or v.dtype_code is None or v.named_open or v.has_ellipsis:
        return None
    dims = [*v.shape, *(s for _, s in v.named)]
    # a symbol the annotation syntax spells (`'B'`, `'N+1'`); not one named after code (`'config.batch_size'`)
    if not all(
        isinstance(d, int) and not isinstance(d, bool) or isinstance(d, str) and symbolic.parse(d) for d in dims
    ):
        return None
    out = ArrayType(v.dtype_code, v.shape, v.named)
    shd = known_sharding(v)
    return out.with_sharding(shd, v.mesh) if shd is not None else out


def known_sharding(v: ArrayType) -> tuple[tuple[str, ...], ...] | None:
    """The sharding an annotation may state: every dim's mesh axes known, some dim split, over a fully
    known mesh whose axes the sharding names are Explicit (a replicated value is left unstated: a plain
    shape states no sharding, which always holds); positional integer dims only."""
    s, m = v.sharding, v.mesh
    if (
        s is None
        or not any(s)
        or len(s) != len(v.shape)
        or v.named
        or m is None
        or m.open
        or m.types is None
        or v.unreduced
        or v.reduced
        or not all(isinstance(d, int) for d in v.shape)
    ):
        return None
    types = dict(zip(m.names, m.types))
    return s if all(types.get(a) == "explicit" for e in s for a in e) else None


def _unsharded(t: ArrayType | Seq | None) -> ArrayType | Seq | None:
    if isinstance(t, Seq):
        return Seq(tuple(_unsharded(i) for i in t.items), t.kind)
    return t.with_sharding(None) if isinstance(t, ArrayType) and t.sharding is not None else t


def agreed(values: list[Any]) -> ArrayType | Seq | None:
    """The one fully known type all values have (None when one is not known or two shapes differ; the
    sharding only where every value has the same one)."""
    types = [known_type(v) for v in values]
    if not types or any(t is None for t in types):
        return None
    if all(t == types[0] for t in types):
        return types[0]
    plain = [_unsharded(t) for t in types]
    return plain[0] if all(t == plain[0] for t in plain) else None


def _axes_text(e: tuple[str, ...]) -> str:
    return "@" + (e[0] if len(e) == 1 else "(" + ",".join(e) + ")")


def spell(t: ArrayType | Seq, annotated: bool) -> str:
    if isinstance(t, Seq):
        return "tuple[" + ", ".join(spell(i, annotated) for i in t.items) + "]"
    if t.sharding is not None:  # `f32[('8@data', 4)]`: a split dim is written as a string
        dims = ", ".join(repr(f"{d}{_axes_text(e)}") if e else str(d) for d, e in zip(t.shape, t.sharding))
        text = f"{t.dtype_code}[({dims}{',' if len(t.shape) == 1 else ''})]"
    else:
        text = repr(t)
    return f"Annotated[jax.Array, {text}]" if annotated else text


def _dtype_names(t: ArrayType | Seq) -> set[str]:
    if isinstance(t, Seq):
        return set().union(*(_dtype_names(i) for i in t.items))
    return {t.dtype_code or "Array"}


class _Sites(cst.CSTVisitor):
    """Unannotated parameters, returns and single assignments, per scope."""

    def __init__(self) -> None:
        self.functions: list[cst.FunctionDef] = []
        self.assigns: list[tuple[cst.Name, cst.BaseExpression, int]] = []
        self.counts: dict[tuple[int, str], int] = {}
        self.scopes: list[int] = [0]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)
        self.scopes.append(id(node))
        for p in [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]:
            self._count(p.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.scopes.append(id(node))
        return True

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scopes.pop()

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def _count(self, name: str) -> None:
        key = (self.scopes[-1], name)
        self.counts[key] = self.counts.get(key, 0) + 1

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            for n in _names(t.target):
                self._count(n)
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self.assigns.append((node.targets[0].target, node.value, self.scopes[-1]))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        for n in _names(node.target):
            self._count(n)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        for n in _names(node.target):
            self._count(n)

    def visit_For(self, node: cst.For) -> None:
        for n in _names(node.target):
            self._count(n)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            for n in _names(node.asname.name):
                self._count(n)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        for n in _names(node.target):
            self._count(n)


def _names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, cst.Tuple | cst.List):
        return [n for e in target.elements for n in _names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _names(target.value)
    return []


def infer_once(source: str, a: Analysis, annotated: bool) -> tuple[list[Inferred], list[Edit]]:
    """What one analysis lets us annotate, and the edits (annotations and imports) that add it."""
    values: dict[int, list[Any]] = {}
    for node, v in a.values:
        values.setdefault(id(node), []).append(v)
    positions = ChunkPositions(a.chunks)
    lines = source.splitlines()
    found: list[Inferred] = []
    edits: list[Edit] = []
    dtypes: set[str] = set()
    for _, chunk in a.chunks:
        sites = _Sites()
        chunk.module.visit(sites)
        for fn in sites.functions:
            records = a.functions.get(id(fn), (None, []))[1]
            at_calls = [r for r in records if r.kind in ("call", "map")]
            for p in [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]:
                if p.annotation is not None or not at_calls:
                    continue
                t = agreed([r.params.get(p.name.value, UNKNOWN) for r in at_calls])
                r = positions.get(p.name)
                if t is None or r is None:
                    continue
                found.append(Inferred(r.end.line, r.end.column, "parameter", p.name.value, spell(t, annotated)))
                dtypes |= _dtype_names(t)
                if p.default is not None and p.equal is not cst.MaybeSentinel.DEFAULT:
                    # `x=1` becomes `x: T = 1` (PEP 8 spacing around `=` of an annotated parameter)
                    eq = positions.get(p.equal)
                    if eq is not None:
                        edits.append(Edit(eq.start.line, eq.start.column + 1, eq.end.line, eq.end.column + 1, " = "))
                edits.append(
                    Edit(r.end.line, r.end.column + 1, r.end.line, r.end.column + 1, f": {spell(t, annotated)}")
                )
            if fn.returns is None and records:
                t = agreed([r.returns for r in (at_calls or records)])
                params = positions.get(fn.params)
                close = closing_paren(lines, params.end.line, params.end.column) if params is not None else None
                if t is not None and close is not None:
                    found.append(Inferred(close[0], close[1], "return", fn.name.value, spell(t, annotated)))
                    dtypes |= _dtype_names(t)
                    edits.append(Edit(close[0], close[1] + 1, close[0], close[1] + 1, f" -> {spell(t, annotated)}"))
        for target, value, scope in sites.assigns:
            if sites.counts.get((scope, target.value), 0) != 1:
                continue
            t = agreed(values.get(id(value), []))
            r = positions.get(target)
            if t is None or r is None or isinstance(t, Seq):
                continue
            found.append(Inferred(r.end.line, r.end.column, "local", target.value, spell(t, annotated)))
            dtypes |= _dtype_names(t)
            edits.append(Edit(r.end.line, r.end.column + 1, r.end.line, r.end.column + 1, f": {spell(t, annotated)}"))
    if edits:
        edits.extend(_imports(a, dtypes, annotated))
    return found, edits


def _imports(a: Analysis, dtypes: set[str], annotated: bool) -> list[Edit]:
    """Imports the new annotations need that the module lacks: added to its `from namedcheck import ...`,
    or on a line after its last top-level import (after the docstring when it has none)."""
    have: set[str] = set()
    after = 0  # the line after which new import lines go
    nc_from: tuple[int, int] | None = None  # the end of the last name of `from namedcheck import ...`
    for offset, chunk in a.chunks:
        pos = chunk.positions()
        for s in chunk.module.body:
            if not isinstance(s, cst.SimpleStatementLine):
                continue
            for small in s.body:
                if isinstance(small, cst.Import | cst.ImportFrom) and isinstance(small.names, tuple | list):
                    after = pos[s].end.line + offset
                    have |= {
                        (n.asname.name.value if n.asname else chunk.module.code_for_node(n.name)) for n in small.names
                    }
                    if (
                        isinstance(small, cst.ImportFrom)
                        and small.module is not None
                        and small.relative == ()
                        and chunk.module.code_for_node(small.module) == "namedcheck"
                    ):
                        r = pos[small.names[-1].name]
                        nc_from = (r.end.line + offset, r.end.column + 1)
                elif isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString) and not after:
                    after = pos[s].end.line + offset
    need = sorted(dtypes - have)
    edits = []
    lines = []
    if need and nc_from is not None:
        edits.append(Edit(nc_from[0], nc_from[1], nc_from[0], nc_from[1], "".join(f", {n}" for n in need)))
    elif need:
        lines.append(f"from namedcheck import {', '.join(need)}\n")
    if annotated and "Annotated" not in have:
        lines.append("from typing import Annotated\n")
    if annotated and "jax" not in have:
        lines.append("import jax\n")
    if lines:
        edits.append(Edit(after + 1, 1, after + 1, 1, "".join(lines)))
    return edits


class NotInferable(Exception):
    """A file `infer` leaves as it is, and why (the resource guard refuses its text)."""


def infer_source(
    source: str, path: str, annotated: bool = False, stub_paths: tuple[str, ...] = (), session: Session | None = None
) -> tuple[str, list[Inferred]]:
    """The source with every annotation the engine fully knows added (to a fixpoint), and what was added;
    the file is analysed in its project (`session`'s, else a new one's). Raises `NotInferable` for a text the
    resource guard refuses as a whole (as `check` refuses it: one NC001 there)."""
    from namedcheck.analyzer.budget import python_rejects

    refused = python_rejects(source, session.limits if session is not None else None)
    if refused is not None:
        raise NotInferable(f"line {refused[0]}: {refused[2]}")
    analyser = DocumentAnalyser(path, stub_paths, session=session, callers=False)
    added: list[Inferred] = []
    for _ in range(MAX_ROUNDS):
        a = analyser.analyse(source)
        if not a.chunks:
            break
        found, edits = infer_once(source, a, annotated)
        if not edits:
            break
        new = apply_edits(source, edits)
        try:
            parse_checked(new)  # (the guard first)
        except Exception:
            break
        shift = sum(e.text.count("\n") for e in edits)
        added = [replace(i, line=i.line + shift) for i in added] + found if shift else added + found
        source = new
    return source, added


def unified_diff(path: str, old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=f"a/{path}", tofile=f"b/{path}"
        )
    )


def closing_paren(lines: list[str], line: int, column: int) -> tuple[int, int] | None:
    """The position just after the first `)` at or after (line, column)."""
    for ln in range(line, min(line + 5, len(lines) + 1)):
        text = lines[ln - 1]
        i = text.find(")", column if ln == line else 0)
        if i >= 0:
            return ln, i + 1
    return None
