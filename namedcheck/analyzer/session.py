"""One analysis for every front end: a `Session` holds the run's configuration (stubs, budgets, the paths
it was given) and the project of each file; every front end analyses a file through `Session.check` (the
CLI's tree and changed-files runs, `check -`, `--fix` and fix attachment, `infer`, the language server, the
mypy plugin's worker, the test helpers).

The device count (`devices`: the configured counts, analyzer/devices.py) reaches every front end here: a
file is analysed under the count it states for itself, else under each configured count (one project per
count), and the results merged.

`check` never raises: a file that does not parse is NC001, a failure of the analyzer NC000. A file's result
holds its own diagnostics and those its calls cause inside other project modules (`elsewhere`).
`callers_cause` runs the project modules that import a file (transitively) as checked files and keeps what
they cause inside it: the diagnostics a change-only run (pre-commit) and an editor must show.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

import libcst as cst

from namedcheck.analyzer import devices
from namedcheck.analyzer.budget import (
    BudgetExceeded,
    Guard,
    Limits,
    budget_note_shown,
    cpython_accepted,
    interrupting,
    python_rejects,
    stopped_note,
)
from namedcheck.analyzer.budget import clock as budget_clock
from namedcheck.analyzer.coverage import Coverage, CoverageCounter
from namedcheck.analyzer.memo import RUN
from namedcheck.analyzer.module import ModuleAnalyzer, via
from namedcheck.analyzer.parsing import Unparsable, decode_source, parse_guarded, parse_module
from namedcheck.analyzer.project import Project, project_for
from namedcheck.analyzer.relevance import is_relevant
from namedcheck.analyzer.sources import source_lines
from namedcheck.diagnostic import Diagnostic, merge_contexts
from namedcheck.engine.codes import NC000, NC001, NC002
from namedcheck.engine.errors import is_strict_rule_bug
from namedcheck.engine.stubs import op_table

# Builds the analyzer of a checked file: (module, op table, project keywords) -> analyzer. The editor gives
# its own (recording values, replaying unchanged definitions); the default is `ModuleAnalyzer`.
MakeAnalyzer = Callable[..., ModuleAnalyzer]


@dataclass
class FileResult:
    """One file's analysis."""

    diagnostics: list[Diagnostic]  # located in the file
    elsewhere: list[Diagnostic] = field(default_factory=list)  # its calls' findings in other project modules
    complete: bool = True  # False: a budget cut the analysis short (what it proved is kept; not cached)
    analyzer: ModuleAnalyzer | None = None  # the analyzer that ran (observers read its records)
    failed: bool = False  # the file was not analysed: it does not parse (NC001) or the analyzer failed (NC000)
    # array-valued expressions of the file and how much of their shapes is known (analyzer/coverage.py);
    # None: the file was not analysed (skipped, failed)
    coverage: Coverage | None = None

    @property
    def all(self) -> list[Diagnostic]:
        """Every diagnostic the file causes, one per location and code (the other contexts as notes), sorted."""
        return merge_contexts([*self.diagnostics, *self.elsewhere])


MAX_CALLED_WITH = 20_000  # values kept per open file for hover (`Session.called_with`)


@dataclass(frozen=True)
class CalledWith:
    """A value the calls of other files gave an expression: its span (1-based lines, 0-based columns, end
    exclusive), the value, and (resolved file, line) of the outermost call."""

    span: tuple[int, int, int, int]
    value: Any
    via: tuple[str, int]


