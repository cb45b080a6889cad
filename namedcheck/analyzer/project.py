"""Whole-project analysis: the project's own modules by name, loaded lazily as dependencies.

`ProjectIndex` maps dotted module names to files from the project's roots (the directory of the nearest
pyproject.toml and its `src/`, the parent of the outermost package holding a checked file, the directory
of a checked script). `Project` loads a module the first time another one reads a name from it: its body
runs quietly (no standalone analyses, no `if __name__ == "__main__":` block), so its constants, functions,
classes and config objects are known where they are imported; calls into it are analysed by its own
`ModuleAnalyzer` (diagnostics located in its file). Nothing here imports jax.
"""

from __future__ import annotations

import ast
import gc
import hashlib
import os
import time
from pathlib import Path
from typing import Any

from namedcheck.analyzer.filefacts import FACTS, IMPORT_STATEMENT, MAX_SCANNED_BYTES
from namedcheck.analyzer.imports import (
    CONFIG_FILE_FLAG,
    ProjectIndex,
    absolute_import,
    config_file,
    config_file_defaults,
    conftest_files,
)
from namedcheck.analyzer.imports import stamp as _stamp
from namedcheck.analyzer.memo import RUN, CallLog, forget_process_caches
from namedcheck.analyzer.sources import read_bytes, source_lines
from namedcheck.diagnostic import Diagnostic
from namedcheck.engine.errors import is_strict_rule_bug

MAX_RESOLVE_DEPTH = 16
RETAIN_MB = 400  # resident memory past which a process lets go of what it kept from earlier checked files
_LEFT_RESIDENT = [0.0]  # the resident memory the last release left (the allocator keeps some of what was freed)


