"""Multi-module mode of `bench/realcode.py` (`python bench/realcode.py projects`): recall when the cause
of a bug and its effect sit in different modules of one project.

Projects: each installed package (maxtext, easydel, levanter, flax, equinox) is one project; the example
programs of flax's source distribution (`pip download --no-binary :all: flax`; the wheels of flax and
equinox ship no examples, equinox's sdist none either) give one project per example directory (they import
their siblings script-style: `import models`). An `ast` import graph finds, for every module, the names
other modules of the same project import from it (through `from m import f`, `import m as x` + `x.f`,
relative imports and one level of package re-exports), and the lines where the importer uses them.

Mutants (unverified, not run): the one-line operators of the single-file mode applied inside functions and
classes that another module imports (the callee side), plus `call_swap_args` (the first two positional
arguments of a call to an imported function or class swapped, in the importer). Each mutant is checked
together with the modules on the other side of the import (at most MAX_PARTNERS), in its project tree (a
hard-linked copy with the one file replaced). A mutant is flagged at the line when a new diagnostic lies
within 2 lines of the edit or on an importer's line that uses the mutated name (the effect); for flagged
mutants the mutated file is also checked alone (copied into an empty directory) to count the hits that need
the project. False positives: diagnostics on the unmutated file sets (and `realcode.py precision` over the
whole trees).

Runnable (verified): RUNNABLE_PROJECTS in `bench/realcode_projects_data.py`, small multi-module sharded
programs (a package with config / layers / sharding / model modules and a `main.py`). Mutants of every
module (and `config_size`: an int default of a config field or module constant changed) are run under real
JAX (8 forced host devices) and kept only when JAX raises while the unmutated project runs cleanly. The
effect lines are the project frames of JAX's traceback; a mutant is flagged when a new diagnostic lies within
2 lines of the edit or on one of those lines.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from realcode import (
    INTERNAL_CODES,
    Diagnostic,
    default_checker,
    flax_sdist,
    link_tree,
    located,
    location_line,
    prepare_packages,
    run_checker,
    workdir,
)
from realcode_mutants import NEAR_LINES, XLA_FLAGS, Edit, Finder, Mutant, requote

MAX_PARTNERS = 3
PROJECT_PACKAGES = ("flax_examples", "maxtext", "easydel", "levanter", "flax", "equinox")
LAYER_MODULES = {"nn", "nnx", "eqx.nn", "linen"}
SKIP_PARTS = {"__pycache__", "bin", "tests", "test", "testing"}


# ----------------------------------------------------------------------------------------------
# Projects and their import graphs


@dataclass
class Project:
    name: str
    root: Path  # the directory holding the top-level packages / scripts
    modules: dict[str, Path] = field(default_factory=dict)  # dotted name -> file
    packages: set[str] = field(default_factory=set)  # dotted names that are packages

    @staticmethod
    def scan(name: str, root: Path) -> Project:
        proj = Project(name, root)
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root)
            if any(p in SKIP_PARTS or p.endswith(".dist-info") or not p.isidentifier() for p in rel.parts[:-1]):
                continue
            if path.name.endswith("_test.py") or path.name.startswith("test_"):
                continue
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
                if parts:
                    proj.packages.add(".".join(parts))
            if parts and all(p.isidentifier() for p in parts):
                proj.modules[".".join(parts)] = path
        return proj


@dataclass(frozen=True)
class Use:
    caller: str  # module importing
    callee: str  # module defining the name
    name: str  # top-level name in the callee
    lines: tuple[int, ...]  # the caller's lines using it


def _absolute(module: str | None, level: int, current: str, is_pkg: bool) -> str | None:
    if level == 0:
        return module
    base = current.split(".") if is_pkg else current.split(".")[:-1]
    if level - 1 > len(base):
        return None
    base = base[: len(base) - (level - 1)]
    parts = [*base, *(module.split(".") if module else [])]
    return ".".join(parts) if parts else None


def _defines(tree: ast.Module) -> set[str]:
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
    return out


def _statement_spans(tree: ast.Module) -> dict[int, tuple[int, ...]]:
    """For each line, the lines of the innermost simple statement on it (a use's effect may be reported on any
    line of the statement: `shard_map(f, ...,` / `out_specs=...)`)."""
    out: dict[int, tuple[int, ...]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not hasattr(node, "body"):
            lo, hi = node.lineno, node.end_lineno or node.lineno
            span = tuple(range(lo, hi + 1))
            for ln in span:
                if ln not in out or len(out[ln]) > len(span):
                    out[ln] = span
    return out


class Graph:
    """Who imports which top-level name of which module, and where it is used."""

    def __init__(self, proj: Project) -> None:
        self.proj = proj
        self.trees: dict[str, ast.Module] = {}
        for mod, path in proj.modules.items():
            try:
                self.trees[mod] = ast.parse(path.read_bytes())
            except (SyntaxError, ValueError, OSError):
                continue
        self.defs = {m: _defines(t) for m, t in self.trees.items()}
        self.uses: list[Use] = []
        for mod, tree in self.trees.items():
            self.uses.extend(self._uses_of(mod, tree))

    def _origin(self, mod: str, name: str, depth: int = 0) -> tuple[str, str] | None:
        """The module that defines `name` read from `mod` (one re-export followed per level)."""
        if mod not in self.trees or depth > 3:
            return None
        if name in self.defs[mod]:
            # defined here unless it is itself an import (handled below)
            return mod, name
        for node in self.trees[mod].body:
            if isinstance(node, ast.ImportFrom):
                base = _absolute(node.module, node.level, mod, mod in self.proj.packages)
                for a in node.names:
                    if (a.asname or a.name) == name and base:
                        return self._origin(base, a.name, depth + 1)
        return None

    def _uses_of(self, mod: str, tree: ast.Module) -> Iterable[Use]:
        local: dict[str, tuple[str, str]] = {}  # local name -> (callee module, name)
        aliases: dict[str, str] = {}  # local name -> project module
        is_pkg = mod in self.proj.packages
        script_dir = mod.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = _absolute(node.module, node.level, mod, is_pkg)
                if base is None:
                    continue
                for a in node.names:
                    if a.name == "*":
                        continue
                    sub = f"{base}.{a.name}"
                    if sub in self.trees:
                        aliases[a.asname or a.name] = sub
                    elif base in self.trees:
                        origin = self._origin(base, a.name)
                        if origin is not None and origin[0] != mod:
                            local[a.asname or a.name] = origin
            elif isinstance(node, ast.Import):
                for a in node.names:
                    target = a.name
                    if target not in self.trees and script_dir and f"{script_dir}.{target}" in self.trees:
                        target = f"{script_dir}.{target}"  # script-style sibling import
                    if target in self.trees and target != mod:
                        if a.asname:
                            aliases[a.asname] = target
                        elif "." not in a.name:
                            aliases[a.name] = target
        own = self.defs.get(mod, set())
        spans = _statement_spans(tree)
        lines: dict[tuple[str, str], set[int]] = defaultdict(set)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and (node.id in local or node.id in own):
                origin = local.get(node.id, (mod, node.id))
                lines[origin].update(spans.get(node.lineno, (node.lineno,)))
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                origin = self._origin(aliases[node.value.id], node.attr)
                if origin is not None and origin[0] != mod:
                    lines[origin].update(spans.get(node.lineno, (node.lineno,)))
        for (callee, name), ls in sorted(lines.items()):
            yield Use(mod, callee, name, tuple(sorted(ls)))


# ----------------------------------------------------------------------------------------------
# Mutants


@dataclass(frozen=True)
class ProjMutant:
    project: str
    module: str  # the edited module
    mutant: Mutant
    partners: tuple[str, ...]  # modules checked with it
    effect: tuple[tuple[str, int], ...]  # (module, line) where the effect shows (importer's uses)


def _top_ranges(tree: ast.Module) -> list[tuple[str, int, int]]:
    """(name, first line, last line) of the top-level definitions and of constants assigned to one name."""
    out: list[tuple[str, int, int]] = []
    for n in tree.body:
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.append((n.name, n.lineno, n.end_lineno or n.lineno))
        elif isinstance(n, ast.Assign | ast.AnnAssign):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                out.append((targets[0].id, n.lineno, n.end_lineno or n.lineno))
    return out


def _apply(source: bytes, edit: Edit) -> tuple[str, str, str]:
    lines = source.splitlines(keepends=True)
    old = lines[edit.line - 1]
    new = old[: edit.start] + edit.text.encode("utf-8") + old[edit.end :]
    mutated = b"".join([*lines[: edit.line - 1], new, *lines[edit.line :]]).decode("utf-8")
    return mutated, old.decode("utf-8").strip(), new.decode("utf-8").strip()


def swap_edits(
    tree: ast.Module, source: bytes, names: set[str], aliases: set[str], layers: bool = False
) -> list[tuple[str, Edit]]:
    """`f(a, b)` -> `f(b, a)` for calls of imported names (or `alias.f(...)`; `layers`: also library layer
    constructors such as `nnx.Linear(a, b)`)."""
    lines = source.splitlines()
    out: list[tuple[str, Edit]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        fn = node.func
        hit = (
            (isinstance(fn, ast.Name) and fn.id in names)
            or (isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name) and fn.value.id in aliases)
            or (
                layers
                and isinstance(fn, ast.Attribute)
                and fn.attr[:1].isupper()
                and isinstance(fn.value, ast.Name | ast.Attribute)
                and ast.unparse(fn.value) in LAYER_MODULES
            )
        )
        a, b = node.args[0], node.args[1]
        if not hit or isinstance(a, ast.Starred) or isinstance(b, ast.Starred):
            continue
        if a.lineno != b.end_lineno or a.lineno != a.end_lineno:
            continue
        line = lines[a.lineno - 1]
        ta = line[a.col_offset : a.end_col_offset].decode("utf-8")
        tb = line[b.col_offset : b.end_col_offset].decode("utf-8")
        if ta == tb:
            continue
        gap = line[a.end_col_offset : b.col_offset].decode("utf-8")
        assert b.end_col_offset is not None
        out.append((ast.unparse(fn), Edit(a.lineno, a.col_offset, b.end_col_offset, tb + gap + ta)))
    return out


SHAPE_CALLS = {"normal", "uniform", "truncated_normal", "zeros", "ones", "full", "empty", "param", "standard_normal"}


def shape_edits(tree: ast.Module, source: bytes) -> list[tuple[str, Edit]]:
    """The last two entries of a shape literal swapped (`normal(k, (d_in, d_out))` -> `(d_out, d_in)`), in calls
    creating arrays or parameters."""
    lines = source.splitlines()
    out: list[tuple[str, Edit]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name not in SHAPE_CALLS:
            continue
        for arg in node.args:
            if not isinstance(arg, ast.Tuple) or len(arg.elts) < 2 or arg.lineno != arg.end_lineno:
                continue
            a, b = arg.elts[-2], arg.elts[-1]
            if isinstance(a, ast.Starred) or isinstance(b, ast.Starred) or b.end_col_offset is None:
                continue
            line = lines[a.lineno - 1]
            ta = line[a.col_offset : a.end_col_offset].decode("utf-8")
            tb = line[b.col_offset : b.end_col_offset].decode("utf-8")
            if ta != tb:
                gap = line[a.end_col_offset : b.col_offset].decode("utf-8")
                out.append((name, Edit(a.lineno, a.col_offset, b.end_col_offset, tb + gap + ta)))
    return out


def config_edits(tree: ast.Module, source: bytes, names: set[str] | None) -> list[tuple[str, Edit]]:
    """An int default of a class field or a module constant (> 1) changed to a nearby value."""
    out: list[tuple[str, Edit]] = []

    def consider(owner: str, value: ast.expr | None) -> None:
        if (
            isinstance(value, ast.Constant)
            and type(value.value) is int
            and value.value > 1
            and value.end_col_offset is not None
        ):
            new = value.value + 1 if value.value % 2 == 0 else value.value * 2
            out.append((owner, Edit(value.lineno, value.col_offset, value.end_col_offset, str(new))))

    for node in tree.body:
        if isinstance(node, ast.ClassDef) and (names is None or node.name in names):
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign):
                    consider(node.name, stmt.value)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            named = [t.id for t in targets if isinstance(t, ast.Name)]
            if named and (names is None or any(n in names for n in named)) and named[0].isupper():
                consider("<module>", node.value)
            if isinstance(node.value, ast.Call):  # CFG = Config(d_model=32, ...)
                for kw in node.value.keywords:
                    if named and (names is None or any(n in names for n in named)):
                        consider("<module>", kw.value)
    return out


def project_mutants(proj: Project, graph: Graph, runnable: bool = False) -> list[tuple[ProjMutant, str]]:
    """Every candidate cross-module mutant of a project, with its mutated text."""
    by_callee: dict[str, list[Use]] = defaultdict(list)
    by_caller: dict[str, list[Use]] = defaultdict(list)
    effects: dict[str, list[Use]] = defaultdict(list)  # every use, same-module ones too: effect lines
    for u in graph.uses:
        effects[u.callee].append(u)
        if u.caller == u.callee:
            continue
        by_callee[u.callee].append(u)
        by_caller[u.caller].append(u)
    out: list[tuple[ProjMutant, str]] = []
    for mod, tree in graph.trees.items():
        path = proj.modules[mod]
        source = path.read_bytes()
        if b"jax" not in source and not runnable:
            continue
        ranges = _top_ranges(tree)
        imported = {u.name for u in by_callee.get(mod, [])}
        callers = sorted({u.caller for u in by_callee.get(mod, [])})
        seen: set[tuple[int, int, int, str]] = set()

        def add(
            kind: str,
            context: str,
            function: str,
            edit: Edit,
            partners: Sequence[str],
            effect: Sequence[tuple[str, int]],
            seen: set[tuple[int, int, int, str]] = seen,
            source: bytes = source,
            path: Path = path,
            mod: str = mod,
        ) -> None:
            key = (edit.line, edit.start, edit.end, edit.text)
            if key in seen:
                return
            seen.add(key)
            mutated, before, after = _apply(source, edit)
            origin = f"{proj.name}:{path.relative_to(proj.root)}"
            m = Mutant(origin, function, edit.line, kind, context, before, after)
            out.append((ProjMutant(proj.name, mod, m, tuple(partners[:MAX_PARTNERS]), tuple(effect)), mutated))

        if callers:
            finder = Finder(source, allow_module_level=runnable)
            for function, kind, context, edit in finder.run(tree):
                owner = next((n for n, lo, hi in ranges if lo <= edit.line <= hi), None)
                if owner is None and not runnable:
                    continue
                if owner is not None and owner not in imported and not runnable:
                    continue
                effect = [(u.caller, ln) for u in effects[mod] if u.name == owner for ln in u.lines]
                partners = sorted({u.caller for u in by_callee[mod] if u.name == owner}) or callers
                add(kind, context, function, edit, partners, effect)
            for context, edit in shape_edits(tree, source):
                owner = next((n for n, lo, hi in ranges if lo <= edit.line <= hi), None)
                if owner is None or (owner not in imported and not runnable):
                    continue
                effect = [(u.caller, ln) for u in effects[mod] if u.name == owner for ln in u.lines]
                partners = sorted({u.caller for u in by_callee[mod] if u.name == owner}) or callers
                add("shape_swap", context, owner, edit, partners, effect)
            for owner, edit in config_edits(tree, source, imported if not runnable else None):
                if not runnable:
                    break  # a changed size is a bug only where JAX says so: runnable set only
                name = next((n for n, lo, hi in ranges if lo <= edit.line <= hi), owner)
                effect = [(u.caller, ln) for u in effects[mod] if u.name == name for ln in u.lines]
                add("config_size", owner, owner, edit, callers, effect)
        uses = by_caller.get(mod, [])
        if uses or runnable:
            names = {u.name for u in uses if any(isinstance(n, ast.ImportFrom) for n in ast.walk(tree))}
            aliases = {
                a.asname or a.name
                for n in ast.walk(tree)
                if isinstance(n, ast.Import | ast.ImportFrom)
                for a in n.names
                if f"{a.name}" in graph.trees or any(k.endswith("." + a.name) for k in graph.trees)
            }
            callees = sorted({u.callee for u in uses})
            for fn, edit in swap_edits(tree, source, names, aliases, layers=runnable):
                owner = next((n for n, lo, hi in ranges if lo <= edit.line <= hi), "<module>")
                add("call_swap_args", fn, owner, edit, callees, [])
    return out


# ----------------------------------------------------------------------------------------------
# Checking a mutant in its project


@dataclass
class Outcome:
    pm: ProjMutant
    hits_edit: list[Diagnostic]
    hits_effect: list[Diagnostic]
    anywhere: list[Diagnostic]
    alone: bool | None = None  # flagged also when the mutated file is checked alone
    elsewhere: bool = False  # a hit lies in another module than the edited one
    at_edit: tuple[bool, bool] = (False, False)  # `located(hits, edited file, edited line)`
    internal: list[Diagnostic] = field(default_factory=list)
    jax: str = ""


def _key(d: Diagnostic, root: Path) -> tuple[str, int, str, str]:
    try:
        rel = str(Path(d.path).resolve().relative_to(root.resolve()))
    except ValueError:
        rel = d.path
    return (rel, d.line, d.code, d.message)


def check_project_files(
    checker: str, root: Path, mods: Sequence[str], proj: Project, timeout: float
) -> list[Diagnostic] | str:
    paths = [root / proj.modules[m].relative_to(proj.root) for m in mods]
    run = run_checker(checker, paths, timeout, cwd=root)
    if run.error:
        return run.error
    return [d if Path(d.path).is_absolute() else replace(d, path=str(root / d.path)) for d in run.diagnostics]


def score_project(
    checker: str,
    proj: Project,
    work: Path,
    items: Sequence[tuple[ProjMutant, str]],
    timeout: float,
    effect_frames: dict[ProjMutant, list[tuple[str, int]]] | None = None,
    jobs: int = 2,
) -> tuple[list[Outcome], dict[tuple[str, ...], list[Diagnostic]]]:
    """Check each mutant with its partners in a linked copy of the project; compare with the unmutated
    project checked on the same files."""
    baseline: dict[tuple[str, ...], list[Diagnostic]] = {}
    sets = sorted({tuple(sorted({pm.module, *pm.partners})) for pm, _ in items})

    def base(files: tuple[str, ...]) -> tuple[tuple[str, ...], list[Diagnostic] | str]:
        return files, check_project_files(checker, proj.root, files, proj, timeout)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for files, got in pool.map(base, sets):
            baseline[files] = (
                got
                if isinstance(got, list)
                else [Diagnostic(str(proj.root), 1, 1, "NC000", f"checker failed: {got[-300:]}")]
            )

    def one(i: int) -> Outcome:
        pm, text = items[i]
        tree = work / f"{proj.name}.{i:04d}"
        link_tree(proj.root, tree)
        rel = proj.modules[pm.module].relative_to(proj.root)
        (tree / rel).unlink()
        (tree / rel).write_text(text, encoding="utf-8")
        files = tuple(sorted({pm.module, *pm.partners}))
        got = check_project_files(checker, tree, files, proj, timeout)
        if isinstance(got, str):
            got = [Diagnostic(str(tree / rel), 1, 1, "NC000", f"checker failed: {got[-300:]}")]
        before = {_key(d, proj.root) for d in baseline[files]}
        new = [d for d in got if d.code not in INTERNAL_CODES and _key(d, tree) not in before]
        internal = [d for d in got if d.code == "NC000"]
        rel_s = str(rel)
        edit_hits = [d for d in new if _key(d, tree)[0] == rel_s and abs(d.line - pm.mutant.line) <= NEAR_LINES]
        effect = {(str(proj.modules[m].relative_to(proj.root)), ln) for m, ln in pm.effect}
        if effect_frames is not None:
            effect |= set(effect_frames.get(pm, []))
        effect_hits = [d for d in new if (_key(d, tree)[0], d.line) in effect and d not in edit_hits]
        out = Outcome(
            pm,
            edit_hits,
            effect_hits,
            new,
            internal=internal,
            elsewhere=any(_key(d, tree)[0] != rel_s for d in effect_hits),
            at_edit=located(edit_hits + effect_hits, tree / rel, pm.mutant.line),
        )
        if edit_hits or effect_hits:
            alone_dir = tree.with_name(tree.name + ".alone")
            alone_dir.mkdir()
            (alone_dir / rel.name).write_text(text, encoding="utf-8")
            run = run_checker(checker, [alone_dir / rel.name], timeout, cwd=alone_dir)
            out.alone = any(
                d.code not in INTERNAL_CODES and abs(d.line - pm.mutant.line) <= NEAR_LINES for d in run.diagnostics
            )
            shutil.rmtree(alone_dir, ignore_errors=True)
        shutil.rmtree(tree, ignore_errors=True)
        return out

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        outcomes = list(pool.map(one, range(len(items))))
    return outcomes, baseline


# ----------------------------------------------------------------------------------------------
# Reports


def report(
    title: str,
    outcomes: Sequence[Outcome],
    baselines: dict[str, dict[tuple[str, ...], list[Diagnostic]]],
    show_unflagged: bool,
) -> str:
    total = len(outcomes)
    at_line = [o for o in outcomes if o.hits_edit or o.hits_effect]
    effect_only = [o for o in outcomes if o.hits_effect and not o.hits_edit]
    cross = [o for o in at_line if o.alone is False]
    other_module = [o for o in at_line if o.elsewhere]
    anywhere = sum(1 for o in outcomes if o.anywhere)
    pct = 100.0 * len(at_line) / total if total else 0.0
    print(f"\n=== {title} ===")
    print(
        f"mutants: {total}   flagged at the line (edit or effect): {len(at_line)} ({pct:.1f}%)   "
        f"at an effect line only: {len(effect_only)}   at a line in another module than the edit: "
        f"{len(other_module)}   flagged only with the project (missed when the "
        f"mutated file is checked alone): {len(cross)}   (a new diagnostic anywhere in the checked files: "
        f"{anywhere})"
    )
    print(location_line([o.at_edit for o in at_line]))
    for label, key in (("per kind", lambda o: o.pm.mutant.kind), ("per project", lambda o: o.pm.project)):
        print(f"  {label}:")
        groups: dict[str, list[Outcome]] = defaultdict(list)
        for o in outcomes:
            groups[key(o)].append(o)
        for name in sorted(groups):
            rs = groups[name]
            k = sum(1 for o in rs if o.hits_edit or o.hits_effect)
            print(f"    {name:<26} {k:>4}/{len(rs):<4} ({100.0 * k / len(rs):5.1f}%)")
    internal = [(o.pm, d) for o in outcomes for d in o.internal]
    if internal:
        print(f"internal errors / failed runs on mutants: {len(internal)}")
        for pm, d in internal[:10]:
            print(f"  {pm.mutant.origin}:{pm.mutant.line} [{pm.mutant.kind}] {d.message[:200]}")
    fps = sorted(
        {(p, d.path, d.line, d.code, d.message) for p, sets in baselines.items() for ds in sets.values() for d in ds}
    )
    print(f"diagnostics on the unmutated projects' checked files (false alarms unless real bugs): {len(fps)}")
    for p, path, line, code, msg in fps:
        print(f"  {p}: {path}:{line}: {code} {msg[:200]}")
    print("flagged mutants:")
    for o in at_line:
        d = (o.hits_edit or o.hits_effect)[0]
        where = "edit" if o.hits_edit else f"effect {Path(d.path).name}:{d.line}"
        print(
            f"  + {o.pm.mutant.origin}:{o.pm.mutant.line} {o.pm.mutant.function} [{o.pm.mutant.kind}] "
            f"{o.pm.mutant.after!r} -> {d.code} at {where}{'' if o.alone else ' (needs the project)'}: "
            f"{d.message[:140]}"
        )
    if show_unflagged:
        print("missed mutants:")
        for o in outcomes:
            if not (o.hits_edit or o.hits_effect):
                extra = f"  JAX: {o.jax}" if o.jax else ""
                if o.anywhere:
                    d = o.anywhere[0]
                    extra += f"  [elsewhere: {Path(d.path).name}:{d.line} {d.code} {d.message[:100]}]"
                print(
                    f"  - {o.pm.mutant.origin}:{o.pm.mutant.line} {o.pm.mutant.function} "
                    f"[{o.pm.mutant.kind}/{o.pm.mutant.context}] {o.pm.mutant.before!r} => "
                    f"{o.pm.mutant.after!r}{extra}"
                )
    return (
        f"{title}: {len(at_line)}/{total} = {pct:.1f}% at the line ({len(cross)} need the project); "
        f"false alarms on unmutated files: {len(fps)}"
    )


# ----------------------------------------------------------------------------------------------
# Installed projects (unverified)


def flax_examples(base: Path, timeout: float) -> list[Project]:
    """One project per example directory of flax's source distribution."""
    sdist = flax_sdist(base, timeout)
    if sdist is None:
        print("skipping flax_examples: pip download of the flax sdist failed")
        return []
    out_dir = base / "flax_examples"
    if not out_dir.exists():
        out_dir.mkdir()
        for d in sorted(p for p in (sdist / "examples").iterdir() if p.is_dir()):
            shutil.copytree(d, out_dir / d.name, ignore=shutil.ignore_patterns("*.ipynb", "*.md", "*.txt"))
    return [Project.scan(f"flax_examples/{d.name}", d) for d in sorted(out_dir.iterdir()) if d.is_dir()]


