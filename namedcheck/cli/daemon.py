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

Each connection is served by a thread of its own (at most `MAX_CLIENTS` at once), within a deadline for
the whole request (`REQUEST_DEADLINE`) and one for sending the reply (`SEND_DEADLINE`): a client that
trickles its request or never reads its reply holds only its own thread. Checks run one at a time in the
main thread (they change the working directory, the environment and the standard streams; the per-file
timer needs the main thread); a waiting client hears `{"working": true}` every `HEARTBEAT` seconds.
`status` and `stop` are answered at once, even while a check runs.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import queue
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from namedcheck.cli import daemon_client as client

DEFAULT_IDLE_MINUTES = 30.0
POLL = 1.0  # seconds between checks that the socket file is still ours and the idle limit
MAX_MEMO = 50_000  # results kept (files x working directories x configurations)
MAX_CLIENTS = 32  # connections served at once; more are closed at once (their clients check in-process)
REQUEST_DEADLINE = 10.0  # seconds for a whole request to arrive, however it trickles
SEND_DEADLINE = 30.0  # seconds for a whole reply (or a heartbeat) to be taken by the client
MAX_LOGGED = 100  # failures written to the daemon's log (its stderr), then no more

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
    """The client's `check` options over the parser's defaults: unknown or mistyped ones refused, and any
    value the command line refuses (a format not among its choices, a number its type rejects)."""
    from namedcheck.cli.main import build_parser

    parser = build_parser()
    args = parser.parse_args(["check"])
    actions = _check_actions(parser)
    for k, v in options.items():
        if not hasattr(args, k) or k == "func":
            raise ValueError(f"unknown option {k!r}")
        default = getattr(args, k)
        if default is not None and v is not None and not isinstance(v, type(default)):
            raise ValueError(f"option {k!r} has the wrong type")
        action = actions.get(k)
        if action is not None and v is not None:
            _check_value(k, action, v)
        setattr(args, k, v)
    if not isinstance(args.paths, list) or not all(isinstance(p, str) for p in args.paths):
        raise ValueError("paths must be a list of strings")
    args.no_daemon = True
    return args


def _check_actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The `check` subcommand's options by destination."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            sub = action.choices.get("check")
            if sub is not None:
                return {a.dest: a for a in sub._actions}
    return {}


def _check_value(name: str, action: argparse.Action, value: Any) -> None:
    """ValueError when the command line would refuse `value` for this option."""
    if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
        if not isinstance(value, bool):
            raise ValueError(f"option {name!r} must be true or false")
        return
    values = value if isinstance(value, list) else [value]
    if isinstance(value, list) and action.nargs is None:
        raise ValueError(f"option {name!r} takes one value")
    if isinstance(value, bool) or (isinstance(value, float) and action.type is not float):
        raise ValueError(f"option {name!r} has the wrong type")
    for v in values:
        if action.choices is not None and v not in action.choices:
            shown = ", ".join(map(repr, action.choices))
            raise ValueError(f"option {name!r}: invalid choice {v!r} (choose from {shown})")
        if callable(action.type):
            try:
                ok = action.type(str(v)) == v
            except (TypeError, ValueError, argparse.ArgumentTypeError):
                ok = False
            if not ok:
                raise ValueError(f"option {name!r}: invalid value {v!r}")


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


class _Job:
    """A `check` request handed from its connection's thread to the main thread, and its reply."""

    def __init__(self, message: dict[str, Any]) -> None:
        self.message = message
        self.done = threading.Event()
        self.dropped = False  # its client went away before the check started: skipped
        self.reply: dict[str, Any] = {"error": "internal: the daemon stopped before answering"}
        self.stop = False

    def run(self, state: State) -> None:
        try:
            if not self.dropped:
                self.reply, self.stop = handle(state, self.message)
        except Exception as e:  # a failure of the daemon itself: said, and the daemon goes on
            _log_failure("a check", e)
            self.reply = {"error": f"internal: {type(e).__name__}: {e}"}
        finally:
            self.done.set()


class _Server:
    """The threads of one daemon: an accepting thread, one thread per connection, checks in the main thread."""

    def __init__(self, state: State, listener: socket.socket) -> None:
        self.state = state
        self.listener = listener
        self.jobs: queue.Queue[_Job | None] = queue.Queue()
        self.stopping = threading.Event()
        self.slots = threading.BoundedSemaphore(MAX_CLIENTS)
        self.lock = threading.Lock()
        self.active = 0
        self.last = time.monotonic()

    def start(self) -> None:
        threading.Thread(target=self._accept, name="namedcheck-daemon-accept", daemon=True).start()

    def stop(self) -> None:
        self.stopping.set()
        self.jobs.put(None)

    def idle_for(self) -> float:
        with self.lock:
            return 0.0 if self.active else time.monotonic() - self.last

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:  # the listener closed: the daemon is stopping
                return
            if not self.slots.acquire(blocking=False):  # too many at once: this client checks in-process
                conn.close()
                continue
            with self.lock:
                self.active += 1
            try:
                threading.Thread(target=self._connection, args=(conn,), daemon=True).start()
            except RuntimeError:  # no thread to be had
                conn.close()
                self._release()

    def _release(self) -> None:
        with self.lock:
            self.active -= 1
            self.last = time.monotonic()
        self.slots.release()

    def _connection(self, conn: socket.socket) -> None:
        try:
            with conn:
                if _serve_one(self.state, conn, self._run):
                    self.stop()
        finally:
            self._release()

    def _run(self, message: dict[str, Any], conn: socket.socket) -> tuple[dict[str, Any], bool]:
        """A check, run by the main thread; heartbeats to the client while it waits (OSError: it went away)."""
        job = _Job(message)
        self.jobs.put(job)
        try:
            while not job.done.wait(client.HEARTBEAT):
                if self.stopping.is_set():
                    break
                _send(conn, client.WORKING)
        except BaseException:
            job.dropped = True
            raise
        return job.reply, job.stop

    def loop(self, owned: Callable[[], bool]) -> int:
        """Run checks until stopped, idle past the limit, or the socket file is no longer ours."""
        while not self.stopping.is_set():
            try:
                job = self.jobs.get(timeout=POLL)
            except queue.Empty:
                if self.idle_for() > self.state.idle or not owned():
                    return 0
                continue
            if job is None:
                continue
            with self.lock:
                self.last = time.monotonic()
            job.run(self.state)
            with self.lock:
                self.last = time.monotonic()
            if not owned():
                return 0
        return 0


