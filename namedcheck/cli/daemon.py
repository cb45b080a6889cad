"""`namedcheck daemon`: a process that keeps the analysis loaded between runs of `check` (as `dmypy` does
for mypy), so a pre-commit hook or an editor-adjacent run pays no start-up and re-checks only what changed.

One daemon per project root (the folder of the pyproject.toml `check` reads), listening on a Unix socket in
the user's private directory (`daemon_client.runtime_dir`); it answers only connections from its own user.
A `check` request runs the very `check` command of the command line in this process (its options, working
directory and environment the client's; its output captured and sent back), so a served run prints what an
in-process one prints and exits with the same status. What makes it cheap is `FileMemo`: each checked file's
result is kept with the stamps and digests of the file and of every project module it imports
(transitively); a file is checked again only when one of those changed (a stat, then a hash when the stat
moved). The daemon never runs project code. It stops when idle for `--idle-timeout` minutes, when its
socket file is removed or replaced, on `namedcheck daemon stop`, and when a client's namedcheck code is
not the code it runs (the client then checks in-process); a malformed request gets an error reply.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from namedcheck.cli import daemon_client as client

DEFAULT_IDLE_MINUTES = 30.0
POLL = 1.0  # seconds between checks that the socket file is still ours and the idle limit
MAX_MEMO = 50_000  # results kept (files x working directories x configurations)

Stamp = tuple[int, int, int, int]  # (mtime_ns, ctime_ns, size, inode)


def _stamp(path: Path) -> Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def _digest(path: Path) -> bytes | None:
    from namedcheck.engine.readfile import read_bytes

    try:
        return hashlib.sha256(read_bytes(path, 64 * 1024 * 1024)).digest()
    except OSError:
        return None


@dataclass
class Entry:
    """A file's result and what it was computed from: (path, stamp, digest) of the file and of its imports."""

    inputs: tuple[tuple[Path, Stamp, bytes], ...]
    result: list[Any]


class FileMemo:
    """Results of `runner.check_file` kept across requests, in place of the runner's `check_all`: a file
    whose inputs are unchanged (each input's stat, its hash when the stat moved; checked once per request)
    is answered from memory, the others are checked as the runner checks them (in workers when many)."""

    def __init__(self) -> None:
        self.entries: dict[Any, Entry] = {}
        self._valid: dict[Path, bool] = {}  # this request's verdicts per input file
        self.hits = self.misses = 0

    def begin(self) -> None:
        """A new request: every input is looked at again."""
        self._valid.clear()
        self.hits = self.misses = 0

    def clear(self) -> None:
        self.entries.clear()
        self._valid.clear()

    def _unchanged(self, path: Path, stamp: Stamp, digest: bytes) -> bool:
        hit = self._valid.get(path)
        if hit is not None:
            return hit
        now = _stamp(path)
        ok = now == stamp or (now is not None and _digest(path) == digest)
        self._valid[path] = ok
        return ok

    def lookup(self, key: Any) -> list[Any] | None:
        entry = self.entries.get(key)
        if entry is None:
            return None
        if all(self._unchanged(p, s, d) for p, s, d in entry.inputs):
            return entry.result
        del self.entries[key]
        return None

    def __call__(self, todo: list[Any], jobs: int, on_file: Callable[[list[Any]], None] | None) -> list[Any]:
        from namedcheck.cli import runner
        from namedcheck.cli.summary import FileDiagnostics

        record = on_file or (lambda _result: None)
        cwd = os.getcwd()  # diagnostics name other files relative to it
        results: dict[int, list[Any]] = {}
        missing: list[int] = []
        for i, job in enumerate(todo):
            hit = self.lookup((cwd, job))
            if hit is None:
                missing.append(i)
                continue
            self.hits += 1
            results[i] = hit
            record(hit)
        self.misses += len(missing)
        if missing:
            # the inputs are read before the check: a file saved during it is checked again next time
            inputs = {i: self._inputs(todo[i]) for i in missing}
            by_display: dict[str, int] = {}
            for i in missing:
                by_display[todo[i].display] = -1 if todo[i].display in by_display else i

            def seen(result: list[Any]) -> None:
                record(result)
                i = by_display.get(result.display, -1) if isinstance(result, FileDiagnostics) else -1
                if i >= 0:
                    results[i] = result
                    found = inputs.get(i)
                    if found is not None and _stamp(Path(todo[i].path)) == found[0][1]:
                        if len(self.entries) >= MAX_MEMO:
                            self.entries.clear()
                        self.entries[(cwd, todo[i])] = Entry(found, result)

            saved, runner.FILE_MEMO = runner.FILE_MEMO, None
            try:
                flat = runner.check_all([todo[i] for i in missing], jobs, seen)
            finally:
                runner.FILE_MEMO = saved
            if any(i not in results for i in missing):  # a result not told apart by its file: in order as given
                return [d for i in range(len(todo)) if i not in missing for d in results[i]] + flat
        return [d for i in range(len(todo)) for d in results[i]]

    def _inputs(self, job: Any) -> tuple[tuple[Path, Stamp, bytes], ...] | None:
        """The file's and its project imports' (path, stamp, digest); None: not known (then not memoised)."""
        try:
            from namedcheck.analyzer.session import session_for

            path = Path(job.path)
            files = [path]
            project = session_for(job.stub_paths, job.limits, job.project_paths, job.devices).project(path)
            if project is not None:
                files.extend(dependency_files(project, path))
            out = []
            for f in files:
                stamp, digest = _stamp(f), _digest(f)
                if stamp is None or digest is None:
                    if f is path:
                        return None
                    continue
                out.append((f, stamp, digest))
            return tuple(out)
        except Exception:  # a path pathlib rejects, an unreadable tree: checked each time
            return None


