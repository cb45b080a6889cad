"""In-process analysis for editors: the CLI's diagnostics for a buffer, re-checked incrementally, with the
value of every expression, parameter and return for hover, inlay hints and `namedcheck infer`.

A buffer is split into top-level chunks (analyzer/chunks.py), each parsed once per text. A top-level function or
class analysed on its own (the bulk of the work) is not analysed again when neither its chunk, nor a chunk
it refers to by name (transitively), nor a module-level statement before it changed: what that analysis
reported and recorded is replayed. Module-level statements always run again. The result equals
`check_source` (tests/test_lsp.py compares them over the corpus, before and after edits).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst

from namedcheck.analyzer.budget import PARSE_COST_CHARS, refused
from namedcheck.analyzer.chunks import Chunk, ChunkPositions, ChunkSyntaxError, split
from namedcheck.analyzer.memo import RUN
from namedcheck.analyzer.module import _PRNG_CONFIG, ModuleAnalyzer
from namedcheck.analyzer.refs import ClassInfo, FuncRef, MappedRef
from namedcheck.analyzer.relevance import is_relevant
from namedcheck.analyzer.session import Session
from namedcheck.diagnostic import Diagnostic, merge_contexts
from namedcheck.engine.codes import NC001
from namedcheck.engine.errors import RuleError
from namedcheck.engine.values import UNKNOWN


@dataclass
class Replay:
    """What one standalone analysis of a top-level definition left behind."""

    node: cst.CSTNode
    reports: list[tuple[cst.CSTNode, RuleError]]
    unbound: list[tuple[Any, cst.CSTNode, RuleError]]
    values: list[tuple[cst.CSTNode, Any]]
    functions: list[tuple[cst.CSTNode, str, dict[str, Any], Any]]
    under_map: set[int]
    mapped: set[int]
    state: tuple[int, ...] = ()  # the shared state it was analysed under (`EditorAnalyzer._shared_state`)
    cut: bool = False  # a call in it was cut short by a bound (unused suppressions are not judged then)
    whys: list[tuple[cst.CSTNode, Any]] = field(default_factory=list)  # (expression, cause of its lost value)


@dataclass
class FunctionRecord:
    """One analysis of a function body: how it was reached, its parameters' values, its return value."""

    # "standalone" (under its own annotations), "call" (at a call site), "map" (as a map body), or "excluded"
    # (a call written in a line range the analyser was told to exclude: a `__main__` block, a test function)
    kind: str
    params: dict[str, Any]
    returns: Any


_IMPORTS_HAIKU = re.compile(r"^[ \t]*(?:import|from)[ \t]+haiku\b", re.M)


@dataclass
class Analysis:
    """One buffer's analysis."""

    diagnostics: list[Diagnostic]
    chunks: list[tuple[int, Chunk]] = field(default_factory=list)
    values: list[tuple[cst.CSTNode, Any]] = field(default_factory=list)
    functions: dict[int, tuple[cst.CSTNode, list[FunctionRecord]]] = field(default_factory=dict)
    failed: bool = False  # not analysed (does not parse, or the analyzer failed): nothing more to add
    excluded: set[int] = field(default_factory=set)  # indices of `values` recorded under an excluded call
    whys: list[tuple[cst.CSTNode, Any]] = field(default_factory=list)  # (expression, `causes.Cause`): hover
    # what the calls of the file's importers gave its expressions (`Session.called_with`): hover inside a function
    called_with: list[Any] = field(default_factory=list)
    own: list[Diagnostic] | None = None  # the file's own diagnostics, before its importers' were added
    superseded: bool = False  # the importers' part was stopped (a newer text came): not the whole analysis

    @property
    def positions(self) -> ChunkPositions:
        return ChunkPositions(self.chunks)