class Project:
    """The modules of one project, loaded on demand as quiet dependencies of the checked files."""

    def __init__(
        self,
        index: ProjectIndex,
        ops: dict[str, Any] | None = None,
        displays: dict[Path, str] | None = None,
        stub_paths: tuple[str, ...] = (),
        base: Project | None = None,
        devices: int | None = None,
    ) -> None:
        self.index = index
        # the device count the run states for this project's analyses (analyzer/devices.py); None: not stated
        self.devices = devices
        self.devices_read = False  # an analysis in this project read the device count
        # `base`: the project of the run's own roots, when this one adds a checked script's directory to them;
        # modules found under the base's roots are the base's (loaded once for all its scripts' projects)
        self.base = base
        self._ops = ops
        self.stub_paths = stub_paths
        self.displays = displays or {}
        self.loaded: dict[str, Any] = {}  # module name -> ModuleAnalyzer (None: not loadable)
        self.loading: set[str] = set()
        # sha256 of the bytes each module analysis read from disk (`read_text`): what the analyses hold
        self._read: dict[Path, bytes] = {}
        self.depth = 0
        self._guard: Any = None  # the budget of the file being checked (analyzer/budget.Guard)
        self.log: Any = base.log if base is not None else CallLog()  # call analyses' findings (replayed)
        # flag defaults and mutated config objects, shared by the program's modules (analyzer/configs.py)
        self._program: Any = None  # (made when first read: a cache hit needs none, nor libcst)
        self._scans: dict[tuple[str, str, str], tuple[str, ...]] = {}  # (path, module, text) -> imports
        self._closures: dict[str, frozenset[str]] = {}  # module -> the modules it reads (in one run)
        self._fingerprints: dict[Path, str] = {}  # file -> its dependency fingerprint (in one run)
        self._module_memo: dict[str, tuple[Path | None, bytes | None, tuple[str, ...]]] = {}  # (in one run)
        self._closures_at = -1  # the fact table's generation they were computed in
        self.parsed: dict[str, tuple[str, Any]] = base.parsed if base is not None else {}  # path -> (text, module)
        self._partial: dict[str, tuple[Any, set[int]]] = {}  # module -> (ModuleOutline, the statements it ran)
        self.retired: list[Any] = []  # analyzers of partly parsed modules run again with more names
        # texts that differ from the disk (an editor's open buffers; the session's, shared with the base)
        self.overlay: dict[Path, str] = base.overlay if base is not None else {}
        self._reverse: tuple[Any, dict[Path, list[Path]]] | None = None  # (listing, importers by file)
        self._stamps: dict[Path, tuple[int, int]] = {}  # loaded module files' (mtime, size) when loaded
        self.target: tuple[Any, str] | None = None  # the checked file while its dependencies report (diagnostics)
        # `namedcheck types`: the dependency analyzers that record their bindings (the values call analyses from
        # other modules give a module's names; analyzer/bindings.py), shared with the base; None: not recorded
        self.recording: list[Any] | None = base.recording if base is not None else None
        # an editor's projects: the open files loaded as dependencies record the values calls give them
        self.record_calls: bool = base.record_calls if base is not None else False

    @property
    def program(self) -> Any:
        """Flag defaults and mutated config objects, shared by the program's modules (analyzer/configs.py)."""
        if self.base is not None:
            return self.base.program
        if self._program is None:
            from namedcheck.analyzer.configs import ProgramState

            self._program = ProgramState()
        return self._program

    @property
    def guard(self) -> Any:
        return self._guard

    @guard.setter
    def guard(self, guard: Any) -> None:
        self._guard = guard
        if self.base is not None:
            self.base.guard = guard

    def _delegated(self, name: str) -> bool:
        """Whether a module name is the base project's (its roots come first in this index too)."""
        return self.base is not None and self.base.index.has_top(name)

    # ---- names --------------------------------------------------------------------------------
    def owns(self, qualname: str) -> bool:
        return self.index.has_top(qualname)

    def resolve(self, qualname: str) -> Any:
        """The value a dotted name of the project stands for (a function, class, constant, module as a
        `QualRef`); None when it is not the project's or not known."""
        from namedcheck.analyzer.refs import QualRef

        if self._delegated(qualname):
            return self.base.resolve(qualname)  # type: ignore[union-attr]
        if not self.owns(qualname) or self.depth > MAX_RESOLVE_DEPTH:
            return None
        parts = qualname.split(".")
        for i in range(len(parts), 0, -1):
            mod = ".".join(parts[:i])
            if self.index.is_module(mod):
                break
        else:
            return None
        if i == len(parts):
            return QualRef(mod)
        an = self.load(mod, parts[i])
        if an is None:
            return None
        self.depth += 1
        try:
            v = an.export(parts[i])
            if v is None and self.index.is_module(f"{mod}.{parts[i]}"):
                v = QualRef(f"{mod}.{parts[i]}")  # a submodule not (yet) imported by its package
            if v is None or i + 1 == len(parts):
                return v
            if isinstance(v, QualRef):
                return self.resolve(".".join([v.name, *parts[i + 1 :]]))
            return None
        finally:
            self.depth -= 1

    @property
    def ops(self) -> dict[str, Any]:
        """The op table, loaded when a module is first analysed (a cache hit needs only the index)."""
        if self._ops is None:
            from namedcheck.engine.stubs import op_table

            self._ops = op_table(self.stub_paths)
        return self._ops

    def parse(self, path: Path, text: str, checked: bool = False) -> Any:
        """The libcst module of a project file's text, parsed once per process and text (a checked file
        that is also another's dependency is parsed once); None when the resource guard refuses it or it does
        not parse (`checked`: the caller has already run the guard; a syntax error is then `Unparsable`)."""
        from namedcheck.analyzer.parsing import Unparsable, parse_checked, parse_guarded

        hit = self._parsed_hit(path, text)
        if hit is not None:
            return hit
        if checked:
            module = parse_guarded(text)
        else:
            try:
                module = parse_checked(text, self._limits())
            except Unparsable:
                return None
        if len(self.parsed) > 2000:
            self.parsed.clear()
        self.parsed[str(path.resolve())] = (text, module)
        return module

    def _limits(self) -> Any:
        """The budgets of the file being checked (a dependency's parse is charged to it), else the defaults."""
        guard = self._guard
        return getattr(guard, "limits", None)

    def is_parsed(self, path: Path, text: str) -> bool:
        """Whether this text of a project file is parsed already (it passed the deep-nesting pre-check)."""
        return self._parsed_hit(path, text) is not None

    def _parsed_hit(self, path: Path, text: str) -> Any:
        """The libcst module of this text of a project file when it is parsed already, else None."""
        hit = self.parsed.get(str(path.resolve()))
        return hit[1] if hit is not None and hit[0] == text else None

    def load(self, name: str, wanted: str | None = None) -> Any:
        """The (quiet) analyzer of a project module, its body run once; None when it cannot be read.
        `wanted`: the name read from it. Unless the whole text is already parsed (a checked file), only the
        statements the names read so far need are parsed and run (`analyzer/partial.py`); a name outside
        them runs the module again with it (the earlier analyzer is kept for its diagnostics)."""
        if self._delegated(name):
            return self.base.load(name, wanted)  # type: ignore[union-attr]
        an = self.loaded.get(name, False)
        if an is not False:
            part = self._partial.get(name)
            if (
                an is None
                or part is None
                or wanted is None
                or not part[0].binds(wanted)
                or all(i in part[1] for i in part[0].binders[wanted])
            ):
                return an  # every statement binding the name has run
        if name in self.loading:
            return an or None  # an import cycle: the names it reads (beyond those already run) are Unknown
        path = self.index.module_file(name)
        if path is None:
            self.loaded[name] = None
            return None

        from namedcheck.analyzer.module import ModuleAnalyzer

        self.loading.add(name)
        RUN.loading += 1  # what the body changes in shared objects is the module's own (it loads once)
        new = None
        try:
            self._stamps[path.resolve()] = _stamp(path)
            text = self.read_text(path)
            module = self._dependency_module(name, path, text, wanted)
            if module is None:
                raise ValueError(path)
            new = ModuleAnalyzer(
                module, self.ops, project=self, modname=name, is_package=path.name == "__init__.py", dependency=True
            )
            new.path = path
            new.source = text
            if self.recording is not None:
                new.bindings = []
                self.recording.append(new)
            if self.record_calls and path.resolve() in self.overlay:
                # an editor's open file: hover shows what its importers' calls give its expressions and names
                new.call_values = []
                if new.bindings is None:
                    new.bindings = []
            new.run()
        except Exception as e:
            if is_strict_rule_bug(e):
                raise
            new = None  # unreadable or a file the analyzer cannot handle: its names are Unknown
        finally:
            self.loading.discard(name)
            RUN.loading -= 1
        if an:
            self.retired.append(an)
        self.loaded[name] = new
        return new

    def record_bindings(self, sink: list[Any] | None) -> None:
        """Dependency analyzers loaded from now on record their bindings, and are appended to `sink` (None:
        they do not; a project outlives a session, and only the session that asks records)."""
        if sink is not None and sink is not self.recording and self.loaded:
            self.loaded.clear()  # loaded before: they load again, recording
            self._partial.clear()
        self.recording = sink
        if self.base is not None:
            self.base.record_bindings(sink)

    def share_overlay(self, overlay: dict[Path, str]) -> None:
        """Read open buffers from `overlay` (a session's), here and in the base project that loads the modules
        under the run's roots."""
        self.overlay = overlay
        if self.base is not None:
            self.base.share_overlay(overlay)

    def read_text(self, path: Path) -> str:
        """A project file's text: the open buffer's when the overlay has it, else the disk's (OSError,
        UnicodeDecodeError when it cannot be read)."""
        if self.overlay:
            hit = self.overlay.get(path.resolve())
            if hit is not None:
                return hit
        from namedcheck.analyzer.parsing import decode_source

        # the guarded reader (a regular file under the cap, never a FIFO or a device: Unreadable, an OSError),
        # decoded as Python decodes source (a coding line; SyntaxError: an unknown one)
        data = read_bytes(path, MAX_SCANNED_BYTES)
        self._read[self._resolve(path)] = hashlib.sha256(data).digest()
        return decode_source(data)

    def reads_current(self) -> bool:
        """Whether every module text the analyses read from disk is what the disk holds now (the result
        cache stores a result only then: a dependency saved A -> B -> A during a check leaves a key made
        from A and an analysis that read B)."""
        if self.base is not None and not self.base.reads_current():
            return False
        return all(FACTS.fresh(p).digest == d for p, d in list(self._read.items()))

    def forget(self, path: Path) -> None:
        """A project file's text changed (an editor's buffer): when a module loaded from it, everything
        loaded and every call analysis is let go (values and findings of other modules may come from it)."""
        resolved = path.resolve()
        if self.base is not None:
            self.base.forget(resolved)
        if any(
            an is not None and an.path is not None and Path(an.path).resolve() == resolved
            for an in [*self.loaded.values(), *self.retired]
        ):
            self.release()

    def importers_of(self, paths: list[Path]) -> list[Path]:
        """The project files that import any of `paths` (as modules or as the packages holding them),
        transitively, `paths` left out; read from the files' import statements (cheap; none past
        `MAX_PROJECT_FILES`). A file that is not a module (a script, `test-train.py`) can import too."""
        graph = self._reverse_imports()
        start = {p.resolve() for p in paths}
        found: set[Path] = set()
        todo = list(start)
        while todo:
            for importer in graph.get(todo.pop(), ()):
                if importer not in found and importer not in start:
                    found.add(importer)
                    todo.append(importer)
        return sorted(found, key=str)

    def listed_within(self, files: set[Path]) -> bool:
        """Whether every file of the project's listing is in `files` (resolved paths): then no file outside
        them imports one of them. False when the project is too large to list."""
        listing = _project_files(tuple(self.index.roots))
        return listing is not None and all(self._resolve(f) in files for f, _ in listing)

    def _reverse_imports(self) -> dict[Path, list[Path]]:
        """Project file -> the project files whose import statements name its module (or a module inside
        the package it is the `__init__` of), or whose config flags load it by path by default; rebuilt when
        the listing of the project's files is."""
        files = _project_files(tuple(self.index.roots))
        if files is None:
            return {}
        if self._reverse is not None and self._reverse[0] is files:
            return self._reverse[1]
        graph: dict[Path, list[Path]] = {}
        shadows: dict[tuple[Path, str], bool] = {}
        roots = tuple(self.index.roots)
        for f, text in files:
            named = self.index.module_name(f)
            name, is_package = named if named is not None else ("", False)
            targets: set[Path] = set()
            for m in self._scans_of(f, text, name, is_package):
                where = (f.parent, m.split(".", 1)[0])
                shadowed = shadows.get(where)
                if shadowed is None:
                    shadowed = shadows[where] = _sibling_shadows(f, m, roots)
                if shadowed:
                    continue  # a script imports the module beside it, not the project's of that name
                parts = m.split(".")
                for k in range(1, len(parts) + 1):  # importing a module runs the packages above it
                    target = self.index.module_file(".".join(parts[:k]))
                    if target is not None:
                        targets.add(self._resolve(target))
            importer = self._resolve(f)
            defaults = FACTS.facts(importer).config_defaults
            if defaults:  # a config file a flag loads by path: read as an import is (`_config_modules`)
                for m in self._config_modules(importer, defaults):
                    target = self.index.module_file(m)
                    if target is not None:
                        targets.add(self._resolve(target))
            for target in targets - {importer}:
                graph.setdefault(target, []).append(importer)
        self._reverse = (files, graph)
        return graph

    def refresh(self) -> None:
        """A long-lived process (the language server): when a loaded module's file changed on disk since
        it was loaded (and no open buffer stands for it), everything loaded is let go."""
        for path, stamp in list(self._stamps.items()):
            if path not in self.overlay and _stamp(path) != stamp:
                self._stamps.clear()
                self.release()
                return
        if self.base is not None:
            self.base.refresh()

    def _dependency_module(self, name: str, path: Path, text: str, wanted: str | None) -> Any:
        """The libcst module a dependency runs: the whole text when it is parsed already (or most of it is
        needed, or it was run partly before and now needs more), else the statements the names wanted from
        it need, the rest blanked."""
        hit = self._parsed_hit(path, text)
        if hit is not None:
            self._partial.pop(name, None)
            return hit
        from namedcheck.analyzer.budget import accepted_tree, python_rejects

        part = self._partial.get(name)
        if part is not None and part[0].text == text:
            # run partly and now read for a name outside that part: the whole module, once (each further
            # name would otherwise run it again, and start its call analyses afresh)
            self._partial.pop(name, None)
            return self.parse(path, text)
        from namedcheck.analyzer.partial import ModuleOutline

        if python_rejects(text, self._limits()) is not None:
            return None
        tree = accepted_tree(text)
        try:
            outline = ModuleOutline(text, tree if tree is not None else ast.parse(text))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return self.parse(path, text, checked=True)
        names = {wanted} if wanted else set()
        keep = outline.needed(names)
        if outline.share(keep) > 0.8:
            return self.parse(path, text, checked=True)
        self._partial[name] = (outline, keep)
        return outline.partial_module(keep)  # CPython accepted the whole text: each statement of it too

    # ---- one checked file --------------------------------------------------------------------
    def let_go_if_grown(self) -> float:
        """Before a checked file: past `RETAIN_MB` of resident memory, everything kept for earlier files (loaded
        modules, parsed texts, call analyses) is let go. Returns the seconds it took: a collection of the whole
        process (tens of seconds in a large one: a test runner, an editor's) that is not the file's time."""
        if self.base is not None:  # a script's project: its base decides
            return self.base.let_go_if_grown()
        from namedcheck.analyzer.budget import clock, resident_mb

        # what the allocator keeps after a release stays resident: the next release waits until the process
        # has grown by a quarter of the budget again (else every file would release and parse everything anew)
        rss = resident_mb()
        if rss <= RETAIN_MB or rss < _LEFT_RESIDENT[0] + RETAIN_MB // 4:
            return 0.0
        start = clock()  # (the budgets' clock)
        self.release()
        gc.collect()  # analyzers and frames refer to each other: freed by the collector, not by counts
        _LEFT_RESIDENT[0] = resident_mb()
        return clock() - start

    def begin_target(self) -> None:
        """A new checked file: the diagnostics of the last one are forgotten (each file's result holds what its
        own calls cause: the result cache stores it with the file), and so are the call analyses a bound cut
        short; complete ones are kept, with what they found (replayed). (What the process kept is let go
        before, outside the file's time budget: `let_go_if_grown`.)"""
        self.retired.clear()
        self.log.touched.clear()
        self.log.recording.clear()
        for an in self.loaded.values():
            if an is not None:
                an.reset_calls()
        if self.base is not None:
            self.base.begin_target()

    def release(self) -> None:
        """Forget every loaded module, parsed text and call analysis (they are rebuilt as files need them)."""
        self.loaded.clear()
        self._partial.clear()
        self.parsed.clear()
        self.retired.clear()
        forget_process_caches()

    def dependency_diagnostics(self, target: tuple[Any, str] | None = None) -> list[Diagnostic]:
        """Diagnostics found inside dependency modules by the calls of the file just analysed (`target`: its
        analyzer and path, where their related locations, the calls that found them, may lie)."""
        out: list[Diagnostic] = []
        projects = [self]
        while projects[-1].base is not None:  # the base's modules' notes may point into the checked file too
            projects.append(projects[-1].base)
        for p in projects:
            p.target = target
        try:
            for an in self.analyzers():
                if an.found:
                    try:
                        lines = source_lines(self.read_text(an.path))  # an open buffer's text: its suppressions
                        out.extend(an.diagnostics(self.display(an.path), lines))
                    except Exception:
                        continue
        finally:
            for p in projects:
                p.target = None
        return out

    def analyzers(self) -> list[Any]:
        """Every loaded module's analyzer, the earlier ones of modules run again included (and those a
        memoised call reported into), the base project's too."""
        own = [*(an for an in self.loaded.values() if an is not None), *self.retired]
        if self.base is not None:
            own.extend(self.base.analyzers())
        seen = {id(an) for an in own}
        own.extend(an for an in self.log.touched if id(an) not in seen and an.dependency)
        return own

    def display(self, path: Path) -> str:
        p = path.resolve()
        if p in self.displays:
            return self.displays[p]
        try:
            return os.path.relpath(p)
        except ValueError:
            return str(p)

    # ---- incremental ---------------------------------------------------------------------------
    def _resolve(self, path: Path) -> Path:
        """`path.resolve()`, memoised for the process (a realpath per lookup dominated a warm-cache run)."""
        key = str(path)
        hit = _RESOLVED.get(key)
        if hit is None:
            if len(_RESOLVED) > 100_000:
                _RESOLVED.clear()
            hit = _RESOLVED[key] = path.resolve()
        return hit

    def imported_modules(self, path: Path, name: str | None, is_package: bool) -> tuple[str, ...]:
        """The project modules a file imports (its import statements from the fact table: read once while the
        file's mtime and size stay the same; it may name more modules than are imported, never fewer)."""
        key = self._resolve(path)
        return self._reads(key, FACTS.facts(key), name or "", is_package)

    def _reads(self, key: Path, facts: Any, name: str, is_package: bool) -> tuple[str, ...]:
        """The project modules a file (resolved `key`, its `FileFacts`) reads first: the modules its import
        statements may name and the config modules its config flags load by default."""
        found = self._scans_of(key, facts.imports, name, is_package)
        return (*found, *self._config_modules(key, facts.config_defaults)) if facts.config_defaults else found

    def _config_modules(self, path: Path, defaults: tuple[str | None, ...]) -> list[str]:
        """The config modules a script's config flags load by default (`imports.config_file`): its result
        depends on them as on an import."""
        out = []
        for default in defaults:
            found = config_file(path, default)
            named = self.index.module_name(found) if found is not None else None
            if named is not None:
                out.append(named[0])
        return out

    def _digest(self, path: Path) -> bytes | None:
        """sha256 of a file's bytes from the fact table (None: unreadable or over the cap)."""
        return FACTS.facts(self._resolve(path)).digest

    def imports_project(self, path: Path) -> bool:
        """Whether a file imports a module of the project (then it is analysed even without jax text)."""
        named = self.index.module_name(path)
        return bool(self.imported_modules(path, *(named or (None, False))))

    def imports_text(self, path: Path, text: str) -> bool:
        """Whether a file's text (an open buffer's, say) imports a module of the project (read with a
        regular expression: it may see an import that is not one, never miss one)."""
        named = self.index.module_name(path)
        name, is_package = named if named is not None else ("", False)
        defaults = tuple(config_file_defaults(text)) if CONFIG_FILE_FLAG in text else ()
        return bool(self._scanned_imports(text, name, is_package) or self._config_modules(path, defaults))

    def dependency_fingerprint(self, path: Path, fresh: bool = False) -> str:
        """A hash of the contents of every project module a file imports, transitively (a file's result
        depends on them). Inside a run (`FACTS.run()`) each module's closure is computed once; `fresh`: every
        file stat'ed again and nothing memoised taken (is what a key was made from still on disk?)."""
        key = self._resolve(path)
        memo = None if fresh else self._closure_memo()
        if memo is not None and key in self._fingerprints:
            return self._fingerprints[key]
        named = self.index.module_name(path)
        facts = FACTS.fresh(key) if fresh else FACTS.facts(key)
        direct = self._reads(key, facts, named[0] if named else "", bool(named and named[1]))
        direct = (*direct, *self._conftest_modules(key))
        closure: set[str] = set()
        done: dict[str, frozenset[str]] = {} if memo is None else memo
        for m in direct:
            closure |= self._closure(m, done, fresh)
        digests = sorted(m.encode() + b"\0" + self._module_facts(m, fresh)[1] for m in closure)  # type: ignore[operator]
        settings = _settings_from_outside(key)
        if settings:
            digests.append(b"settings\0" + settings.encode())
        out = hashlib.sha256(b"\n".join(digests)).hexdigest() if digests else ""
        if memo is not None:
            self._fingerprints[key] = out
        return out

    def _conftest_modules(self, path: Path) -> tuple[str, ...]:
        """The project modules of the `conftest.py` files pytest loads before `path` (a test's fixtures come
        from them: its result depends on them as on an import)."""
        out = []
        for conftest in conftest_files(path):
            named = self.index.module_name(conftest)
            if named is not None:
                out.append(named[0])
        return tuple(out)

    def _closure_memo(self) -> dict[str, frozenset[str]] | None:
        """The run's closures by module (None outside a run: nothing is kept, each file is stat'ed again)."""
        if not FACTS.in_run:
            return None
        if self._closures_at != FACTS.generation:
            self._closures_at = FACTS.generation
            self._closures = {}
            self._fingerprints = {}
            self._module_memo = {}
        return self._closures

    def _module_facts(self, module: str, fresh: bool) -> tuple[Path | None, bytes | None, tuple[str, ...]]:
        """A project module's file, digest and the modules it reads first: its imports and its package
        (memoised in a run; a module of the base project is the base's)."""
        if self.base is not None and self._delegated(module):
            return self.base._module_facts(module, fresh)
        if not fresh and self._closure_memo() is not None:
            hit = self._module_memo.get(module)
            if hit is None:
                hit = self._module_memo[module] = self._read_module_facts(module, False)
            return hit
        return self._read_module_facts(module, fresh)

    def _read_module_facts(self, module: str, fresh: bool) -> tuple[Path | None, bytes | None, tuple[str, ...]]:
        f = self.index.module_file(module)
        if f is None:
            return None, None, ()
        key = self._resolve(f)
        facts = FACTS.fresh(key) if fresh else FACTS.facts(key)
        if facts.digest is None:
            return f, None, ()
        succ = self._reads(key, facts, module, f.name == "__init__.py")
        parent = module.rpartition(".")[0]
        return f, facts.digest, (*succ, parent) if parent else succ

    def _closure(self, root: str, done: dict[str, frozenset[str]], fresh: bool) -> frozenset[str]:
        """The readable project modules `root` reads, transitively, itself included (Tarjan's strongly connected
        components, iterative: a component's modules share one closure, each computed once into `done`). A
        module of the base project is the base's (computed once for all the run's scripts)."""
        if root in done:
            return done[root]
        if self.base is not None and self._delegated(root):
            memo = None if fresh else self.base._closure_memo()
            return self.base._closure(root, {} if memo is None else memo, fresh)
        order: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        succ: dict[str, tuple[str, ...]] = {}
        readable: set[str] = set()
        outside: dict[str, frozenset[str]] = {}  # the base's modules met (their closures are the base's)

        def enter(v: str) -> None:
            order[v] = low[v] = len(order)
            stack.append(v)
            on_stack.add(v)
            _f, digest, nexts = self._module_facts(v, fresh)
            if digest is not None:
                readable.add(v)
            succ[v] = nexts

        enter(root)
        work = [(root, iter(succ[root]))]
        while work:
            v, it = work[-1]
            for w in it:
                if w in done or w in outside:
                    continue
                if self.base is not None and self._delegated(w):
                    outside[w] = self._closure(w, done, fresh)
                    continue
                if w not in order:
                    enter(w)
                    work.append((w, iter(succ[w])))
                    break
                if w in on_stack:
                    low[v] = min(low[v], order[w])
            else:
                work.pop()
                if work:
                    u = work[-1][0]
                    low[u] = min(low[u], low[v])
                if low[v] == order[v]:
                    component: list[str] = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    members = set(component)
                    out = {c for c in component if c in readable}
                    for c in component:
                        for w in succ[c]:
                            if w not in members:
                                out |= done[w] if w in done else outside[w]
                    closed = frozenset(out)
                    for c in component:
                        done[c] = closed
        return done[root]

    # ---- what a file's analysis depends on (the mypy plugin's cache) ----------------------------
    def related_digest(self, path: Path) -> str:
        """A hash of the contents of every project module whose edit can change a file's analysis as a
        checked file of a whole-project run: the modules that import it (transitively: their calls cause
        diagnostics inside it), and everything those and the file itself import (transitively).
        The project's files are listed from its roots (skipping hidden, virtual-environment and build
        directories; past `MAX_PROJECT_FILES` only the imported modules count). Cheap: a file is read
        for imports only when its text names the module."""
        named = self.index.module_name(path)
        if named is None:
            return ""
        callers = {named[0]}
        for f in self.importers_of([path]):
            other = self.index.module_name(f)
            if other is not None and self.index.module_file(other[0]) is not None:
                callers.add(other[0])
        digests: list[bytes] = []
        for m, mfile in self.reached_modules(callers):
            digest = self._digest(mfile)
            if digest is not None:
                digests.append(m.encode() + b"\0" + digest)
        return hashlib.sha256(b"\n".join(sorted(digests))).hexdigest()

    def reached_modules(self, start: Any) -> list[tuple[str, Path]]:
        """Each project module (and its file) `start`'s modules reach through their imports and the packages
        above them, `start` included; unreadable files too (not memoised: each file's facts as they are now)."""
        seen: set[str] = set()
        out: list[tuple[str, Path]] = []
        todo = list(start)
        while todo:
            m = todo.pop()
            if m in seen:
                continue
            seen.add(m)
            mfile = self.index.module_file(m)
            if mfile is None:
                continue
            out.append((m, mfile))
            key = self._resolve(mfile)
            todo.extend(self._reads(key, FACTS.facts(key), m, mfile.name == "__init__.py"))
            parent = m.rpartition(".")[0]
            if parent:
                todo.append(parent)
        return out

    def _scans_of(self, path: Path, text: str, name: str, is_package: bool) -> tuple[str, ...]:
        """`_scanned_imports`, memoised by the text of a file's import statements."""
        key = (str(path), name, text)
        hit = self._scans.get(key)
        if hit is None:
            if len(self._scans) > 10_000:
                self._scans.clear()
            hit = self._scans[key] = self._scanned_imports(text, name, is_package)
        return hit

    def _scanned_imports(self, text: str, name: str, is_package: bool) -> tuple[str, ...]:
        """The project modules a file's text may import, read with a regular expression (it may name more
        modules than are imported, never fewer)."""
        out: list[str] = []
        for m in IMPORT_STATEMENT.finditer(text.replace("\\\n", " ") if "\\\n" in text else text):
            if m["names"] is not None:
                out.extend(n.split()[0] for n in m["names"].split(",") if n.strip())
                continue
            base = (
                absolute_import(m["module"] or None, len(m["dots"]), name, is_package)
                if not m["dots"] or name
                else None
            )
            if base:
                out.append(base)
                out.extend(
                    f"{base}.{n.split()[0]}"
                    for n in m["what"].strip("()").split(",")
                    if n.strip() and n.split()[0].isidentifier()
                )
        named = {m for m in out if all(part.isidentifier() for part in m.split("."))}  # not prose: `import / ...`
        return tuple(sorted({m for m in named if self.index.has_top(m) and self.index.module_file(m) is not None}))