def dependency_files(project: Any, path: Path) -> list[Path]:
    """The files of the project modules a file imports, transitively, with the packages above them: what
    `Project.dependency_fingerprint` hashes (a file's result depends on them)."""
    named = project.index.module_name(path)
    return [f for _, f in project.reached_modules(project.imported_modules(path, *(named or (None, False))))]


# ---- what a request may have changed beyond the files ---------------------------------------------
def _listing(roots: tuple[Path, ...]) -> frozenset[str]:
    """The Python files under a project's roots (as the project's own listing skips directories): a file
    added or removed changes what imports resolve to."""
    out: set[str] = set()
    for root in roots:
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith((".", "__")) and x not in ("node_modules", "site-packages")]
            out.update(os.path.join(d, n) for n in names if n.endswith(".py"))
            if len(out) > 20_000:
                return frozenset(out)
    return frozenset(out)


class State:
    """What the daemon keeps between requests."""

    def __init__(self, root: Path, idle: float) -> None:
        self.root = root
        self.idle = idle
        self.memo = FileMemo()
        self.importers = ImportersMemo()
        self.code = client.code_id()
        self.started = time.time()
        self.requests = 0
        self.listings: dict[tuple[Path, ...], frozenset[str]] = {}
        self.stubs: dict[tuple[str, ...], tuple[tuple[str, Stamp | None], ...]] = {}
        self.last: dict[str, Any] = {}

    def reset(self) -> None:
        """Forget everything analysed: a module added or removed, a user stub changed."""
        from namedcheck.analyzer import project, session
        from namedcheck.cli.cache import build_fingerprint
        from namedcheck.engine.stubs import op_table

        self.memo.clear()
        self.importers.clear()
        project._PROJECTS.clear()
        session._SESSIONS.clear()
        op_table.cache_clear()
        build_fingerprint.cache_clear()

    def before_check(self, stub_paths: tuple[str, ...]) -> None:
        """Per request: a new or removed module, or a changed stub, resets; loaded modules whose files
        changed are let go (`Project.refresh`)."""
        from namedcheck.analyzer import project
        from namedcheck.engine.stubfiles import stub_files

        self.memo.begin()
        stubs = tuple((str(f), _stamp(f)) for f in stub_files(stub_paths))
        changed = self.stubs.get(stub_paths, stubs) != stubs
        self.stubs[stub_paths] = stubs
        for roots, old in list(self.listings.items()):
            now = _listing(roots)
            if now != old:
                changed = True
            self.listings[roots] = now
        if changed:
            self.reset()
            return
        for p in list(project._PROJECTS.values()):
            p.refresh()

    def after_check(self) -> None:
        """The files under the roots of projects first used by this request, to tell later additions."""
        from namedcheck.analyzer import project

        for p in list(project._PROJECTS.values()):
            roots = tuple(p.index.roots)
            if roots not in self.listings:
                self.listings[roots] = _listing(roots)