def installed_projects(names: Sequence[str], base: Path, timeout: float) -> list[Project]:
    projects: list[Project] = []
    if "flax_examples" in names:
        projects.extend(flax_examples(base, timeout))
    others = [n for n in names if n != "flax_examples"]
    for pkg in prepare_packages(others, base / "pkgs", timeout):
        if pkg.root is None:
            print(f"skipping {pkg.name}: {pkg.problem}")
            continue
        projects.append(Project.scan(pkg.name, pkg.root))
    return projects


def choose(items: list[tuple[ProjMutant, str]], limit: int, seed: int) -> list[tuple[ProjMutant, str]]:
    """Round robin over (project family, kind) so every project and kind is represented."""
    rng = random.Random(seed)
    pools: dict[tuple[str, str], list[tuple[ProjMutant, str]]] = defaultdict(list)
    for it in items:
        pools[(it[0].project.split("/")[0], it[0].mutant.kind)].append(it)
    for v in pools.values():
        rng.shuffle(v)
    chosen: list[tuple[ProjMutant, str]] = []
    keys = sorted(pools)
    while len(chosen) < limit and any(pools.values()):
        for k in keys:
            if pools[k] and len(chosen) < limit:
                chosen.append(pools[k].pop())
    return chosen


# ----------------------------------------------------------------------------------------------
# Runnable multi-module projects (verified)