class EditorAnalyzer(ModuleAnalyzer):
    """The CLI's module analyzer, recording every analysis's values and replaying unchanged definitions."""

    def __init__(
        self,
        module: cst.Module,
        ops: dict[str, Any],
        chunks: list[tuple[int, Chunk]],
        source: str,
        previous: dict[Any, Replay],
        **project: Any,
    ) -> None:
        super().__init__(module, ops, **project)
        self.value_log: list[tuple[cst.CSTNode, Any]] = []
        self.why_log: list[tuple[cst.CSTNode, Any]] = []
        self.function_log: list[tuple[cst.CSTNode, str, dict[str, Any], Any]] = []
        self.report_log: list[tuple[cst.CSTNode, RuleError]] = []
        self.unbound_log: list[tuple[Any, cst.CSTNode, RuleError]] = []
        self.chunks = chunks
        self.previous = previous
        self.replays: dict[Any, Replay] = {}
        self.keys = _definition_keys(chunks, _PRNG_CONFIG.search(source) is not None)
        self._positions = ChunkPositions(chunks)
        self._prng_configured = _PRNG_CONFIG.search(source) is not None
        self.excluded_lines: list[tuple[int, int]] = []  # calls written here are recorded as "excluded"
        self.call_sites: list[bool] = []  # per call being analysed: written in an excluded range
        self.excluded_values: set[int] = set()

    def call_function(
        self,
        ref: FuncRef,
        pos: list[Any],
        kw: dict[str, Any],
        nodes: list[Any],
        node: cst.CSTNode,
        caller: Any,
        as_map_body: bool = False,
    ) -> Any:
        r = self._positions.get(node) if self.excluded_lines else None
        excluded = r is not None and any(a <= r.start.line <= b for a, b in self.excluded_lines)
        mark = len(self.value_log)
        self.call_sites.append(excluded)
        try:
            return super().call_function(ref, pos, kw, nodes, node, caller, as_map_body)
        finally:
            self.call_sites.pop()
            if excluded:
                self.excluded_values.update(range(mark, len(self.value_log)))

    def report(self, node: cst.CSTNode, err: RuleError) -> None:
        self.report_log.append((node, _detached(err)))
        super().report(node, err)

    def defer_unbound_name(self, ref: FuncRef | MappedRef, node: cst.CSTNode, err: RuleError) -> None:
        self.unbound_log.append((ref, node, _detached(err)))
        super().defer_unbound_name(ref, node, err)

    def body_values(
        self,
        ref: FuncRef,
        values: dict[str, Any],
        extra: tuple[Any, ...],
        declared_return: Any,
        lenient: bool,
        quiet: bool = False,
        env: Any = None,
        standalone: bool = False,
        nc705_owner: FuncRef | MappedRef | None = None,
        entry: bool = False,
        settings: dict[str, Any] | None = None,
        arguments: dict[str, Any] | None = None,
    ) -> Any:
        out = super().body_values(
            ref,
            values,
            extra,
            declared_return,
            lenient,
            quiet,
            env,
            standalone,
            nc705_owner,
            entry,
            settings,
            arguments,
        )
        kind = "standalone" if standalone else "map" if env is not None and (env.named or env.manual) else "call"
        if self.call_sites and self.call_sites[-1] and not standalone:
            kind = "excluded"
        self.function_log.append((ref.node, kind, dict(values), out))
        return out

    def analyse_standalone(self, ref: FuncRef) -> None:
        key = self.keys.get(id(ref.node))
        if key is None or id(ref.node) in self.analysed:
            return super().analyse_standalone(ref)
        old = self.previous.get(key)
        state = self._shared_state()
        # a report naming another statement's line ("inside the shard_map at line 35") may have moved: re-analyse;
        # so is a definition analysed under other shared state (a config another function mutates)
        if (
            old is not None
            and old.node is ref.node
            and old.state == state
            and not any(" at line " in e.message for _, e in old.reports)
        ):
            self.analysed.add(id(ref.node))
            if old.cut:
                self.judge_suppressions = False
            for node, err in old.reports:
                super().report(node, err)
            self.unbound_names.extend(old.unbound)
            self.value_log.extend(old.values)
            self.why_log.extend(old.whys)
            self.function_log.extend(old.functions)
            self.under_map |= old.under_map
            self.mapped |= old.mapped
            self.replays[key] = old
            return None
        marks = (
            len(self.report_log),
            len(self.unbound_log),
            len(self.value_log),
            len(self.function_log),
            set(self.under_map),
            set(self.mapped),
            self.log.cuts,
            len(self.why_log),
        )
        super().analyse_standalone(ref)
        if self._shared_state() != state:
            return None  # its analysis changed what others read (not replayed: analysed again next time)
        self.replays[key] = Replay(
            ref.node,
            self.report_log[marks[0] :],
            self.unbound_log[marks[1] :],
            self.value_log[marks[2] :],
            self.function_log[marks[3] :],
            self.under_map - marks[4],
            self.mapped - marks[5],
            state,
            self.log.cuts != marks[6],
            self.why_log[marks[7] :],
        )
        return None

    def _shared_state(self) -> tuple[int, ...]:
        """A fingerprint of the state one function's analysis can leave for another's: the program's config
        and flag records (analyzer/configs.py) and the attributes of built instances assigned somewhere. (Where
        settings are read, `read_at` and `spread`, is looked up only below the reading expression: not shared.)"""
        p = self.program
        classes = 0
        top = getattr(self, "top", None)
        for v in getattr(top, "vars", {}).values():
            if isinstance(v, ClassInfo):
                classes += len(v.mutated)
        run = (len(RUN.configs), len(RUN.flags))
        return (len(p.flags), len(p.mutated), len(p.set_at), len(p.built), classes, *run)

    def escapes(self, ref: FuncRef) -> bool:
        if self._escaping is None:
            names: dict[str, int] = {}
            called: dict[str, int] = {}
            defined: dict[str, int] = {}
            for _, chunk in self.chunks:
                for total, part in zip((names, called, defined), chunk.names()):
                    for k, n in part.items():
                        total[k] = total.get(k, 0) + n
            self._escaping = {n for n, k in names.items() if k > called.get(n, 0) + defined.get(n, 0)}
        return super().escapes(ref)

    def _enclosing_may_map(self, ref: FuncRef) -> bool:
        if self._enclosing is None:
            self._enclosing = {}
            for _, chunk in self.chunks:
                self._enclosing.update(chunk.enclosing())
        return super()._enclosing_may_map(ref)