def _import_lines(path: Path) -> bytes | None:
    """A digest of what the reverse import graph reads of a file: its import statements as the project's
    scan sees them (the whole text when a config flag may name a config module)."""
    from namedcheck.analyzer.filefacts import import_statements
    from namedcheck.analyzer.imports import CONFIG_FILE_FLAG
    from namedcheck.engine.readfile import read_bytes

    try:
        text = read_bytes(path, 64 * 1024 * 1024).decode("utf-8", "replace")
    except OSError:
        return None
    if CONFIG_FILE_FLAG in text:
        return hashlib.sha256(text.encode()).digest()
    return hashlib.sha256(import_statements(text).encode()).digest()


class ImportersMemo:
    """`project.importers_of_files` (a run's changed-files context: the reverse import graph of every project the
    run's files are in) kept across requests while no file under those projects' roots changed (their
    stats compared), in place of the method while a request runs."""

    def __init__(self) -> None:
        # per run: the stats of the files under its projects' roots, what their import lines hash to, the answer
        self.entries: dict[Any, tuple[dict[str, Stamp | None], dict[str, bytes | None], list[Path]]] = {}
        self.hits = 0

    def _valid(self, stamps: dict[str, Stamp | None], imports: dict[str, bytes | None]) -> bool:
        """Whether no file's import lines changed (a stat, then its import lines when the stat moved)."""
        for f, st in stamps.items():
            now = _stamp(Path(f))
            if now == st:
                continue
            if now is None or _import_lines(Path(f)) != imports.get(f):
                return False
            stamps[f] = now  # edited elsewhere than its imports: still the same graph
        return True

    def clear(self) -> None:
        self.entries.clear()

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        from namedcheck.analyzer import project as project_module

        original = project_module.importers_of_files
        memo = self

        def importers(paths: Any, project_of: Any) -> list[Path]:
            try:
                roots = set()
                for p in paths:
                    project = project_of(p)
                    if project is not None:
                        roots.add(tuple(project.index.roots))
            except (OSError, RuntimeError, ValueError):
                return original(paths, project_of)
            key = (os.getcwd(), tuple(sorted(roots)), tuple(map(str, paths)))
            hit = memo.entries.get(key)
            if hit is not None and memo._valid(hit[0], hit[1]):
                memo.hits += 1
                return list(hit[2])
            try:
                files = sorted(set().union(*(_listing(r) for r in roots)))
                stamps = {f: _stamp(Path(f)) for f in files}  # taken first: an edit meanwhile shows
                imports = {f: _import_lines(Path(f)) for f in files}
            except (OSError, RuntimeError, ValueError):
                return original(paths, project_of)
            # the projects' listings of their files are reused for a second (enough for one run): read anew
            walks = getattr(project_module, "_WALKS", None)
            if walks is not None:
                walks.clear()
            found = original(paths, project_of)
            if len(memo.entries) > 64:
                memo.entries.clear()
            memo.entries[key] = (stamps, imports, list(found))
            return found

        project_module.importers_of_files = importers
        try:
            yield
        finally:
            project_module.importers_of_files = original


# ---- serving ----------------------------------------------------------------------------------------
class _Captured(io.StringIO):
    """A captured stream that says it is a terminal when the client's is (the text format's colours)."""

    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@contextlib.contextmanager
def _client_context(cwd: str, env: dict[str, str]) -> Iterator[None]:
    """The client's working directory and forwarded environment while a request runs."""
    from namedcheck.engine import errors

    old_cwd = os.getcwd()
    old_env = {k: os.environ.get(k) for k in client.FORWARDED_ENV}
    old_strict = errors._STRICT
    os.chdir(cwd)
    for k in client.FORWARDED_ENV:
        if k in env:
            os.environ[k] = env[k]
        else:
            os.environ.pop(k, None)
    errors._STRICT = None  # read again from the client's NAMEDCHECK_STRICT
    try:
        yield
    finally:
        os.chdir(old_cwd)
        for k, v in old_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        errors._STRICT = old_strict