PROJECT_RUNNER = """
import contextlib, io, json, os, sys, traceback
import jax  # noqa: F401
for root in json.loads(sys.argv[1]):
    sink = io.StringIO()
    saved = set(sys.modules)
    sys.path.insert(0, root)
    main = os.path.join(root, 'main.py')
    try:
        with contextlib.redirect_stdout(sink):
            exec(compile(open(main, encoding='utf-8').read(), main, 'exec'), {'__name__': '__main__', '__file__': main})
        result = [False, '', []]
    except BaseException as exc:
        text = str(exc).strip()
        why = (type(exc).__name__ + ': ' + text.splitlines()[0] if text else type(exc).__name__)[:200]
        frames = [[os.path.relpath(f.filename, root), f.lineno] for f in traceback.extract_tb(exc.__traceback__)
                  if f.filename.startswith(root)]
        numeric = isinstance(exc, AssertionError) and frames and (f'{frames[-1][0]}' == 'main.py')
        result = [not numeric, ('numerical only: ' + why) if numeric else why, frames]
    finally:
        sys.path.remove(root)
        for name in set(sys.modules) - saved:
            del sys.modules[name]
    print(json.dumps([root, *result]), flush=True)
"""


def run_projects(roots: Sequence[Path], timeout_each: float = 60.0) -> dict[str, tuple[bool, str, list]]:
    env = dict(os.environ, XLA_FLAGS=XLA_FLAGS, JAX_PLATFORMS="cpu", JAX_TRACEBACK_FILTERING="off")
    workers = max(1, min(2, os.cpu_count() or 2))
    chunks = [list(roots[i::workers]) for i in range(workers)]

    def chunk_run(chunk: list[Path]) -> dict[str, tuple[bool, str, list]]:
        done: dict[str, tuple[bool, str, list]] = {}
        todo = list(chunk)
        while todo:
            cmd = [sys.executable, "-c", PROJECT_RUNNER, json.dumps([str(p) for p in todo])]
            try:
                proc = subprocess.run(
                    cmd, capture_output=True, text=True, env=env, timeout=timeout_each * len(todo) / 3 + 60
                )
                out = proc.stdout
            except subprocess.TimeoutExpired as exc:
                out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            for line in out.splitlines():
                try:
                    root, raised, why, frames = json.loads(line)
                except (json.JSONDecodeError, ValueError):
                    continue
                done[root] = (bool(raised), str(why), frames)
            rest = [p for p in todo if str(p) not in done]
            if rest:  # the interpreter died on rest[0]: count it as raising, go on with the others
                done[str(rest[0])] = (True, "interpreter died", [])
            todo = rest[1:]
        return done

    results: dict[str, tuple[bool, str, list]] = {}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(chunk_run, chunks):
            results.update(part)
    return results