class Session:
    """The analysis of one run (or one editor, or one mypy build): configuration and projects."""

    def __init__(
        self,
        stub_paths: Sequence[str] = (),
        limits: Limits | None = None,
        roots: Sequence[str] = (),
        projects: bool = True,
        fixed: Project | None = None,
        editor: bool = False,
        devices: Sequence[int] = (),
        record_bindings: bool = False,
    ) -> None:
        self.stub_paths = tuple(stub_paths)
        # `namedcheck types`: the analyzers of dependencies, recording the bindings their call analyses reach
        self.recorded: list[Any] | None = [] if record_bindings else None
        # the device counts each file is checked under (`[tool.namedcheck] devices`; analyzer/devices.py);
        # empty: not stated (the symbol `ndev`) unless a program states its own
        self.devices = tuple(devices)
        self.limits = limits or Limits()
        self.roots = [r for r in roots if r != "-"]
        self.projects = projects  # False: each file alone (a source with no file, the test corpus)
        self.fixed = fixed  # the one project of every file (an embedder's), instead of each file's own
        # a long-lived session (the language server): files on disk may change between analyses
        self.editor = editor
        # texts that differ from the disk (an editor's open buffers), read by every project module load
        self.overlay: dict[Path, str] = {}
        self._callers: dict[tuple[str, str, int, str], list[Diagnostic]] = {}
        self._handed: dict[int, Project] = {}  # every project this session has used

    # ---- projects ------------------------------------------------------------------------------
    def project(self, path: str | Path, count: int | None | Literal["session"] = "session") -> Project | None:
        """The project a file belongs to (shared by the files of one set of roots), None without one; `count`:
        the device count its analyses run under (one project per count), by default the session's first."""
        if count == "session":
            count = self.devices[0] if self.devices else None
        if self.fixed is not None or not self.projects:
            project = self.fixed
        else:
            project = project_for(path, self.stub_paths, self.roots, count)
        if project is not None and project.overlay is not self.overlay:
            project.share_overlay(self.overlay)
        if project is not None:
            self._handed[id(project)] = project
            if project.recording is not self.recorded:
                project.record_bindings(self.recorded)
            if self.editor and not project.record_calls:
                project.record_calls = True
                if project.base is not None:
                    project.base.record_calls = True
        return project

    def set_text(self, path: str | Path, text: str | None) -> None:
        """An open buffer's text (None: closed, the disk's text again); project modules read it. When it
        changes, what the projects loaded from the old text is let go."""
        key = Path(path).resolve()
        old = self.overlay.get(key)
        if text is None:
            self.overlay.pop(key, None)
        else:
            self.overlay[key] = text
        if old != text:
            self.project(path)
            for project in self._handed.values():  # an importer may sit in another project that loaded it
                project.forget(key)

    # ---- one file --------------------------------------------------------------------------------
    def check(
        self,
        path: str | Path,
        source: str,
        display: str | None = None,
        *,
        force: bool = False,
        module: cst.Module | None = None,
        make: MakeAnalyzer | None = None,
        within: Project | None = None,
    ) -> FileResult:
        """Analyse one file's `source` (its text, which may differ from the disk's), reported as `display`
        (default: `path`). `module`: its syntax tree when the front end parsed it (the editor's chunks);
        `make`: the front end's analyzer; `within`: the project to analyse it in (default: its own).
        A file that names nothing of jax or namedcheck and imports no project module is skipped unless
        `force`."""
        file = Path(path)
        shown = display if display is not None else str(path)
        try:
            project = within if within is not None else self.project(file)
        except (OSError, RuntimeError, ValueError):  # a path pathlib cannot resolve
            project = None
        if not force and not is_relevant(source) and not (project is not None and project.imports_text(file, source)):
            return FileResult([])
        if project is not None and self.editor:
            project.refresh()
        if module is None:
            failed = self._syntax_error(source, shown, file, project)
            if failed is not None:
                return FileResult(failed, failed=True)
            try:
                module = project.parse(file, source, checked=True) if project is not None else parse_guarded(source)
            except Unparsable as e:
                return FileResult([refusal(shown, e.line, e.column, e.message)], failed=True)
        if within is None:
            counts = devices.counts_for(module, self.devices)
        else:  # an importer analysed in the project of the file it imports: that project's count
            own = getattr(within, "devices", None)
            counts = (own if own is not None or not self.devices else self.devices[0],)
        results: list[tuple[int | None, FileResult]] = []
        deadline = budget_clock() + self.limits.time_budget  # one budget for the file, whatever the counts
        for count in counts:
            if results and not self._reads_devices(results[0][1], source):
                break  # the analysis does not depend on the count: one serves them all
            if results and (budget_clock() > deadline or not results[-1][1].complete):
                break  # the budget is spent: the counts analysed so far answer
            mine = project
            if within is None and self.projects and self.fixed is None and getattr(project, "devices", None) != count:
                mine = self.project(file, count)
                if mine is not None and self.editor:
                    mine.refresh()
            if mine is not None:  # a process past its memory mark lets go of what it kept: not the file's time
                deadline += mine.let_go_if_grown()
            # the front end's analyzer runs under the first count (an editor replays definitions analysed
            # under it, and reads its values, on its own syntax tree); the other counts only add their
            # diagnostics, from the file's text parsed as the command line parses it
            build, tree = make, module
            if results and make is not None:
                try:
                    build, tree = None, parse_module(source, trusted=cpython_accepted(source))
                except Exception:  # the front end's own parse served the first count: the others are left out
                    break
            results.append((count, self._analyse(tree, mine, file, build, source, shown, count, deadline)))
        if len(results) == 1:
            return results[0][1]
        return _merged(results)

    def _reads_devices(self, first: FileResult, source: str) -> bool:
        """Whether a file's analysis (its first, under one count) may differ under another device count."""
        an = first.analyzer
        project = getattr(an, "project", None)
        return bool(
            getattr(an, "devices_read", False)
            or getattr(project, "devices_read", False)
            or devices.MAY_READ.search(source)
        )

    def _analyse(
        self,
        module: cst.Module,
        project: Project | None,
        file: Path,
        make: MakeAnalyzer | None,
        source: str,
        shown: str,
        count: int | None,
        deadline: float | None = None,
    ) -> FileResult:
        """One analysis of a parsed file under one device count, within the file's `deadline`."""
        an: ModuleAnalyzer | None = None
        RUN.begin()  # a new program run: nothing another checked file's analysis changed is seen
        if project is not None:
            project.devices_read = False
            # which settings each expression read (the notes "`cfg.L` is 16, set here"): this file's analysis
            # reads them again; what another file's left would name its contexts' settings
            project.program.read_at.clear()
        try:
            with deep_recursion():
                an = self._analyzer(module, project, file, make)
                an.devices = count
                an.source = source
                an.file = file  # where the checked file lives (a config flag's default file is found from it)
                an.guard = Guard(self.limits, deadline)
                an.coverage = CoverageCounter()
                if project is not None:
                    project.guard = an.guard  # the project's modules analysed for this file share its budget
                with interrupting(an.guard):  # work no checkpoint reaches stops too
                    an.run()
                own = merge_contexts(an.diagnostics(shown, source_lines(source)))
                elsewhere = project.dependency_diagnostics((an, shown)) if project is not None else []
                mine = {(d.path, d.line, d.column, d.code) for d in own}
                elsewhere = [d for d in merge_contexts(elsewhere) if (d.path, d.line, d.column, d.code) not in mine]
                return FileResult(own, elsewhere, True, an, coverage=_counted(an))
        except (BudgetExceeded, MemoryError) as e:
            found = found_before_budget(an, shown, source) if an is not None else []
            reason = "time" if isinstance(e, BudgetExceeded) and e.args[:1] == ("time",) else "memory"
            if budget_note_shown(reason, self.limits):  # the file says it was cut short
                # a note, not an error: how fast a machine is never fails a run
                note = Diagnostic(shown, 1, 1, 1, 1, NC001, *stopped_note(reason, self.limits), severity="note")
                found.append(note)
            return FileResult(found, [], False, an, coverage=_counted(an))
        except RecursionError:
            return FileResult(
                [internal(shown, "the file nests too deeply for the analyzer (RecursionError)")], failed=True
            )
        except Exception as e:
            if is_strict_rule_bug(e):  # NAMEDCHECK_STRICT (tests, CI): a rule's own bug fails loudly
                raise
            tb = traceback.extract_tb(e.__traceback__)[-1]
            what = f"{type(e).__name__}: {e} (at {tb.filename.rsplit('/', 1)[-1]}:{tb.lineno})"
            return FileResult([internal(shown, what)], failed=True)

    def _syntax_error(self, source: str, shown: str, file: Path, project: Project | None) -> list[Diagnostic] | None:
        """NC001 when CPython rejects the text or it nests too deeply for libcst (a text the project parsed
        already as another file's dependency passed this check then)."""
        if project is not None and project.is_parsed(file, source):
            return None
        rejected = python_rejects(source, self.limits)
        if rejected is None:
            return None
        return [refusal(shown, *rejected)]

    def _analyzer(
        self, module: cst.Module, project: Project | None, file: Path, make: MakeAnalyzer | None
    ) -> ModuleAnalyzer:
        """The analyzer of a checked file, placed in its project when there is one."""
        build: MakeAnalyzer = make if make is not None else ModuleAnalyzer
        ops = project.ops if project is not None else op_table(self.stub_paths)
        if project is None:
            return build(module, ops)
        project.begin_target()
        named = project.index.module_name(file)
        name, is_package = named if named is not None else (None, False)
        an = build(module, ops, project=project, modname=name, is_package=is_package)
        return an

    # ---- what other files cause in one -----------------------------------------------------------
    def importers(self, paths: Sequence[str | Path]) -> list[Path]:
        """The project files that import any of `paths`, transitively, in a stable order (`paths` left
        out): one search per project (`project.importers_of_files`)."""
        from namedcheck.analyzer.project import importers_of_files  # (looked up per call: the daemon's memo)

        return importers_of_files(paths, self.project)

    def importers_within(self, path: str | Path, limit: int | None = None) -> list[Path]:
        """The project modules importing `path` that `callers_cause` analyses: at most `limit`, the nearest
        first."""
        target = Path(path).resolve()
        project = self.project(path)
        if project is None:
            return []
        importers = project.importers_of([target])
        if limit is not None:
            importers = sorted(importers, key=lambda f: _distance(f, target))[:limit]
        return importers

    @overload
    def callers_cause(
        self, path: str | Path, display: str | None = None, limit: int | None = None, superseded: None = None
    ) -> list[Diagnostic]: ...

    @overload
    def callers_cause(
        self, path: str | Path, display: str | None, limit: int | None, superseded: Callable[[], bool]
    ) -> list[Diagnostic] | None: ...

    def callers_cause(
        self,
        path: str | Path,
        display: str | None = None,
        limit: int | None = None,
        superseded: Callable[[], bool] | None = None,
    ) -> list[Diagnostic] | None:
        """The diagnostics that the project modules importing `path` cause inside it (each importer
        analysed as a checked file of `path`'s project, its text from the overlay or the disk), reported
        as `display`; `limit`: at most that many importers, the nearest first. `superseded` is asked before
        each importer: once it says yes, None (the work is not wanted any more)."""
        target = Path(path).resolve()
        shown = display if display is not None else str(path)
        project = self.project(path)
        if project is None:
            return []
        importers = self.importers_within(path, limit)
        out: set[Diagnostic] = set()
        overlay = hash(frozenset(self.overlay.items()))
        for importer in importers:
            if superseded is not None and superseded():
                return None
            text = self.read(importer)
            if text is None:
                continue
            # the importer's findings depend on its text, the open buffers and its imports on disk
            key = (str(importer), text, overlay, project.dependency_fingerprint(importer))
            found = self._callers.get(key)
            if found is None:
                if len(self._callers) > 256:
                    self._callers.clear()
                found = self._callers[key] = self.check(importer, text, project.display(importer), within=project).all
            for d in found:
                if _same_file(d.path, target):
                    out.add(d if d.path == shown else _moved(d, shown))
        return sorted(out)

    def called_with(self, path: str | Path, text: str) -> list[CalledWith]:
        """What the calls of a file's importers (analysed for `callers_cause`) gave its expressions: the
        values recorded by its dependency analyses of this very text, each with where the outermost call was
        made (an editor's hover inside a function whose own analysis does not know its arguments)."""
        try:
            target = Path(path).resolve()
        except (OSError, RuntimeError, ValueError):
            return []
        out: list[CalledWith] = []
        seen: set[tuple[Any, ...]] = set()
        for project in list(self._handed.values()):
            for an in project.analyzers():
                if not an.call_values or an.path is None or an.source != text:
                    continue
                try:
                    if Path(an.path).resolve() != target:
                        continue
                    positions = an.positions()
                except (OSError, RuntimeError, ValueError):
                    continue
                for node, value, root in [*an.call_values, *(an.bindings or [])]:  # expressions, bound names
                    r = positions.get(node)
                    at = via(root)
                    if r is None or at is None:
                        continue
                    span = (r.start.line, r.start.column, r.end.line, r.end.column)
                    key = (span, repr(value), at)
                    if key not in seen and len(out) < MAX_CALLED_WITH:
                        seen.add(key)
                        out.append(CalledWith(span, value, at))
        return out

    def with_callers(
        self, path: str | Path, own: list[Diagnostic], display: str | None = None, limit: int | None = None
    ) -> list[Diagnostic]:
        """A file's own diagnostics (with their fixes) and those its importers cause in it (`callers_cause`),
        one per location and code (`merge_contexts`), sorted: what a change-only run and an editor show."""
        return merge_contexts([*own, *self.callers_cause(path, display, limit)])

    def read(self, path: Path) -> str | None:
        """A file's text: the open buffer's, else the disk's (None: unreadable)."""
        from namedcheck.analyzer.sources import read_bytes

        try:
            hit = self.overlay.get(path.resolve())
            if hit is not None:
                return hit
            # the guarded reader, decoded as Python decodes source (a coding line)
            return decode_source(read_bytes(path, self.limits.max_file_size * 1024 * 1024))
        except (OSError, UnicodeDecodeError, SyntaxError, LookupError, RuntimeError):  # RuntimeError: a symlink loop
            return None