def _check_args(options: dict[str, Any]) -> argparse.Namespace:
    """The client's `check` options over the parser's defaults (unknown or mistyped ones refused)."""
    from namedcheck.cli.main import build_parser

    args = build_parser().parse_args(["check"])
    for k, v in options.items():
        if not hasattr(args, k) or k == "func":
            raise ValueError(f"unknown option {k!r}")
        default = getattr(args, k)
        if default is not None and v is not None and not isinstance(v, type(default)):
            raise ValueError(f"option {k!r} has the wrong type")
        setattr(args, k, v)
    if not isinstance(args.paths, list) or not all(isinstance(p, str) for p in args.paths):
        raise ValueError("paths must be a list of strings")
    args.no_daemon = True
    return args


def handle(state: State, message: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The reply to one request, and whether the daemon stops after sending it."""
    command = message.get("command")
    if message.get("protocol") != client.PROTOCOL:
        return {"error": f"protocol {message.get('protocol')!r} is not {client.PROTOCOL}"}, False
    if command == "status":
        return {"status": 0, "info": _info(state)}, False
    if command == "stop":
        return {"status": 0, "info": _info(state)}, True
    if command != "check":
        return {"error": f"unknown command {command!r}"}, False
    cwd, env, tty = message.get("cwd"), message.get("env", {}), message.get("tty", False)
    options, code = message.get("options"), message.get("code")
    if not isinstance(code, dict):
        return {"error": "code must name the client's namedcheck"}, False
    if not isinstance(cwd, str) or not os.path.isdir(cwd):
        return {"error": "cwd must be an existing directory"}, False
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        return {"error": "env must map names to strings"}, False
    if not isinstance(options, dict) or not isinstance(tty, bool):
        return {"error": "options must be an object, tty a boolean"}, False
    try:
        args = _check_args(options)
    except (ValueError, TypeError, SystemExit) as e:
        return {"error": f"bad options: {e}"}, False
    if code != client.identity() or client.code_id() != state.code:
        # another namedcheck than the one loaded here, or its code changed since: the client checks in-process
        return {"error": "stale: the daemon runs other namedcheck code; it stops"}, True
    from namedcheck.cli import main, runner

    out, err = _Captured(tty), _Captured(False)
    start = time.monotonic()
    with _client_context(cwd, env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            from namedcheck.cli.config import load_config

            cfg = load_config(Path(args.config_root or "."))
            state.before_check(tuple(cfg.stub_paths))
        except Exception:  # a bad configuration: the command below says so
            state.memo.begin()
        runner.FILE_MEMO = state.memo
        state.importers.hits = 0
        try:
            with state.importers.installed():
                status = main.run_args(args)
        finally:
            runner.FILE_MEMO = None
        with contextlib.suppress(Exception):
            state.after_check()
    state.requests += 1
    state.last = {
        "seconds": round(time.monotonic() - start, 3),
        "files_from_memory": state.memo.hits,
        "files_checked": state.memo.misses,
        "importers_from_memory": state.importers.hits,
    }
    return {"status": status, "stdout": out.getvalue(), "stderr": err.getvalue()}, False


def _info(state: State) -> dict[str, Any]:
    from namedcheck.analyzer.budget import resident_mb

    return {
        "pid": os.getpid(),
        "root": str(state.root),
        "uptime": round(time.time() - state.started, 1),
        "requests": state.requests,
        "results_kept": len(state.memo.entries),
        "rss_mb": round(resident_mb(), 1),
        "idle_timeout_minutes": state.idle / 60,
        "last_check": state.last,
    }


def _peer_uid(conn: socket.socket) -> int | None:
    """The connecting process's user id (SO_PEERCRED); None when it cannot be read (refused)."""
    cred = getattr(socket, "SO_PEERCRED", None)
    if cred is None:  # no peer credentials on this system: the socket's 0700 directory keeps others out
        return os.getuid()
    try:
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, cred, struct.calcsize("3i")))
        return int(uid)
    except OSError:
        return None