def write_project(files: dict[str, str], root: Path) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def runnable(checker: str, work: Path, timeout: float, show_unflagged: bool) -> str:
    from realcode_projects_data import RUNNABLE_PROJECTS

    projects: list[Project] = []
    candidates: list[tuple[ProjMutant, str]] = []
    for name, files in sorted(RUNNABLE_PROJECTS.items()):
        root = work / "runnable" / name
        write_project(files, root)
        proj = Project.scan(f"runnable/{name}", root)
        projects.append(proj)
        graph = Graph(proj)
        for pm, text in project_mutants(proj, graph, runnable=True):
            if pm.module != "main" or pm.mutant.kind == "call_swap_args":
                candidates.append((pm, text))
    clean = run_projects([p.root for p in projects])
    bad = {p.name for p in projects if clean[str(p.root)][0] or clean[str(p.root)][1]}
    for p in projects:
        if p.name in bad:
            print(f"UNMUTATED PROJECT FAILS (excluded): {p.name}: {clean[str(p.root)][1]}")
    candidates = [c for c in candidates if c[0].project not in bad]
    roots: list[Path] = []
    for i, (pm, text) in enumerate(candidates):
        proj = next(p for p in projects if p.name == pm.project)
        tree = work / "runnable_mut" / f"{i:04d}"
        shutil.copytree(proj.root, tree)
        (tree / proj.modules[pm.module].relative_to(proj.root)).write_text(text, encoding="utf-8")
        roots.append(tree)
    ran = run_projects(roots)
    kept: list[tuple[ProjMutant, str]] = []
    frames: dict[ProjMutant, list[tuple[str, int]]] = {}
    notes: dict[ProjMutant, str] = {}
    accepted: Counter[str] = Counter()
    for (pm, text), root in zip(candidates, roots, strict=True):
        raised, why, fr = ran[str(root)]
        if raised:
            kept.append((pm, text))
            frames[pm] = [(f, ln) for f, ln in fr]
            notes[pm] = why
        else:
            accepted[pm.mutant.kind] += 1
    shutil.rmtree(work / "runnable_mut", ignore_errors=True)
    print(
        f"runnable projects: {len(projects) - len(bad)} run cleanly; {len(candidates)} mutants, {len(kept)} make "
        f"JAX raise (kept); JAX accepts per kind: {dict(sorted(accepted.items()))}"
    )
    outcomes: list[Outcome] = []
    baselines: dict[str, dict[tuple[str, ...], list[Diagnostic]]] = {}
    for proj in projects:
        items = [(pm, t) for pm, t in kept if pm.project == proj.name]
        # the whole project is checked for runnable mutants: every module is a partner
        items = [
            (ProjMutant(pm.project, pm.module, pm.mutant, tuple(sorted(proj.modules)), pm.effect), t) for pm, t in items
        ]
        fr = {
            ProjMutant(pm.project, pm.module, pm.mutant, tuple(sorted(proj.modules)), pm.effect): frames[pm]
            for pm, _ in [(p, t) for p, t in kept if p.project == proj.name]
        }
        if not items:
            continue
        got, base = score_project(checker, proj, work / "scored", items, timeout, fr)
        for o in got:
            orig = next(pm for pm in notes if pm.mutant == o.pm.mutant)
            o.jax = notes[orig]
        outcomes.extend(got)
        baselines[proj.name] = base
    return report(
        "runnable multi-module projects, mutants that JAX rejects (verified recall)",
        outcomes,
        baselines,
        show_unflagged,
    )