def _detached(err: RuleError) -> RuleError:
    """The error without its traceback: a replayed report must not keep the analysis that raised it (its
    frames, and through them every earlier analysis whose replays it kept) alive."""
    err.__traceback__ = None
    err.__context__ = None
    err.__cause__ = None
    return err


def _definition_keys(chunks: list[tuple[int, Chunk]], prng: bool) -> dict[int, Any]:
    """Replay keys of top-level functions and methods of top-level classes: the texts of the chunk, of the
    chunks it names (transitively), and of every module-level statement before it."""
    definers: dict[str, list[int]] = {}
    for i, (_, chunk) in enumerate(chunks):
        d = chunk.definition
        if d is not None:
            definers.setdefault(d.name.value, []).append(i)
    keys: dict[int, Any] = {}
    prefix: list[str] = []
    for i, (_, chunk) in enumerate(chunks):
        d = chunk.definition
        if d is None:
            prefix.append(chunk.text)
            continue
        seen = {i}
        todo = [i]
        while todo:
            j = todo.pop()
            for name in chunks[j][1].names()[0]:
                for k in definers.get(name, ()):
                    if k not in seen:
                        seen.add(k)
                        todo.append(k)
        key = hash((prng, tuple(prefix), tuple(chunks[j][1].text for j in sorted(seen))))
        nodes = (
            [d]
            if isinstance(d, cst.FunctionDef)
            else [
                s
                for s in (d.body.body if isinstance(d.body, cst.IndentedBlock) else ())
                if isinstance(s, cst.FunctionDef)
            ]
        )
        for n in nodes:
            keys[id(n)] = (key, id(n))
    return keys