def _merged(results: list[tuple[int | None, FileResult]]) -> FileResult:
    """The analyses of one file under several device counts as one result (analyzer/devices.merge)."""

    def key(d: Diagnostic) -> tuple[Any, ...]:
        return (d.path, d.line, d.column, d.end_line, d.end_column, d.code)

    first = results[0][1]
    # an unused suppression (NC002) is one under every count: another count's analysis may need it
    everywhere = set.intersection(*({key(d) for d in r.diagnostics if d.code == NC002} for _, r in results))
    own = devices.merge([(c, r.diagnostics) for c, r in results], key)
    own = [d for d in own if d.code != NC002 or key(d) in everywhere]
    seen = set(own)
    elsewhere = [d for d in devices.merge([(c, r.elsewhere) for c, r in results], key) if d not in seen]
    return FileResult(
        sorted(own),
        sorted(elsewhere),
        all(r.complete for _, r in results),
        first.analyzer,
        any(r.failed for _, r in results),
        first.coverage,
    )


def _distance(a: Path, b: Path) -> tuple[int, str]:
    """How far apart two files are in the tree (then by name): the nearest importers are checked first."""
    common = 0
    for x, y in zip(a.parts, b.parts, strict=False):
        if x != y:
            break
        common += 1
    return (len(a.parts) + len(b.parts) - 2 * common, str(a))