def importers_of_files(paths: Any, project_of: Any) -> list[Path]:
    """The project files that import any of `paths`, transitively, in a stable order (`paths` left out): one
    search per project (`project_of(path)`), none in a project whose files are all among `paths` (a
    whole-tree run)."""
    by_project: dict[int, tuple[Project, list[Path]]] = {}
    given: set[Path] = set()
    for p in paths:
        try:
            project = project_of(p)
            given.add(Path(p).resolve())
        except (OSError, RuntimeError, ValueError):
            continue
        if project is not None:
            by_project.setdefault(id(project), (project, []))[1].append(Path(p))
    out: dict[Path, None] = {}
    for project, files in by_project.values():
        if not project.listed_within(given):
            out.update(dict.fromkeys(f for f in project.importers_of(files) if f not in given))
    return list(out)


def _sibling_shadows(script: Path, module: str, roots: tuple[Path, ...]) -> bool:
    """A script outside the project's roots (`examples/sst2/train_test.py`) runs with its own directory first on
    `sys.path`: a module of that name beside it is what it imports."""
    here = script.parent
    if here.resolve() in roots or (here / "__init__.py").is_file():
        return False
    top = module.split(".", 1)[0]
    return (here / f"{top}.py").is_file() or (here / top).is_dir()


_RESOLVED: dict[str, Path] = {}
MAX_PROJECT_FILES = 5000
# as the run's discovery skips them (cli/discover.py), plus installed packages; virtual environments are
# recognised by their pyvenv.cfg
_SKIP_DIRS = {"node_modules", "site-packages", "dist-packages", "build", "dist", "venv"}
LISTING_TTL = 1.0  # seconds a listing of a root is reused (the language server keeps it longer)
_WALKS: dict[Path, tuple[float, list[tuple[Path, str]] | None]] = {}


