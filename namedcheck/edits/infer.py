"""`namedcheck infer`: annotations the engine fully knows, added to unannotated parameters (from their call
sites, when every call agrees), returns and local assignments (when every analysis agrees).

Types are written in the annotation language (`f32[(8, 4)]`, or `Annotated[jax.Array, f32[(8, 4)]]` with
spelling "annotated"); varying sets are never written (annotations do not state them). A name assigned
more than once in its scope is left alone. The edits are applied and the file analysed again until nothing
new is found, so a second run changes nothing.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import libcst as cst

from namedcheck.analyzer.chunks import ChunkPositions
from namedcheck.analyzer.incremental import Analysis, DocumentAnalyser
from namedcheck.analyzer.parsing import parse_ast, parse_checked
from namedcheck.analyzer.session import Session
from namedcheck.diagnostic import Edit
from namedcheck.edits.fixes import apply_edits
from namedcheck.edits.imports import ImportPlan, first_party_of
from namedcheck.engine import spelling as spelling_
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


def spell(t: ArrayType | Seq, spelling: str | bool = "dims", base: str = "Array") -> str:
    """`t` as `infer` writes it: the Dims spelling (`f32[Array, Dims(8, 4)]`, engine/spelling.py), the literal
    spelling (`f32[(8, 4)]`), or `Annotated[jax.Array, f32[(8, 4)]]` (`annotated`, or True)."""
    if spelling is True:
        spelling = "annotated"
    if spelling in ("dims", False):
        return spelling_.spell(t, base)
    if isinstance(t, Seq):
        return "tuple[" + ", ".join(spell(i, spelling) for i in t.items) + "]"
    text = spelling_.literal(t)
    return f"Annotated[jax.Array, {text}]" if spelling == "annotated" else text


def _dtype_names(t: ArrayType | Seq) -> set[str]:
    if isinstance(t, Seq):
        return set().union(*(_dtype_names(i) for i in t.items))
    return {spelling_.head(t)}


class _Sites(cst.CSTVisitor):
    """Unannotated parameters, returns and single assignments, per scope."""

    def __init__(self) -> None:
        self.functions: list[cst.FunctionDef] = []
        self.assigns: list[tuple[cst.Name, cst.BaseExpression, int]] = []
        self.counts: dict[tuple[int, str], int] = {}
        self.scopes: list[int] = [0]
        # a function, or a scope, -> the name of the top-level function or class it is in (its own for one)
        self.owner: dict[int, str] = {}
        self.tops: list[str] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)
        self.tops.append(node.name.value)
        self.owner[id(node)] = self.tops[0]
        self.scopes.append(id(node))
        for p in [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]:
            self._count(p.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()
        self.tops.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.scopes.append(id(node))
        self.tops.append(node.name.value)
        self.owner[id(node)] = self.tops[0]
        return True

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scopes.pop()
        self.tops.pop()

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


def infer_once(
    source: str, a: Analysis, spelling: str | bool, base: str = "Array", shared: frozenset[str] = frozenset()
) -> tuple[list[Inferred], list[Edit], set[str]]:
    """What one analysis lets us annotate, the edits that add it, and the namedcheck names they use.
    `shared`: functions (and classes) other project modules use: their parameters and returns are left alone
    (this file's calls do not say what those modules pass)."""
    # what an expression was in each analysis; those under a call written in a `__main__` block or a test
    # function (`a.excluded`) may only veto: a type needs one analysis of the program itself
    values: dict[int, list[Any]] = {}
    own: set[int] = set()
    for i, (node, v) in enumerate(a.values):
        values.setdefault(id(node), []).append(v)
        if i not in a.excluded:
            own.add(id(node))
    positions = ChunkPositions(a.chunks)
    lines = source.splitlines()
    found: list[Inferred] = []
    edits: list[Edit] = []
    dtypes: set[str] = set()
    for _, chunk in a.chunks:
        sites = _Sites()
        chunk.module.visit(sites)
        for fn in sites.functions:
            if sites.owner.get(id(fn)) in shared:
                continue
            every = a.functions.get(id(fn), (None, []))[1]
            vetoes = [r for r in every if r.kind == "excluded"]
            records = [r for r in every if r.kind != "excluded"]
            at_calls = [r for r in records if r.kind in ("call", "map")]
            for p in [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]:
                if p.annotation is not None or not at_calls:
                    continue
                t = agreed([r.params.get(p.name.value, UNKNOWN) for r in at_calls + vetoes])
                r = positions.get(p.name)
                if t is None or r is None:
                    continue
                text = spell(t, spelling, base)
                found.append(Inferred(r.end.line, r.end.column, "parameter", p.name.value, text))
                dtypes |= _dtype_names(t)
                if p.default is not None and p.equal is not cst.MaybeSentinel.DEFAULT:
                    # `x=1` becomes `x: T = 1` (PEP 8 spacing around `=` of an annotated parameter)
                    eq = positions.get(p.equal)
                    if eq is not None:
                        edits.append(Edit(eq.start.line, eq.start.column + 1, eq.end.line, eq.end.column + 1, " = "))
                edits.append(Edit(r.end.line, r.end.column + 1, r.end.line, r.end.column + 1, f": {text}"))
            if fn.returns is None and records:
                t = agreed([r.returns for r in (at_calls or records) + vetoes])
                params = positions.get(fn.params)
                close = closing_paren(lines, params.end.line, params.end.column) if params is not None else None
                if t is not None and close is not None:
                    text = spell(t, spelling, base)
                    found.append(Inferred(close[0], close[1], "return", fn.name.value, text))
                    dtypes |= _dtype_names(t)
                    edits.append(Edit(close[0], close[1] + 1, close[0], close[1] + 1, f" -> {text}"))
        for target, value, scope in sites.assigns:
            if sites.counts.get((scope, target.value), 0) != 1 or sites.owner.get(scope) in shared:
                continue  # (inside a function other modules use: its values depend on what they pass)
            t = agreed(values.get(id(value), [])) if id(value) in own else None
            r = positions.get(target)
            if t is None or r is None or isinstance(t, Seq):
                continue
            text = spell(t, spelling, base)
            found.append(Inferred(r.end.line, r.end.column, "local", target.value, text))
            dtypes |= _dtype_names(t)
            edits.append(Edit(r.end.line, r.end.column + 1, r.end.line, r.end.column + 1, f": {text}"))
    if spelling in ("dims", False):
        dtypes.add("Dims")
    return found, edits, dtypes if edits else set()


def _base(plan: ImportPlan) -> tuple[str, bool]:
    """How the module names `jax.Array` in an annotation, and whether `from jax import Array` must be added."""
    bound = plan.bound()
    if bound.get("Array") == "jax.Array":
        return "Array", False
    if bound.get("jax") == "jax":
        return "jax.Array", False
    return "Array", "Array" not in bound


def add_imports(source: str, names: set[str], spelling: str | bool, path: str = "") -> str:
    """The source with the imports its new annotations need, placed as ruff's isort places them. A module that
    already imports namedcheck gets the names in its `from namedcheck import ...` (or a new one); another
    imports them under `if TYPE_CHECKING:` (namedcheck stays out of its run-time dependencies) with
    `from __future__ import annotations` (the annotations are never evaluated)."""
    first_party, length = first_party_of(path) if path else (frozenset(), 88)

    def plan() -> ImportPlan:
        return ImportPlan(source, first_party, length)

    p = plan()
    annotated = spelling in ("annotated", True)
    need: dict[str, set[str]] = {"namedcheck": set(names)}
    if spelling in ("dims", False) and _base(p)[1]:
        need["jax"] = {"Array"}
    if annotated:
        bound = p.bound()
        for step in (
            lambda q: q.add_from("typing", {"Annotated"}) if "Annotated" not in bound else [],
            lambda q: q.add_import("jax") if "jax" not in bound else [],
        ):
            source = apply_edits(source, step(plan()))
    runtime = annotated or p.imports_at_runtime("namedcheck")
    if runtime:
        for mod, ns in need.items():
            source = apply_edits(source, plan().add_from(mod, ns))
        return source
    if not p.has_future_annotations():
        source = apply_edits(source, plan().future_annotations_edit())
    if "TYPE_CHECKING" not in plan().bound():
        source = apply_edits(source, plan().add_from("typing", {"TYPE_CHECKING"}))
    if plan().checking is None:
        return apply_edits(source, plan().typing_block_edit(need))
    for mod, ns in need.items():
        source = apply_edits(source, plan().add_from(mod, ns, typing_only=True))
    return source


def shared_names(path: str, session: Session, source: str) -> frozenset[str]:
    """The top-level functions and classes of `path` that other project modules name (importers of the file,
    transitively): their parameter types depend on calls this file does not see."""
    try:
        importers = session.importers([path])
    except (OSError, RuntimeError, ValueError):
        return frozenset()
    defined = _top_names(source)
    if not importers or not defined:
        return frozenset()
    used: set[str] = set()
    for f in importers:
        text = session.read(Path(f))
        if text is None:
            return frozenset(defined)  # not known what it uses: all of them
        used |= {n for n in defined if re.search(rf"\b{re.escape(n)}\b", text)}
    return frozenset(used)


def _top_names(source: str) -> set[str]:
    tree = parse_ast(source)  # (the guard first)
    if tree is None:
        return set()
    return {s.name for s in tree.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}


def is_test_file(path: str) -> bool:
    name = Path(path).name
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"


def excluded_ranges(source: str, path: str) -> list[tuple[int, int]]:
    """The line ranges whose calls `infer` takes no types from: `if __name__ == "__main__":` blocks (a library's
    self-test calls its API with the shapes of one example) and, in a test file, test functions and methods."""
    tree = parse_ast(source)  # (the guard first)
    if tree is None:
        return []
    out: list[tuple[int, int]] = []
    for s in tree.body:
        if isinstance(s, ast.If) and _is_main_test(s.test):
            out.append((s.lineno, s.end_lineno or s.lineno))
        if is_test_file(path):
            for d in [s, *(s.body if isinstance(s, ast.ClassDef) else [])]:
                if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef) and d.name.startswith("test"):
                    out.append((d.lineno, d.end_lineno or d.lineno))
    return out