def _same_file(a: str, b: Path) -> bool:
    try:
        return Path(a).resolve() == b
    except (OSError, RuntimeError):
        return False


def _moved(d: Diagnostic, path: str) -> Diagnostic:
    from dataclasses import replace

    return replace(d, path=path)


def _counted(an: ModuleAnalyzer | None) -> Coverage | None:
    """What the analysis of a checked file saw of its array shapes (what it had seen when a budget cut it short)."""
    if an is None or an.coverage is None:
        return None
    try:
        with deep_recursion():
            return an.coverage.result()
    except (MemoryError, RecursionError):
        return None


def found_before_budget(an: ModuleAnalyzer, path: str, source: str) -> list[Diagnostic]:
    """What a file cut short by its budget had proven (an unbound axis name waits for the whole module:
    dropped)."""
    an.guard = None
    an.unbound_names = []
    an.judge_suppressions = False  # what the budget cut short may be what a suppression is for
    try:
        return an.diagnostics(path, source_lines(source))
    except (MemoryError, RecursionError):
        return []


_DEEP = threading.Lock()
_DEEP_STATE = {"inside": 0, "limit": 0}  # blocks inside, across threads; the limit before the first


@contextmanager
def deep_recursion() -> Iterator[None]:
    """Long operator chains nest deeply; Python-to-Python calls do not grow the C stack on 3.11+. The limit is
    the process's: threads that overlap (the language server's analysis thread and a check) raise it once and
    the last to leave puts the first one's back (restoring per block left it raised for good)."""
    with _DEEP:
        if _DEEP_STATE["inside"] == 0:
            _DEEP_STATE["limit"] = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_DEEP_STATE["limit"], 20_000))
        _DEEP_STATE["inside"] += 1
    try:
        yield
    finally:
        with _DEEP:
            _DEEP_STATE["inside"] -= 1
            if _DEEP_STATE["inside"] == 0:
                sys.setrecursionlimit(_DEEP_STATE["limit"])


