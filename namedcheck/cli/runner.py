"""Checking many files: each file read safely (regular files only, a size cap), analysed within its
budgets, in worker processes; a worker that dies (a crash in native code, the OOM killer) costs the file
it was checking one NC001 diagnostic, never the run."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from namedcheck.analyzer.budget import Limits
from namedcheck.cli.files import read_regular, unreadable
from namedcheck.cli.summary import FileDiagnostics, SkippedFile
from namedcheck.diagnostic import Diagnostic
from namedcheck.engine.codes import NC001, NC002


@dataclass(frozen=True)
class Job:
    display: str
    path: str
    stub_paths: tuple[str, ...]
    cache_root: str | None
    limits: Limits
    project_paths: tuple[str, ...] = ()  # the paths the run was given (they help find the file's project)
    devices: tuple[int, ...] = ()  # the device counts the file is checked under ([tool.namedcheck] devices)
    why: bool = False  # the coverage's causes located (`coverage --why`: a line per cause; costs a pass)


def check_file(job: Job) -> list[Diagnostic]:
    """One file's diagnostics (never raises); an analysed file's are a `FileDiagnostics`, which also holds
    what its analysis saw of its array shapes (its coverage, cached with them)."""
    try:
        return _check_file(job)
    except Exception as e:  # reading, the project's import scan, the cache: a failure costs this file only
        from namedcheck.analyzer.session import internal
        from namedcheck.engine.errors import is_strict_rule_bug

        if is_strict_rule_bug(e):
            raise
        return [internal(job.display, f"{type(e).__name__}: {e}")]


def _check_file(job: Job) -> list[Diagnostic]:
    ready = _prepared(job)
    if isinstance(ready, list):
        return ready
    source, cache, key, deps, data, project, nb = ready
    path = Path(job.path)
    from namedcheck.analyzer.session import session_for

    session = session_for(job.stub_paths, job.limits, job.project_paths, job.devices)
    result = session.check(path, source, job.display, force=True)
    from namedcheck.cli import notebook

    diags = result.all if nb is None else notebook.in_cells(result.all, job.display, nb)
    # a result whose inputs changed while it was computed is not cached (a dependency saved meanwhile: the key
    # names its old text, the analysis may have read the new one); nor one with an unused suppression (NC002:
    # whether it is judged depends on the modules importing the file, which the key does not name). One cut
    # short by a budget is (a note that says so: the key holds the budgets, the next run says the same)
    unused = any(d.code == NC002 for d in diags)
    coverage = _located(result, nb) if job.why else result.coverage
    if cache is not None and key is not None and not unused and _inputs_unchanged(job, data, project, deps):
        cache.put(key, _anywhere(diags, job.display), coverage)
    return FileDiagnostics(diags, job.display, coverage)


def _located(result: Any, nb: Any) -> Any:
    """The file's coverage with a line for each cause (in a notebook: its cell and the line in it)."""
    an = result.analyzer
    if result.coverage is None or an is None or an.coverage is None:
        return result.coverage
    from dataclasses import replace

    from namedcheck.analyzer.session import deep_recursion

    positions = an.positions()

    def line(node: Any) -> int:
        r = positions.get(node)
        return r.start.line if r is not None else 0

    try:
        with deep_recursion():
            located = an.coverage.result(line)
    except (MemoryError, RecursionError):
        return result.coverage
    if nb is not None:
        cells = [nb.cell_at(c.line) if c.line else (0, 0) for c in located.causes]
        located = replace(
            located, causes=tuple(replace(c, cell=n, line=ln) for c, (n, ln) in zip(located.causes, cells))
        )
    return located


def cached_result(job: Job) -> list[Diagnostic] | None:
    """A file's result when it needs no analysis (unreadable, skipped, or a cache hit), else None: what the
    parent of a run's workers decides before it hands them only the files to analyse."""
    try:
        ready = _prepared(job)
    except Exception as e:
        from namedcheck.engine.errors import is_strict_rule_bug

        if is_strict_rule_bug(e):
            raise
        return None  # the worker meets it again and says what it is
    return ready if isinstance(ready, list) else None