def serve(root: Path, idle_minutes: float = DEFAULT_IDLE_MINUTES) -> int:
    """Run the daemon of `root` in this process until it stops (idle, socket file gone, `stop`)."""
    where = client.paths_for(root)
    if where is None:
        print("namedcheck daemon: no private directory for the socket", file=sys.stderr)
        return 2
    sock_path, status_path = where
    if client.call(root, {"command": "status"}, timeout=10) is not None:
        print(f"namedcheck daemon: already running for {root}", file=sys.stderr)
        return 1
    problem = client.socket_path_problem(root)
    if problem is not None:
        print(f"namedcheck daemon: error: {problem}", file=sys.stderr)
        return 2
    try:
        with contextlib.suppress(FileNotFoundError):
            sock_path.unlink()  # a dead daemon's socket: nobody answers on it
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)
        try:
            listener.bind(str(sock_path))
        finally:
            os.umask(old_umask)
    except OSError as e:
        print(f"namedcheck daemon: error: cannot listen at {sock_path}: {e.strerror or e}", file=sys.stderr)
        return 2
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
    server = _Server(state, listener)
    server.start()
    try:
        return server.loop(lambda: _socket_is_ours(sock_path, inode))
    finally:
        server.stopping.set()
        listener.close()
        if _socket_is_ours(sock_path, inode):
            with contextlib.suppress(OSError):
                sock_path.unlink()
        with contextlib.suppress(OSError, ValueError):
            if json.loads(status_path.read_text()).get("pid") == os.getpid():
                status_path.unlink()


Runner = Callable[[dict[str, Any], socket.socket], tuple[dict[str, Any], bool]]


def _serve_one(state: State, conn: socket.socket, run: Runner | None = None) -> bool:
    """Answer one connection (a check through `run`, else here); True when the daemon stops after it.
    Never raises: a client that is slow to send or to read, gone, or malformed ends only its connection."""
    try:
        ours = _peer_uid(conn) == os.getuid()
        try:
            # read before any answer (closing over unread bytes resets the peer); the whole request in time
            message = client.receive(conn, time.monotonic() + REQUEST_DEADLINE)
        except (client.ProtocolError, struct.error) as e:
            _send(conn, {"error": "refused: not the daemon's user" if not ours else f"malformed request: {e}"})
            return False
        if not ours:  # read, never acted on
            _send(conn, {"error": "refused: not the daemon's user"})
            return False
        queued = run is not None and message.get("command") == "check" and message.get("protocol") == client.PROTOCOL
        try:
            if queued and run is not None:
                reply, stop = run(message, conn)
            else:
                reply, stop = handle(state, message)
        except OSError:
            raise
        except Exception as e:  # a failure of the daemon itself: said, and the daemon goes on
            _log_failure("a request", e)
            reply, stop = {"error": f"internal: {type(e).__name__}: {e}"}, False
        try:
            _send(conn, reply)
        except client.ProtocolError as e:
            _send(conn, {"error": str(e)})
        return stop
    except (OSError, ConnectionError):  # the client went away, or was too slow to send or to read
        return False
    except Exception as e:  # anything else: logged, the daemon lives
        _log_failure("a connection", e)
        return False


def _send(conn: socket.socket, message: dict[str, Any]) -> None:
    """A message to the client, taken by it within `SEND_DEADLINE` seconds (TimeoutError otherwise)."""
    conn.settimeout(SEND_DEADLINE)  # sendall's timeout bounds the whole send, not each part
    client.send(conn, message)


_LOGGED = [0]


def _log_failure(what: str, e: BaseException) -> None:
    """A failure of the daemon's own, on its stderr (the log file `daemon start` keeps), the first few."""
    _LOGGED[0] += 1
    log = sys.__stderr__  # not a check's captured stream
    if _LOGGED[0] <= MAX_LOGGED and log is not None:
        with contextlib.suppress(Exception):
            print(f"namedcheck daemon: failure in {what}: {type(e).__name__}: {e}", file=log)
            traceback.print_exception(e, file=log)
            log.flush()


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