# ----------------------------------------------------------------------------------------------


def projects_mode(args: argparse.Namespace) -> int:
    checker: str = args.checker or default_checker()
    base, cleanup = workdir(args.keep)
    work = Path(tempfile.mkdtemp(prefix="projects_", dir=base))
    try:
        summary: list[str] = []
        if not args.no_runnable:
            summary.append(runnable(checker, work, args.timeout, args.show_unflagged))
        if not args.runnable_only:
            projects = installed_projects(args.packages, base, args.install_timeout)
            items: list[tuple[ProjMutant, str]] = []
            graphs = {}
            for proj in projects:
                graphs[proj.name] = Graph(proj)
                items.extend(project_mutants(proj, graphs[proj.name]))
            kinds = Counter(pm.mutant.kind for pm, _ in items)
            per = Counter(pm.project.split("/")[0] for pm, _ in items)
            edges = sum(len(g.uses) for g in graphs.values())
            print(
                f"installed projects: {len(projects)}, cross-module uses: {edges}; candidates {len(items)} "
                f"per kind {dict(sorted(kinds.items()))} per project {dict(sorted(per.items()))}"
            )
            chosen = choose(items, args.limit, args.seed)
            outcomes: list[Outcome] = []
            baselines: dict[str, dict[tuple[str, ...], list[Diagnostic]]] = {}
            for proj in projects:
                mine = [it for it in chosen if it[0].project == proj.name]
                if mine:
                    got, base_diags = score_project(checker, proj, work / "scored", mine, args.timeout, jobs=args.jobs)
                    outcomes.extend(got)
                    baselines[proj.name] = base_diags
            summary.append(
                report(
                    "installed projects, cross-module mutants not run (unverified recall)",
                    outcomes,
                    baselines,
                    args.show_unflagged,
                )
            )
        print("\n" + "\n".join(summary))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        cleanup()
    return 0


__all__ = ["projects_mode", "requote"]
