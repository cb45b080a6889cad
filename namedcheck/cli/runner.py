"""Checking many files: each file read safely (regular files only, a size cap), analysed within its
budgets, in worker processes; a worker that dies (a crash in native code, the OOM killer) costs the file
it was checking one NC001 diagnostic, never the run."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from namedcheck.analyzer.budget import Limits
from namedcheck.cli.files import read_regular, unreadable
from namedcheck.cli.summary import FileDiagnostics, SkippedFile
from namedcheck.diagnostic import Diagnostic
from namedcheck.engine.codes import NC001


@dataclass(frozen=True)
class Job:
    display: str
    path: str
    stub_paths: tuple[str, ...]
    cache_root: str | None
    limits: Limits
    project_paths: tuple[str, ...] = ()  # the paths the run was given (they help find the file's project)
    devices: tuple[int, ...] = ()  # the device counts the file is checked under ([tool.namedcheck] devices)


def check_file(job: Job) -> list[Diagnostic]:
    """One file's diagnostics (never raises); an analysed file's are a `FileDiagnostics`, which also holds
    what its analysis saw of its array shapes (its coverage, cached with them)."""
    max_bytes = job.limits.max_file_size * 1024 * 1024
    data = read_regular(job.path, max_bytes)
    if isinstance(data, str):
        return [unreadable(job.display, "File", data)]
    if len(data) > max_bytes:
        return [
            Diagnostic(
                job.display,
                1,
                1,
                1,
                1,
                NC001,
                f"File is not checked: it is larger than {job.limits.max_file_size} MB "
                f"(max-file-size in [tool.namedcheck])",
            )
        ]
    from namedcheck.analyzer.parsing import decode_source
    from namedcheck.analyzer.relevance import RELEVANT

    try:
        source = decode_source(data)  # as Python decodes it: a coding line, else UTF-8
    except (UnicodeDecodeError, SyntaxError, LookupError) as e:
        return [Diagnostic(job.display, 1, 1, 1, 1, NC001, f"File is not text in its encoding: {e}")]
    from namedcheck.analyzer.session import session_for

    session = session_for(job.stub_paths, job.limits, job.project_paths, job.devices)
    path = Path(job.path)
    project = session.project(path)
    if not RELEVANT.search(source) and not (project is not None and project.imports_project(path)):
        return SkippedFile()  # nothing of namedcheck, xmap or shard_map, nor of the project: skipped cheaply
    cache = key = None
    if job.cache_root is not None:
        from namedcheck.cli.cache import ResultCache

        cache = ResultCache(Path(job.cache_root), job.stub_paths)
        deps = project.dependency_fingerprint(path) if project is not None else ""
        key = cache.key(job.display, data, deps, job.devices)
        hit = cache.get(key)
        if hit is not None:
            cached, coverage = hit
            return FileDiagnostics(_here(cached, job.display), job.display, coverage)
    result = session.check(path, source, job.display, force=True)
    diags = result.all
    if cache is not None and key is not None and result.complete:  # a file cut short by its budget: not cached
        cache.put(key, _anywhere(diags, job.display), result.coverage)
    return FileDiagnostics(diags, job.display, result.coverage)


def _anywhere(diags: list[Diagnostic], display: str) -> list[Diagnostic]:
    """A result to cache: other files (a diagnostic's or a related location's) under absolute paths, as the
    entry is read again from any working directory; the file's own under its display path, which is in the key."""
    return [_paths(d, display, lambda p: str(Path(p).resolve())) for d in diags]


def _here(diags: list[Diagnostic], display: str) -> list[Diagnostic]:
    """A cached result, other files' paths relative to this working directory (as a run shows them)."""
    return [_paths(d, display, lambda p: _relative(p) if os.path.isabs(p) else p) for d in diags]


def _paths(d: Diagnostic, display: str, other: Callable[[str], str]) -> Diagnostic:
    """`d` with every path that is not `display` (its own, its related locations') passed through `other`."""
    from dataclasses import replace

    related = tuple(r if r.path == display else replace(r, path=other(r.path)) for r in d.related)
    path = d.path if d.path == display else other(d.path)
    if path == d.path and related == d.related:
        return d
    return replace(d, path=path, related=related)


def _relative(path: str) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


def check_all(
    todo: list[Job], jobs: int, on_file: Callable[[list[Diagnostic]], None] | None = None
) -> list[Diagnostic]:
    """Every job's diagnostics: in worker processes when there are many files (one worker for `jobs=1`,
    so that a crash still costs one file, not the run); `on_file` sees each file's result as it comes."""
    record = on_file or (lambda _result: None)
    if len(todo) > 8:
        return _in_pool(todo, max(1, jobs), record)
    out: list[Diagnostic] = []
    for job in todo:
        result = check_file(job)
        record(result)
        out.extend(result)
    return out


def _fork_context():
    import multiprocessing

    return multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None


def _in_pool(todo: list[Job], jobs: int, record: Callable[[list[Diagnostic]], None]) -> list[Diagnostic]:
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    size = max(1, len(todo) // (jobs * 8))
    chunks = [todo[i : i + size] for i in range(0, len(todo), size)]
    done: dict[int, list[list[Diagnostic]]] = {}
    try:
        with ProcessPoolExecutor(max_workers=min(jobs, len(chunks)), mp_context=_fork_context()) as pool:
            futures = {pool.submit(_check_chunk, chunk): i for i, chunk in enumerate(chunks)}
            for fut, i in futures.items():
                try:
                    done[i] = fut.result()
                    for result in done[i]:
                        record(result)
                except BrokenProcessPool:
                    continue  # this chunk's worker died (or the pool broke before it ran)
    except BrokenProcessPool:
        pass
    out: list[Diagnostic] = []
    for i, chunk in enumerate(chunks):
        if i in done:
            for result in done[i]:
                out.extend(result)
        else:  # lost with a dead worker: each file again, alone in a fresh process
            for job in chunk:
                result = isolated(job)
                record(result)
                out.extend(result)
    return out


def _check_chunk(chunk: list[Job]) -> list[list[Diagnostic]]:
    """Each file's result, in order."""
    return [check_file(job) for job in chunk]


def isolated(job: Job) -> list[Diagnostic]:
    """One file checked in a process of its own: its crash is that file's NC001, nothing more."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=_fork_context()) as pool:
            return pool.submit(_check_chunk, [job]).result()[0]
    except BrokenProcessPool:
        return [
            Diagnostic(
                job.display,
                1,
                1,
                1,
                1,
                NC001,
                "File is not checked: the process analysing it crashed (out of memory, or a fault "
                "in the native parser); please report it with the file",
            )
        ]