def _socket_is_ours(path: Path, inode: int) -> bool:
    try:
        return os.lstat(path).st_ino == inode
    except OSError:
        return False


def serve(root: Path, idle_minutes: float = DEFAULT_IDLE_MINUTES) -> int:
    """Run the daemon of `root` in this process until it stops (idle, socket file gone, `stop`)."""
    where = client.paths_for(root)
    if where is None:
        print("namedcheck daemon: no private directory for the socket", file=sys.stderr)
        return 2
    sock_path, status_path = where
    if client.call(root, {"command": "status"}) is not None:
        print(f"namedcheck daemon: already running for {root}", file=sys.stderr)
        return 1
    with contextlib.suppress(FileNotFoundError):
        sock_path.unlink()  # a dead daemon's socket: nobody answers on it
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_umask = os.umask(0o177)
    try:
        listener.bind(str(sock_path))
    finally:
        os.umask(old_umask)
    listener.listen(16)
    listener.settimeout(POLL)
    inode = os.lstat(sock_path).st_ino
    # the analysis loaded before the first request (what start-up a served run saves)
    import namedcheck.analyzer.session  # noqa: F401
    import namedcheck.cli.runner  # noqa: F401
    from namedcheck.engine.stubs import op_table

    op_table()
    state = State(root, idle_minutes * 60)
    _write_status(status_path, {"pid": os.getpid(), "root": str(root), "socket": str(sock_path), "code": state.code})

    def stop(_signum: int, _frame: Any) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    last = time.monotonic()
    try:
        while True:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                if time.monotonic() - last > state.idle or not _socket_is_ours(sock_path, inode):
                    return 0
                continue
            last = time.monotonic()
            with conn:
                if _serve_one(state, conn):
                    return 0
            last = time.monotonic()
            if not _socket_is_ours(sock_path, inode):
                return 0
    finally:
        listener.close()
        if _socket_is_ours(sock_path, inode):
            with contextlib.suppress(OSError):
                sock_path.unlink()
        with contextlib.suppress(OSError, ValueError):
            if json.loads(status_path.read_text()).get("pid") == os.getpid():
                status_path.unlink()


def _serve_one(state: State, conn: socket.socket) -> bool:
    """Answer one connection; True when the daemon stops after it. Never raises."""
    try:
        conn.settimeout(client.CONNECT_TIMEOUT * 5)
        ours = _peer_uid(conn) == os.getuid()
        try:
            message = client.receive(conn)  # read before any answer (closing over unread bytes resets the peer)
        except (client.ProtocolError, struct.error) as e:
            client.send(conn, {"error": "refused: not the daemon's user" if not ours else f"malformed request: {e}"})
            return False
        if not ours:  # read, never acted on
            client.send(conn, {"error": "refused: not the daemon's user"})
            return False
        try:
            reply, stop = handle(state, message)
        except Exception as e:  # a failure of the daemon itself: said, and the daemon goes on
            reply, stop = {"error": f"internal: {type(e).__name__}: {e}"}, False
        conn.settimeout(None)
        try:
            client.send(conn, reply)
        except client.ProtocolError as e:
            client.send(conn, {"error": str(e)})
        return stop
    except (OSError, ConnectionError):  # the client went away
        return False


def _write_status(path: Path, status: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(status, f)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    """`python -m namedcheck.cli.daemon [--idle-timeout MINUTES]`: the daemon of the project of the working
    directory, in the foreground (`namedcheck daemon start` runs it in the background)."""
    ap = argparse.ArgumentParser(prog="python -m namedcheck.cli.daemon")
    ap.add_argument("--idle-timeout", type=float, default=DEFAULT_IDLE_MINUTES, metavar="MINUTES")
    ap.add_argument("--config-root")
    args = ap.parse_args(argv)
    from namedcheck.analyzer.memo import tune_collector

    tune_collector()
    return serve(client.project_root(args.config_root), args.idle_timeout)


if __name__ == "__main__":
    raise SystemExit(main())