def refusal(path: str, line: int, column: int, message: str) -> Diagnostic:
    """NC001: a file that does not parse, or that the resource guard refuses to parse (`budget.python_rejects`)."""
    hint = (
        "split the long expression or statement into smaller ones, or leave the file out (`exclude` in "
        "[tool.namedcheck]); nothing else in this file is checked"
        if message.startswith("File is not checked")
        else None
    )
    return Diagnostic(path, line, column, line, column, NC001, message, hint)


def internal(path: str, what: str) -> Diagnostic:
    """NC000: the analyzer itself failed on this file."""
    return Diagnostic(
        path,
        1,
        1,
        1,
        1,
        NC000,
        f"Internal error while analysing this file: {what}; please report it with the file",
    )


_SESSIONS: dict[tuple[tuple[str, ...], Limits, tuple[str, ...], tuple[int, ...]], Session] = {}


def session_for(
    stub_paths: Sequence[str] = (),
    limits: Limits | None = None,
    roots: Sequence[str] = (),
    devices: Sequence[int] = (),
) -> Session:
    """The session of this process for a configuration and set of run paths (worker processes keep one)."""
    key = (tuple(stub_paths), limits or Limits(), tuple(r for r in roots if r != "-"), tuple(devices))
    hit = _SESSIONS.get(key)
    if hit is None:
        if len(_SESSIONS) > 16:
            _SESSIONS.clear()
        hit = _SESSIONS[key] = Session(stub_paths, limits, roots, devices=devices)
    return hit


__all__ = ["Session", "FileResult", "Coverage", "session_for", "source_lines", "deep_recursion", "internal"]