# (diagnostics, source, chunks, recorded values) -> the diagnostics with their fixes
Fixer = Callable[[list[Diagnostic], str, list[tuple[int, Chunk]], list[tuple[cst.CSTNode, Any]]], list[Diagnostic]]


class DocumentAnalyser:
    """Analyses successive versions of one buffer through the session (the file in its project, as the CLI
    sees it), replaying what an edit did not touch; `callers` adds what the project modules importing the
    file cause in it."""

    def __init__(
        self,
        path: str,
        stub_paths: tuple[str, ...] = (),
        session: Session | None = None,
        callers: bool = True,
        max_callers: int | None = None,
        fixer: Fixer | None = None,
        excluded_lines: Callable[[str], list[tuple[int, int]]] | None = None,
    ) -> None:
        self.path = path
        self.excluded_lines = excluded_lines  # line ranges whose calls are recorded as "excluded" (infer)
        self.stub_paths = stub_paths
        self.session = session if session is not None else Session(stub_paths)
        self.callers = callers
        self.max_callers = max_callers  # the nearest importers only (an editor's bound per edit)
        self.fixer = fixer  # attaches fixes to the diagnostics (edits/fixes.attach_fixes; front ends pass it)
        self.replays: dict[Any, Replay] = {}
        self.context: Any = None  # what the replays assumed of the imported project modules
        self.last: tuple[str, Analysis] | None = None

    def analyse(
        self,
        source: str,
        own_first: Callable[[Analysis], None] | None = None,
        superseded: Callable[[], bool] | None = None,
    ) -> Analysis:
        """The buffer's analysis: its own code's, then (with `callers`) what its importers cause in it.
        `own_first` is handed the own part before the importers are analysed, when there are any (an editor
        shows it at once); `superseded` is asked between importers whether a newer text came (the importers'
        part then stops, and the result says so: it is not kept)."""
        if self.last is not None and self.last[0] == source:
            return self.last[1]
        too_large = oversized(source, self.session.limits.max_file_size, self.path)
        if too_large is not None:  # the CLI's size cap: not parsed, not analysed
            result = Analysis([too_large], failed=True)
            self.last = (source, result)
            return result
        if len(source) > PARSE_COST_CHARS and refused(source, self.session.limits) is not None:
            # a buffer the CLI refuses as a whole (its parse alone would pass the budgets): the same one NC001,
            # from the same check, before any chunk is parsed
            result = Analysis(self.session.check(self.path, source).diagnostics, failed=True)
            self.last = (source, result)
            return result
        context = self._context()
        if context != self.context:  # an imported module changed: no definition's analysis is replayed
            self.replays = {}
            self.context = context
        with _program_scope(self.session, self.path):
            result = self._analyse(source)
            result.own = list(result.diagnostics)
            if self.callers and not result.failed:
                if own_first is not None and self.session.importers_within(self.path, self.max_callers):
                    own_first(result)
                caused = self.session.callers_cause(self.path, self.path, self.max_callers, superseded)
                if caused is None:
                    result.superseded = True
                    return result
                result.diagnostics = merge_contexts([*result.diagnostics, *caused])
                result.called_with = self.session.called_with(self.path, source)
        self.last = (source, result)
        return result

    def _context(self) -> Any:
        """The state of the project modules this file's analysis may read: the other open buffers and the
        contents of the modules it imports (transitively) on disk."""
        try:
            project = self.session.project(self.path)
            own = Path(self.path).resolve()
            disk = project.dependency_fingerprint(own) if project is not None else ""
        except (OSError, RuntimeError, ValueError):
            return None
        return disk, hash(frozenset((k, v) for k, v in self.session.overlay.items() if k != own))

    def _analyse(self, source: str) -> Analysis:
        if not is_relevant(source):
            try:
                project = self.session.project(self.path)
            except (OSError, RuntimeError, ValueError):
                project = None
            if project is None or not project.imports_text(Path(self.path), source):
                return Analysis([])
        try:
            chunks = split(source)
        except ChunkSyntaxError:
            failed = self.session.check(self.path, source)
            kept = parseable_chunks(source) if failed.failed else None
            if not kept:
                return Analysis(failed.diagnostics, failed=failed.failed)
            # the chunks that parse analysed as the file (what the broken statement defines is unknown), the
            # CLI's NC001 at the broken one: an unfinished line keeps the rest of the file's diagnostics
            rest = self._analyse_chunks(source, kept)
            if rest.failed:
                return Analysis(failed.diagnostics, failed=True)
            rest.diagnostics = sorted({*failed.diagnostics, *rest.diagnostics})
            rest.failed = True  # (not a text to annotate, fix or read callers into)
            return rest
        return self._analyse_chunks(source, chunks)

    def _analyse_chunks(self, source: str, chunks: list[tuple[int, Chunk]]) -> Analysis:
        module = cst.Module(body=[s for _, c in chunks for s in c.module.body])
        # a dm-haiku program's init / apply pair collects what its modules make across definitions (a `Run` on the
        # call log) that a replayed definition does not make again: such a file is analysed whole
        previous = {} if _IMPORTS_HAIKU.search(source) else self.replays

        excluded = self.excluded_lines(source) if self.excluded_lines is not None else []

        def make(module: cst.Module, ops: dict[str, Any], **project: Any) -> EditorAnalyzer:
            an = EditorAnalyzer(module, ops, chunks, source, previous, **project)
            an.excluded_lines = excluded
            return an

        result = self.session.check(self.path, source, module=module, make=make)
        an = result.analyzer
        if isinstance(an, EditorAnalyzer):
            an.previous = {}  # what this analysis replayed (kept in its own replays): no chain of old analyses
        if not isinstance(an, EditorAnalyzer) or result.failed:  # (an NC000 of one rule is not a failed file)
            return Analysis(result.diagnostics, failed=result.failed)
        self.replays = an.replays
        diags = (
            result.diagnostics if self.fixer is None else self.fixer(result.diagnostics, source, chunks, an.value_log)
        )
        functions: dict[int, tuple[cst.CSTNode, list[FunctionRecord]]] = {}
        for node, kind, params, out in an.function_log:
            functions.setdefault(id(node), (node, []))[1].append(FunctionRecord(kind, params, out))
        return Analysis(diags, chunks, an.value_log, functions, excluded=an.excluded_values, whys=an.why_log)


