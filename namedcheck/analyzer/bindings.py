"""Every name a checked file binds, with the types its analysis inferred there (`namedcheck types`).

A binding is an assignment target (`x = ...`, `a, b = ...`, `x += ...`, `x: T = ...`), a `for` / `with ... as` /
`except ... as` / comprehension target, or a function parameter (`*args` and `**kwargs` too). The file goes
through `Session.check`, as `check` does, with an analyzer that records each binding's value every time the
analysis reaches it (a function analysed on its own and at each call: several values). The calls other checked
files make into a module add their values too: the session's dependency analyzers record their bindings, and
`merge` adds them to the module's own listing (a library function typed by its callers in the tests). A binding
the analysis never reached (code after a budget cut it short, a body it did not run) is listed with no value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst

from namedcheck.analyzer import reveal
from namedcheck.analyzer.module import ModuleAnalyzer, via_path
from namedcheck.analyzer.session import Session
from namedcheck.diagnostic import Diagnostic
from namedcheck.engine import spelling
from namedcheck.engine.dtypes import DTYPES
from namedcheck.engine.values import UNKNOWN, ArrayType

MAX_VIAS = 16  # call paths kept per value
CallSites = tuple[tuple[str, int], ...] | None  # the sites of a path of calls, the outermost first; None: no call


@dataclass
class Binding:
    """One binding site: where, the name, what binds it, and the distinct values inferred there."""

    line: int  # 1-based
    column: int  # 1-based
    name: str
    kind: str  # "parameter" or "assignment" (any other binding statement)
    values: list[Any] = field(default_factory=list)
    # for each value, the paths of calls that gave it: where each call was made, the outermost first (None: the
    # file's own analysis)
    vias: list[list[CallSites]] = field(default_factory=list)


@dataclass
class FileTypes:
    """One file's bindings, and the diagnostics of its analysis that say it was not analysed (NC000/NC001)."""

    bindings: list[Binding]
    problems: list[Diagnostic]


def file_types(session: Session, path: str | Path, source: str, display: str | None = None) -> FileTypes:
    """The bindings of one file's text, analysed through `session` as `check` analyses it."""

    def make(module: cst.Module, ops: dict[str, Any], **project: Any) -> ModuleAnalyzer:
        an = ModuleAnalyzer(module, ops, **project)
        an.bindings = []
        return an

    result = session.check(path, source, display, make=make)
    problems = [d for d in result.diagnostics if d.code in ("NC000", "NC001")]
    an = result.analyzer
    if an is None or an.bindings is None:
        return FileTypes([], problems)
    return FileTypes(sites(an.module, an.bindings, an.positions()), problems)


def sites(module: cst.Module, recorded: list[tuple[cst.CSTNode, Any, Any]], positions: Any) -> list[Binding]:
    """Every binding site of `module`, in source order, with the distinct values `recorded` for it (and, for
    each, the paths of calls that gave it)."""
    by_node: dict[int, list[Any]] = {}
    vias: dict[int, list[list[CallSites]]] = {}
    for node, v, root in recorded:
        vs = by_node.setdefault(id(node), [])
        ws = vias.setdefault(id(node), [])
        i = next((i for i, w in enumerate(vs) if _same(v, w)), None)
        if i is None:
            vs.append(v)
            ws.append([])
            i = len(vs) - 1
        at = via_path(root)
        if at not in ws[i] and len(ws[i]) < MAX_VIAS:
            ws[i].append(at)
    out: list[Binding] = []
    for node, kind in _targets(module):
        r = positions.get(node)
        if r is None:
            continue
        b = Binding(r.start.line, r.start.column + 1, node.value, kind, by_node.get(id(node), []))
        b.vias = vias.get(id(node), [[] for _ in b.values])
        out.append(b)
    out.sort(key=lambda b: (b.line, b.column))
    return out