def _project_files(roots: tuple[Path, ...]) -> list[tuple[Path, str]] | None:
    """The Python files under a project's roots with their import statements (hidden, virtual-environment
    and build directories skipped); None past `MAX_PROJECT_FILES`."""
    parts = [_root_files(root) for root in roots]
    if any(p is None for p in parts):
        return None
    hit = _LISTINGS.get(roots)
    if hit is not None and len(hit[0]) == len(parts) and all(a is b for a, b in zip(hit[0], parts, strict=True)):
        return hit[1]  # the same walks: the same listing (what is derived from it stays valid)
    out: dict[Path, str] = {}
    for files in parts:
        out.update(files or ())
    listing = list(out.items()) if len(out) <= MAX_PROJECT_FILES else None
    if len(_LISTINGS) > 64:
        _LISTINGS.clear()
    _LISTINGS[roots] = (parts, listing)
    return listing


_LISTINGS: dict[tuple[Path, ...], tuple[list[Any], list[tuple[Path, str]] | None]] = {}


def _root_files(root: Path) -> list[tuple[Path, str]] | None:
    """`_project_files` of one root, read once per second at most (projects share roots)."""
    now = time.monotonic()
    hit = _WALKS.get(root)
    if hit is not None and now - hit[0] < LISTING_TTL:
        return hit[1]
    paths: list[Path] = []
    for d, dirs, names in os.walk(root):
        dirs[:] = [
            x
            for x in dirs
            if not x.startswith((".", "__"))
            and x not in _SKIP_DIRS
            and not os.path.exists(os.path.join(d, x, "pyvenv.cfg"))
        ]
        paths.extend(Path(d, n) for n in names if n.endswith(".py"))
        if len(paths) > MAX_PROJECT_FILES:
            _WALKS[root] = (now, None)
            return None
    files: list[tuple[Path, str]] = []
    for p in paths:
        facts = FACTS.facts(p)  # read (the guarded reader) only when its mtime or size moved
        if facts.digest is not None:
            files.append((p, facts.imports))  # its imports only
    if len(_WALKS) > 64:
        _WALKS.clear()
    _WALKS[root] = (now, files)
    return files