def parseable_chunks(source: str) -> list[tuple[int, Chunk]] | None:
    """The top-level chunks of a text that does not parse, without the broken ones: every definition that parses,
    and the module-level statements before the first broken chunk (a statement after it could read a name the
    broken one rebinds: left out). None when the text does not split into chunks at all."""
    from namedcheck.analyzer.chunks import chunk_starts, parse_chunk

    lines = source.splitlines(keepends=True)
    if not lines:
        return None
    bounds = [*chunk_starts(lines), len(lines)]
    out: list[tuple[int, Chunk]] = []
    seen: dict[str, int] = {}
    broken = False
    for a, b in zip(bounds, bounds[1:]):
        text = "".join(lines[a:b])
        n = seen[text] = seen.get(text, -1) + 1
        chunk = parse_chunk(text, n)
        if chunk is None:
            broken = True
        elif not broken or chunk.definition is not None or _imports_only(chunk):
            out.append((a, chunk))
    return out if broken else None


def _imports_only(chunk: Chunk) -> bool:
    return all(
        isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Import | cst.ImportFrom) for x in s.body)
        for s in chunk.module.body
    )


_PROGRAM_RECORDS = ("flags", "mutated", "set_at", "read_at", "built", "spread")


@contextmanager
def _program_scope(session: Session, path: str) -> Iterator[None]:
    """What one analysis of a buffer adds to its project's shared program records (analyzer/configs.py:
    mutated configs, where settings were set and read) is let go after it: each edit's analysis made new
    entries that nothing reads again (about 30 KB an edit for a file of configs) and a removed flag would
    stay defined. Unless the analysis loaded project modules: what they recorded stays with them."""
    try:
        project = session.project(path)
    except (OSError, RuntimeError, ValueError):
        project = None
    program = getattr(project, "program", None)
    if project is None or program is None:
        yield
        return
    loaded = {k: id(v) for k, v in project.loaded.items()}
    marks = {name: set(getattr(program, name)) for name in _PROGRAM_RECORDS}
    try:
        yield
    finally:
        if {k: id(v) for k, v in project.loaded.items()} == loaded:
            for name in _PROGRAM_RECORDS:
                records = getattr(program, name)
                for key in [k for k in records if k not in marks[name]]:
                    if isinstance(records, set):
                        records.discard(key)
                    else:
                        del records[key]