def recorded_elsewhere(analyzers: list[Any]) -> dict[Path, list[Binding]]:
    """The bindings the dependency analyzers of a session recorded (the values the calls other modules make
    give a module's names), by resolved file."""
    out: dict[Path, list[Binding]] = {}
    for an in analyzers:
        if an.path is None or not an.bindings:
            continue
        try:
            found = sites(an.module, an.bindings, an.positions())
        except Exception:  # (positions of a text the analyzer could not place: nothing recorded there)
            continue
        out.setdefault(Path(an.path).resolve(), []).extend(b for b in found if b.values)
    return out


def merge(own: list[Binding], more: list[Binding]) -> list[Binding]:
    """A file's own bindings with the distinct values recorded for the same sites elsewhere (`more`) added
    (a file its own check skipped, having no listing: the sites recorded elsewhere)."""
    by_site = {(b.line, b.column, b.name): b for b in own}
    for m in more:
        b = by_site.get((m.line, m.column, m.name))
        if b is None:
            if own and by_site:
                continue
            b = by_site[(m.line, m.column, m.name)] = Binding(m.line, m.column, m.name, m.kind)
        if len(b.vias) < len(b.values):
            b.vias.extend([] for _ in range(len(b.values) - len(b.vias)))
        for v, ws in zip(m.values, m.vias or [[] for _ in m.values]):
            i = next((i for i, w in enumerate(b.values) if _same(v, w)), None)
            if i is None:
                b.values.append(v)
                b.vias.append([])
                i = len(b.values) - 1
            for at in ws:
                if at not in b.vias[i] and len(b.vias[i]) < MAX_VIAS:
                    b.vias[i].append(at)
    return sorted(by_site.values(), key=lambda b: (b.line, b.column))


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(type(a) is type(b) and a == b)
    except Exception:
        return False


def _targets(module: cst.Module) -> list[tuple[cst.Name, str]]:
    """Every name a binding statement or a parameter list binds, with its kind."""
    out: list[tuple[cst.Name, str]] = []

    def names(t: cst.BaseExpression) -> None:
        if isinstance(t, cst.Name):
            out.append((t, "assignment"))
        elif isinstance(t, cst.Tuple | cst.List):
            for e in t.elements:
                names(e.value)
        elif isinstance(t, cst.StarredElement):
            names(t.value)

    class V(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for t in node.targets:
                names(t.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            names(node.target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            names(node.target)

        def visit_For(self, node: cst.For) -> None:
            names(node.target)

        def visit_CompFor(self, node: cst.CompFor) -> None:
            names(node.target)

        def visit_WithItem(self, node: cst.WithItem) -> None:
            if node.asname is not None:
                names(node.asname.name)

        def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
            if node.name is not None:
                names(node.name.name)

        def visit_Lambda(self, node: cst.Lambda) -> None:
            self.parameters(node.params)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            self.parameters(node.params)

        def parameters(self, p: cst.Parameters) -> None:
            star = [a for a in (p.star_arg, p.star_kwarg) if isinstance(a, cst.Param)]
            for prm in [*p.posonly_params, *p.params, *p.kwonly_params, *star]:
                out.append((prm.name, "parameter"))

    module.visit(V())
    return out


def describe(v: Any) -> dict[str, Any]:
    """A value as `namedcheck types` prints it (docs/cli.md): `type` (the annotation spelling, `unknown`, or
    the Python value), `dtype`, `shape` (ints, symbols, None for an unknown size; None when the rank is not
    known), `rank`, and `array` (whether it is an array type); dtype None: not known to one dtype."""
    if isinstance(v, ArrayType):
        known = not v.has_ellipsis
        return {
            "type": spelling.spell(v),
            "array": True,
            "dtype": v.dtype if v.dtype_code in DTYPES else None,  # (not a family such as `i*`)
            "shape": [d if isinstance(d, int | str) else None for d in v.shape] if known else None,
            "rank": len(v.shape) if known else None,
        }
    if v is UNKNOWN:
        return {"type": "unknown", "array": False, "dtype": None, "shape": None, "rank": None}
    return {"type": reveal.text(v), "array": False, "dtype": None, "shape": None, "rank": None}