def _prepared(job: Job) -> list[Diagnostic] | tuple[str, Any, str | None, str, bytes, Any, Any]:
    """The file's result when it is decided without analysis, else what its analysis needs: (source, cache,
    key, dependency fingerprint, bytes, project, notebook or None). Imports neither libcst nor the analyzer:
    a cache hit stays cheap."""
    max_bytes = job.limits.max_file_size * 1024 * 1024
    data = read_regular(job.path, max_bytes)
    if isinstance(data, str):
        if not os.path.lexists(job.path):  # listed, then gone (an editor's rename-save): not a broken run
            return [
                Diagnostic(
                    job.display, 1, 1, 1, 1, NC001, "File is not checked: it was removed or renamed during the run"
                )
            ]
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
    from namedcheck.analyzer.relevance import RELEVANT
    from namedcheck.analyzer.sources import decode_source
    from namedcheck.cli import notebook

    nb = None
    if notebook.is_notebook(job.path):  # JSON: its code cells are the module checked (cli/notebook.py)
        try:
            nb = notebook.read_notebook(data)
        except notebook.NotebookError as e:
            return [notebook.unreadable_notebook(job.display, e)]
        if not nb.python:
            return SkippedFile()
        source = nb.source
    else:
        try:
            source = decode_source(data)  # as Python decodes it: a coding line, else UTF-8
        except (UnicodeDecodeError, SyntaxError, LookupError) as e:
            return [Diagnostic(job.display, 1, 1, 1, 1, NC001, f"File is not text in its encoding: {e}")]
    from namedcheck.analyzer.project import project_for

    path = Path(job.path)
    # the project `Session.project` hands the analysis (one per set of roots and device count)
    roots = [r for r in job.project_paths if r != "-"]
    project = project_for(path, job.stub_paths, roots, job.devices[0] if job.devices else None)
    if not RELEVANT.search(source) and not (project is not None and project.imports_project(path)):
        # nothing of namedcheck, xmap or shard_map, nor of the project: skipped cheaply
        return SkippedFile((), job.display)
    cache = key = None
    deps = ""
    if job.cache_root is not None:
        from namedcheck.cli.cache import ResultCache

        cache = ResultCache(Path(job.cache_root), job.stub_paths)
        deps = project.dependency_fingerprint(path) if project is not None else ""
        found_under = tuple(str(r) for r in project.index.roots) if project is not None else ()
        key = cache.key(job.display, data, deps, job.devices, job.limits, found_under, job.why)
        hit = cache.get(key)
        if hit is not None:
            cached, coverage = hit
            return FileDiagnostics(_here(cached, job.display), job.display, coverage)
    return source, cache, key, deps, data, project, nb


def _inputs_unchanged(job: Job, data: bytes, project: Any, deps: str) -> bool:
    """Whether the file and the project modules it imports (the cache key's inputs) still hold what the key
    was made from, read again after the check (a module's hash is taken again when its size or mtime moved),
    and every module text the analyses read is still the disk's (`Project.reads_current`)."""
    if read_regular(job.path, len(data)) != data:
        return False
    if project is None:
        return deps == ""
    try:
        return project.dependency_fingerprint(Path(job.path), fresh=True) == deps and project.reads_current()
    except Exception:
        return False


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


# set by `namedcheck daemon` while it serves a request: (todo, jobs, on_file) -> what `check_all` returns
FILE_MEMO: Callable[[list[Job], int, Callable[[list[Diagnostic]], None] | None], list[Diagnostic]] | None = None


def check_all(
    todo: list[Job], jobs: int, on_file: Callable[[list[Diagnostic]], None] | None = None
) -> list[Diagnostic]:
    """Every job's diagnostics: the files decided without analysis (cache hits, skipped files) here, the rest
    in worker processes when there are many (one worker for `jobs=1`, so that a crash still costs one file,
    not the run), the largest first; `on_file` sees each file's result as it comes."""
    if FILE_MEMO is not None:  # `namedcheck daemon` (cli/daemon.py): unchanged files answered from memory
        return FILE_MEMO(todo, jobs, on_file)
    record = on_file or (lambda _result: None)
    results: dict[int, list[Diagnostic]] = {}
    rest: list[int] = []
    for i, job in enumerate(todo):
        found = cached_result(job) if len(todo) > 8 else None
        if found is None:
            rest.append(i)
        else:
            results[i] = found
            record(found)
    rest.sort(key=lambda i: -_size(todo[i].path))  # the longest analyses start first: the cores end together
    if len(rest) > 8:
        done = _in_pool([todo[i] for i in rest], max(1, jobs), record)
        results.update(zip(rest, done))
    else:
        for i in rest:
            results[i] = check_file(todo[i])
            record(results[i])
    return [d for i in range(len(todo)) for d in results[i]]


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _fork_context() -> Any:
    import multiprocessing

    return multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None