def oversized(source: str, max_mb: int, path: str) -> Diagnostic | None:
    """NC001 when a buffer is larger than the CLI's per-file cap (`max-file-size`, in MB of UTF-8)."""
    cap = max_mb * 1024 * 1024
    if len(source) <= cap // 4 or len(source.encode("utf-8", "surrogatepass")) <= cap:
        return None
    return Diagnostic(
        path,
        1,
        1,
        1,
        1,
        NC001,
        f"Buffer is not checked: it is larger than {max_mb} MB (max-file-size in [tool.namedcheck])",
    )


# ---- reading an analysis: values at a position --------------------------------------------------------


def distinct(values: list[Any]) -> list[Any]:
    """The known values among `values`, each once, in order."""
    out: list[Any] = []
    for v in values:
        if v is UNKNOWN:
            continue
        try:
            if v in out:
                continue
        except Exception:
            continue
        out.append(v)
    return out


def called_with_at(a: Analysis, line: int, column: int) -> tuple[tuple[int, int, int, int], list[Any]] | None:
    """The innermost expression around 1-based `line`, 0-based `column` that the calls of other files gave
    values: its span and the `Session.called_with` records there."""
    best: tuple[int, int, int, int] | None = None
    found: list[Any] = []
    for rec in a.called_with:
        span = rec.span
        if (span[0], span[1]) <= (line, column) <= (span[2], span[3]):
            if best is None or _smaller(span, best):
                best, found = span, [rec]
            elif span == best:
                found.append(rec)
    return (best, found) if best is not None else None


def values_at(a: Analysis, line: int, column: int) -> tuple[tuple[int, int, int, int], list[Any]] | None:
    """The innermost recorded expression around 1-based `line`, 0-based `column`: its span and values."""
    positions = a.positions
    at = positions.chunk_at(line)
    if at is None:
        return None
    offset, chunk = at
    local = chunk.positions()
    best: tuple[int, int, int, int] | None = None
    found: list[Any] = []
    by_span: dict[tuple[int, int, int, int], list[Any]] = {}
    for node, v in a.values:
        r = local.get(node)
        if r is None:
            continue
        span = (r.start.line + offset, r.start.column, r.end.line + offset, r.end.column)
        if (span[0], span[1]) <= (line, column) <= (span[2], span[3]):
            by_span.setdefault(span, []).append(v)
    for span, vs in by_span.items():
        if best is None or _smaller(span, best):
            best, found = span, vs
    for target, value_node in _bindings(chunk.module):
        r = local.get(target)
        if r is None:
            continue
        span = (r.start.line + offset, r.start.column, r.end.line + offset, r.end.column)
        if (span[0], span[1]) <= (line, column) <= (span[2], span[3]) and (best is None or _smaller(span, best)):
            vs = [v for n, v in a.values if n is value_node]
            if vs:
                best, found = span, vs
    for fn, records in a.functions.values():
        if not isinstance(fn, cst.FunctionDef) or local.get(fn) is None:
            continue
        for prm in [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]:
            r = local.get(prm.name)
            if r is None:
                continue
            span = (r.start.line + offset, r.start.column, r.end.line + offset, r.end.column)
            if (span[0], span[1]) <= (line, column) <= (span[2], span[3]):
                vs = [rec.params[prm.name.value] for rec in records if prm.name.value in rec.params]
                if vs:
                    best, found = span, vs
    if best is None:
        return None
    return best, sorted(distinct(found), key=lambda v: not _complete(v))