_PROJECTS: dict[tuple[tuple[str, ...], tuple[str, ...], int | None, tuple[str, ...] | None], Project] = {}
_RUN_PROJECTS: dict[tuple[Any, ...], Project] = {}  # (run, directory, roots, stubs, devices) -> its project


def project_for(
    path: str | Path, stub_paths: tuple[str, ...] = (), roots_from: list[str] | None = None, devices: int | None = None
) -> Project | None:
    """The project of a file (one per set of roots in this process, modules loaded lazily); None when
    the file's project cannot be determined. One project per device count (`devices`: its modules' values
    depend on it). A file whose own directory adds a root to those of the run's
    paths (a script, a namespace package) gets a project that shares the run's: the modules under the run's
    roots are loaded once, for all. Imports neither libcst nor the rules: a cache hit stays cheap."""
    run_key = None
    if FACTS.in_run:  # in one run, the files of one directory share a project (their roots are the same)
        p = Path(path)
        where = str(p) if p.is_dir() else str(p.parent)
        run_key = (FACTS.generation, where, tuple(str(r) for r in roots_from or ()), stub_paths, devices)
        hit = _RUN_PROJECTS.get(run_key)
        if hit is not None:
            return hit
    try:
        index = ProjectIndex.for_paths([*(roots_from or []), path])
        base_index = ProjectIndex.for_paths(list(roots_from)) if roots_from else None
    except (OSError, RuntimeError, ValueError):  # unreadable, a symlink loop, a path pathlib rejects
        return None
    shared = (
        base_index is not None
        and base_index.roots
        and base_index.roots != index.roots
        and index.roots[: len(base_index.roots)] == base_index.roots
    )
    base_roots = tuple(str(r) for r in base_index.roots) if shared and base_index is not None else None
    # the base is part of the key: the project of a set of roots is the same whatever run made it first
    key = (tuple(str(r) for r in index.roots), stub_paths, devices, base_roots)
    if key not in _PROJECTS:
        base = None
        if base_roots is not None and base_index is not None:
            base_key = (base_roots, stub_paths, devices, None)
            base = _PROJECTS.get(base_key)
            if base is None:
                base = _PROJECTS[base_key] = Project(base_index, stub_paths=stub_paths, devices=devices)
        _PROJECTS[key] = Project(index, stub_paths=stub_paths, base=base, devices=devices)
    if run_key is not None:
        oldest = next(iter(_RUN_PROJECTS), (FACTS.generation,))  # (an earlier run's entries: all of them go)
        if len(_RUN_PROJECTS) > 10_000 or oldest[0] != FACTS.generation:
            _RUN_PROJECTS.clear()
        _RUN_PROJECTS[run_key] = _PROJECTS[key]
    return _PROJECTS[key]


def _settings_from_outside(path: Path) -> str:
    """The JAX flags other files set for the module at `path` (its conftests', the project's other test
    modules': `jaxconfig.settings_from_outside`)."""
    from namedcheck.analyzer.jaxconfig import settings_from_outside

    return settings_from_outside(path)