_STATE: Any = None  # in a worker: per work item, 0 not started, 1 running, 2 done (shared with the parent)


def _worker_init(parent: int, state: Any = None) -> None:
    """A worker dies with the process that started it (a `kill -9` of the command leaves no worker behind)."""
    global _STATE
    _STATE = state
    from namedcheck.analyzer.memo import tune_collector
    from namedcheck.cli.lifetime import end_with_parent

    tune_collector()  # (a forked worker has it from its parent; a spawned one does not)
    if not end_with_parent(parent, status=1, poll=0.5):
        os._exit(1)


def _abandon(pool: Any) -> None:
    """Stop a pool at once: its queued work cancelled, its workers terminated."""
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in list((getattr(pool, "_processes", None) or {}).values()):
        try:
            proc.terminate()
        except (OSError, ValueError, AttributeError):
            pass


def _in_pool(todo: list[Job], jobs: int, record: Callable[[list[Diagnostic]], None]) -> list[list[Diagnostic]]:
    """Chunks of files in `jobs` workers. A worker that dies (a native crash, the OOM killer) breaks the pool:
    a new one runs the rest in parallel; the chunks that were running are run again a file at a time, and a
    file that was running when a worker died again is checked alone (`isolated`: its crash is its NC001)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    size = max(1, min(8, len(todo) // (jobs * 16)))
    chunks = [list(range(i, min(i + size, len(todo)))) for i in range(0, len(todo), size)]
    ctx = _fork_context() or multiprocessing.get_context()
    state = ctx.RawArray("b", len(chunks) + len(todo))  # an item id per chunk, and per file run on its own
    pending: list[tuple[int, list[int]]] = list(enumerate(chunks))
    next_id = len(chunks)
    results: dict[int, list[Diagnostic]] = {}
    alone: list[int] = []
    idle_rounds = 0
    while pending:
        try:
            with ProcessPoolExecutor(
                max_workers=min(jobs, len(pending)),
                mp_context=ctx,
                initializer=_worker_init,
                initargs=(os.getpid(), state),
            ) as pool:
                try:
                    futures = [
                        (pool.submit(_check_item, item, [todo[i] for i in idx]), item, idx) for item, idx in pending
                    ]
                    for fut, _item, idx in futures:
                        try:
                            out = fut.result()
                        except BrokenProcessPool:  # its worker died, or another one while it waited
                            continue
                        for i, result in zip(idx, out):
                            results[i] = result
                            record(result)
                except KeyboardInterrupt:  # Ctrl-C, SIGTERM: the workers end now, not after their queue
                    _abandon(pool)
                    raise
        except BrokenProcessPool:
            pass
        broken = [(item, idx) for item, idx in pending if not all(i in results for i in idx)]
        pending = []
        suspects = 0
        for item, idx in broken:
            if state[item] != 1:  # not running when the pool broke: innocent, run again as it is
                pending.append((item, idx))
                continue
            suspects += 1
            if len(idx) > 1:  # one of its files may have killed the worker: each again, in the new pool
                for i in idx:
                    pending.append((next_id, [i]))
                    next_id += 1
            else:
                alone.extend(idx)
        idle_rounds = idle_rounds + 1 if not suspects else 0
        if idle_rounds > 3:  # workers killed from outside, again and again: each file on its own
            alone.extend(i for _, idx in pending for i in idx)
            pending = []
    for i in alone:
        result = isolated(todo[i])
        results[i] = result
        record(result)
    return [results[i] for i in range(len(todo))]


def _check_item(item: int, chunk: list[Job]) -> list[list[Diagnostic]]:
    """Each file's result, in order; the item marked running, then done, in the shared state."""
    if _STATE is not None:
        _STATE[item] = 1
    out = _check_chunk(chunk)
    if _STATE is not None:
        _STATE[item] = 2
    return out


def _check_chunk(chunk: list[Job]) -> list[list[Diagnostic]]:
    """Each file's result, in order."""
    return [check_file(job) for job in chunk]


def isolated(job: Job) -> list[Diagnostic]:
    """One file checked in a process of its own: its crash is that file's NC001, nothing more."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(
            max_workers=1, mp_context=_fork_context(), initializer=_worker_init, initargs=(os.getpid(),)
        ) as pool:
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