def why_at(a: Analysis, line: int, column: int) -> tuple[tuple[int, int, int, int], Any] | None:
    """The innermost expression around 1-based `line`, 0-based `column` whose value was lost: its span and
    the cause (analyzer/causes.py) of its first such analysis; a name assigned such a value too."""
    from dataclasses import replace

    found = values_at(replace(a, values=a.whys, functions={}), line, column)
    return (found[0], found[1][0]) if found is not None and found[1] else None


def _complete(v: Any) -> bool:
    """Every part of the value known (shown first: a call's shapes before the partial view of a map body)."""
    from namedcheck.engine.values import ArrayType, Seq

    if isinstance(v, Seq):
        return all(_complete(i) for i in v.items)
    return isinstance(v, ArrayType) and not v.is_partial and v.dtype_code is not None and None not in v.shape


def _smaller(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return (a[0], -a[1]) >= (b[0], -b[1]) and (a[2], a[3]) <= (b[2], b[3])


def _bindings(module: cst.Module) -> list[tuple[cst.CSTNode, cst.CSTNode]]:
    """(assigned name, assigned expression) for `name = expr` statements, at any depth."""
    out: list[tuple[cst.CSTNode, cst.CSTNode]] = []

    class V(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                out.append((node.targets[0].target, node.value))

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if node.value is not None and isinstance(node.target, cst.Name):
                out.append((node.target, node.value))

    module.visit(V())
    return out


def symbols_of(values: list[Any]) -> list[str]:
    """The symbols (`n`, `config.batch_size`, `x.shape[0]`) the sizes of values are expressions in, sorted."""
    from namedcheck.engine import symbolic
    from namedcheck.engine.values import ArrayType, Seq

    out: set[str] = set()

    def walk(v: Any) -> None:
        if isinstance(v, ArrayType):
            for d in (*v.shape, *(s for _, s in v.named)):
                out.update(symbolic.atoms(d))
        elif isinstance(v, Seq):
            for i in v.items:
                walk(i)

    for v in values:
        walk(v)
    return sorted(a for a in out if not a.startswith("("))


def format_value(v: Any, sets: bool = True) -> str:
    """A value in the annotation language's checker-clean spelling (`f32[Array, Dims('B', 512)]`, engine/spelling.py),
    tuples item by item; `sets`: the varying / unreduced / reduced sets after it, in words (an annotation does
    not state them)."""
    from namedcheck.engine import spelling
    from namedcheck.engine.values import ArrayType, Seq

    if isinstance(v, ArrayType):
        return spelling.spell(v) + (spelling.sets(v) if sets else "")
    if isinstance(v, Seq) and v.kind == "tuple":
        if not sets and all(isinstance(i, ArrayType) for i in v.items):
            return spelling.spell(v)  # `tuple[f32[...], ...]`: an annotation
        return "(" + ", ".join(format_value(i, sets) for i in v.items) + ("," if len(v.items) == 1 else "") + ")"
    if v is UNKNOWN:
        return "?"
    return re.sub(r"^Const\((.*)\)$", r"\1", repr(v))