def _is_main_test(test: ast.expr) -> bool:
    """`__name__ == "__main__"` (either side)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides) and any(
        isinstance(x, ast.Constant) and x.value == "__main__" for x in sides
    )


class NotInferable(Exception):
    """A file `infer` leaves as it is, and why (the resource guard refuses its text)."""


def infer_source(
    source: str,
    path: str,
    annotated: str | bool = "dims",
    stub_paths: tuple[str, ...] = (),
    session: Session | None = None,
) -> tuple[str, list[Inferred]]:
    """The source with every annotation the engine fully knows added (to a fixpoint), and what was added;
    the file is analysed in its project (`session`'s, else a new one's). `annotated`: the spelling ("dims",
    "literal" or "annotated"; True / False: "annotated" / "dims"). Raises `NotInferable` for a text the
    resource guard refuses as a whole (as `check` refuses it: one NC001 there)."""
    from namedcheck.analyzer.budget import python_rejects

    spelling = "annotated" if annotated is True else "dims" if annotated is False else annotated
    refused = python_rejects(source, session.limits if session is not None else None)
    if refused is not None:
        raise NotInferable(f"line {refused[0]}: {refused[2]}")
    session = session if session is not None else Session(stub_paths)
    shared = shared_names(path, session, source)
    added: list[Inferred] = []
    shift = 0  # lines the imports added so far
    for _ in range(MAX_ROUNDS):
        # a new analyser each round: a replayed analysis would not say which of its values came from
        # calls in the excluded ranges
        analyser = DocumentAnalyser(
            path, stub_paths, session=session, callers=False, excluded_lines=lambda s: excluded_ranges(s, path)
        )
        a = analyser.analyse(source)
        if not a.chunks or a.failed:  # (a text that does not parse: the editor's partial analysis is not a file)
            break
        base = _base(ImportPlan(source))[0] if spelling == "dims" else "Array"
        found, edits, names = infer_once(source, a, spelling, base, shared)
        if not edits:
            break
        new = apply_edits(source, edits)
        try:
            new = add_imports(new, names, spelling, path)
            parse_checked(new)  # (the guard first)
        except Exception:
            break
        # sites are listed where they are in the given source: the lines imports added above them taken off
        found = [replace(i, line=i.line - shift) for i in found] if shift else found
        added += found
        shift += len(new.splitlines()) - len(apply_edits(source, edits).splitlines())
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
