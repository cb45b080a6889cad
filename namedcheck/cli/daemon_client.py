"""The client side of `namedcheck daemon`: where a project's daemon listens, the wire format, and `check`
answered by a running daemon. Light on purpose (no libcst, no analyzer): a `check` the daemon serves
costs the interpreter's start, argparse and one round trip.

Where: a private directory of the user's (mode 0700, owned by them): `$XDG_RUNTIME_DIR/namedcheck`, else
`<tmp>/namedcheck-<uid>`; in it, per project root, `<key>.sock` (the daemon's Unix socket) and `<key>.json`
(its status: pid, root, code id). The wire: each message a 4-byte big-endian length, then that many bytes
of a JSON object. While a check runs the daemon sends `{"working": true}` every few seconds; a client that
hears nothing for `reply_timeout()` seconds gives up. Any failure on the client's side (no daemon, a dead
one, a stale one, a silent one, a broken reply) means `None`: the caller runs the check in-process, as if no
daemon had been started."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any

PROTOCOL = 2  # 2: `{"working": true}` heartbeats before a check's reply
MAX_MESSAGE = 64 * 1024 * 1024  # bytes of one message (a reply carries every diagnostic of a run)
HEADER = struct.Struct(">I")
CONNECT_TIMEOUT = 2.0  # seconds to connect and to send a request; the reply may take as long as the check
REPLY_TIMEOUT = 30.0  # seconds a client waits for the daemon's next message (a heartbeat or the reply)
HEARTBEAT = 2.0  # seconds between the daemon's `{"working": true}` messages while a check runs
WORKING = {"working": True}
STATUS_TIMEOUT = 10.0  # seconds `daemon status` waits before it calls a live daemon busy
# the environment that changes what a check prints: sent with each request, set in the daemon while it runs
FORWARDED_ENV = ("NO_COLOR", "NAMEDCHECK_NO_CACHE", "NAMEDCHECK_STRICT")


class ProtocolError(Exception):
    """A message that is not a length-prefixed JSON object within the size cap."""


def runtime_dir() -> Path | None:
    """The user's private directory for daemon sockets (created 0700); None when it cannot be had safely
    (owned by someone else, open to others, not a directory)."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    uid = os.getuid() if hasattr(os, "getuid") else 0
    if base and os.path.isdir(base):
        d = Path(base) / "namedcheck"
    else:
        import tempfile

        d = Path(tempfile.gettempdir()) / f"namedcheck-{uid}"
    try:
        d.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(d)
    except OSError:
        return None
    import stat

    if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or st.st_mode & 0o077:
        return None
    return d


def project_key(root: Path) -> str:
    return hashlib.sha256(str(root).encode()).hexdigest()[:20]


def paths_for(root: Path) -> tuple[Path, Path] | None:
    """(socket, status file) of the daemon of a project root; None without a private directory."""
    d = runtime_dir()
    if d is None:
        return None
    key = project_key(root)
    return d / f"{key}.sock", d / f"{key}.json"


def project_root(config_root: str | None = None) -> Path:
    """The root a daemon serves: the folder of the pyproject.toml that `check` would read, else the working
    directory."""
    from namedcheck.cli.config import find_pyproject

    start = Path(config_root or ".")
    found = find_pyproject(start)
    return found.parent if found is not None else start.resolve()


def code_id() -> str:
    """Names the installed namedcheck's code (every module and stub file's path, size and mtime): a daemon
    whose code changed on disk (an upgrade, an edit of an editable install) stops."""
    import namedcheck
    from namedcheck.engine.stubfiles import builtin_stub_dir

    top = Path(namedcheck.__file__).parent
    h = hashlib.sha256(namedcheck.__version__.encode() if hasattr(namedcheck, "__version__") else b"")
    for base in (top, builtin_stub_dir()):
        for d, dirs, names in os.walk(base):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            for n in sorted(names):
                if n.endswith((".py", ".pyi")):
                    try:
                        st = os.stat(os.path.join(d, n))
                    except OSError:
                        continue
                    h.update(f"{d}/{n}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:24]


def identity() -> dict[str, str]:
    """Which namedcheck and Python a client runs (cheap): a daemon of another answers nothing and stops. The
    daemon itself also notices when its own code changes on disk (`code_id`)."""
    import namedcheck

    return {
        "package": os.path.dirname(os.path.abspath(namedcheck.__file__)),
        "version": getattr(namedcheck, "__version__", ""),
        "python": sys.version,
    }


# ---- the wire ---------------------------------------------------------------------------------------
def send(sock: socket.socket, message: dict[str, Any]) -> None:
    data = json.dumps(message).encode()
    if len(data) > MAX_MESSAGE:
        raise ProtocolError(f"message of {len(data)} bytes is over the cap of {MAX_MESSAGE}")
    sock.sendall(HEADER.pack(len(data)) + data)


def receive(sock: socket.socket, deadline: float | None = None) -> dict[str, Any]:
    """One message; ProtocolError for a bad length or body (a JSON nested past the interpreter's recursion
    limit too), ConnectionError when the peer closed, TimeoutError when the whole message has not arrived by
    `deadline` (a `time.monotonic()` value; None: the socket's own timeout, per read)."""
    (size,) = HEADER.unpack(_exactly(sock, HEADER.size, deadline))
    if size > MAX_MESSAGE:
        raise ProtocolError(f"message of {size} bytes is over the cap of {MAX_MESSAGE}")
    try:
        message = json.loads(_exactly(sock, size, deadline).decode())
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ProtocolError(f"not a JSON message: {type(e).__name__}: {e}") from None
    if not isinstance(message, dict):
        raise ProtocolError("not a JSON object")
    return message


def _exactly(sock: socket.socket, n: int, deadline: float | None = None) -> bytes:
    parts: list[bytes] = []
    while n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the message did not arrive in time")
            sock.settimeout(left)
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise ConnectionError("the connection was closed")
        parts.append(chunk)
        n -= len(chunk)
    return b"".join(parts)


def reply_timeout() -> float:
    """Seconds without a message from the daemon after which a client gives up (NAMEDCHECK_DAEMON_TIMEOUT)."""
    try:
        value = float(os.environ.get("NAMEDCHECK_DAEMON_TIMEOUT", REPLY_TIMEOUT))
    except ValueError:
        return REPLY_TIMEOUT
    return value if 0 < value < 1e6 else REPLY_TIMEOUT


def call(root: Path, message: dict[str, Any], timeout: float | None = None) -> dict[str, Any] | None:
    """One request to the project's daemon and its reply; None when there is no daemon to answer (no
    status file, no socket, a refused connection, a connection closed before a whole reply, nothing heard
    for `timeout` seconds (default `reply_timeout()`); heartbeats restart that wait)."""
    where = paths_for(root)
    if where is None or not where[1].exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        try:
            sock.connect(str(where[0]))
        except (ConnectionRefusedError, FileNotFoundError):  # a daemon that died: its files go, once
            for p in where:
                with contextlib.suppress(OSError):
                    p.unlink()
            return None
        send(sock, {"protocol": PROTOCOL, **message})
        gap = reply_timeout() if timeout is None else timeout
        while True:
            reply = receive(sock, time.monotonic() + gap)
            if reply != WORKING:
                return reply
    except (OSError, ProtocolError, struct.error):
        return None
    finally:
        sock.close()


def served_check(args: Any) -> int | None:
    """`check` answered by the project's daemon, its output printed here: the exit status; None when no
    daemon serves this project (or it failed to answer): the caller checks in-process."""
    if os.environ.get("NAMEDCHECK_NO_DAEMON") or getattr(args, "no_daemon", False):
        return None
    if args.paths == ["-"]:  # an editor's buffer on stdin: checked in-process
        return None
    try:
        root = project_root(args.config_root)
    except (OSError, RuntimeError, ValueError):
        return None
    where = paths_for(root)
    if where is None or not where[1].exists():  # the common case: one stat, nothing started
        return None
    options = {k: v for k, v in vars(args).items() if k not in ("func",) and _plain(v)}
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):
        tty = False
    reply = call(
        root,
        {
            "command": "check",
            "options": options,
            "cwd": os.getcwd(),
            "env": {k: os.environ[k] for k in FORWARDED_ENV if k in os.environ},
            "tty": tty,
            "code": identity(),
        },
    )
    if reply is None or not isinstance(reply.get("status"), int) or "error" in reply:
        return None
    out, err = reply.get("stdout", ""), reply.get("stderr", "")
    if not isinstance(out, str) or not isinstance(err, str):
        return None
    sys.stdout.write(out)
    sys.stdout.flush()
    sys.stderr.write(err)
    sys.stderr.flush()
    return int(reply["status"])


def running_pid(root: Path) -> int | None:
    """The pid in the project's daemon status file when that process is alive (it may not answer)."""
    where = paths_for(root)
    if where is None:
        return None
    try:
        pid = json.loads(where[1].read_text()).get("pid")
        if not isinstance(pid, int) or pid <= 0:
            return None
        os.kill(pid, 0)
    except (OSError, ValueError, AttributeError):
        return None
    return pid


def _plain(v: Any) -> bool:
    return (
        v is None
        or isinstance(v, (str, int, float, bool))
        or (isinstance(v, list) and all(isinstance(x, str) for x in v))
    )


# ---- `namedcheck daemon` -----------------------------------------------------------------------------------
def cmd_daemon(args: Any) -> int:
    """`namedcheck daemon start|stop|restart|status` (the daemon itself: cli/daemon.py)."""
    root = project_root(getattr(args, "config_root", None))
    action = args.action
    if action == "status":
        reply = call(root, {"command": "status"}, timeout=STATUS_TIMEOUT)
        if reply is None or "info" not in reply:
            pid = running_pid(root) if reply is None else None
            if pid is not None:  # alive, its socket open, but no answer in time
                print(f"namedcheck daemon: busy for {root} (pid {pid}): no answer within {STATUS_TIMEOUT:g} s")
                return 0
            print(f"namedcheck daemon: not running for {root}")
            return 1
        info = reply["info"]
        print(f"namedcheck daemon: running for {root} (pid {info.get('pid')})")
        for k, v in info.items():
            if k not in ("pid", "root"):
                print(f"  {k}: {json.dumps(v)}")
        return 0
    if action in ("stop", "restart"):
        stopped = _stop(root)
        if action == "stop":
            print(f"namedcheck daemon: {'stopped' if stopped else 'not running'} for {root}")
            return 0
    problem = socket_path_problem(root)
    if problem is not None:
        print(f"namedcheck daemon: error: {problem}", file=sys.stderr)
        return 2
    return _start(root, args.idle_timeout)


def socket_path_problem(root: Path) -> str | None:
    """Why a daemon cannot listen at the project's socket path (a directory is in the way); None: it can."""
    where = paths_for(root)
    if where is not None and where[0].is_dir() and not where[0].is_symlink():
        return f"{where[0]} is a directory, not the daemon's socket: remove it and start again"
    return None


def _stop(root: Path) -> bool:
    """Stop the project's daemon; True when one was running. A daemon that does not answer has its socket
    and status files removed (it notices within a second and ends)."""
    import time

    where = paths_for(root)
    reply = call(root, {"command": "stop"}, timeout=30)
    if where is not None:
        deadline = time.monotonic() + 10
        while reply is not None and where[1].exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        for p in where:
            with contextlib.suppress(OSError):
                p.unlink()
    return reply is not None


def _start(root: Path, idle_minutes: float) -> int:
    reply = call(root, {"command": "status"}, timeout=10)
    if reply is not None and "info" in reply:
        print(f"namedcheck daemon: already running for {root} (pid {reply['info'].get('pid')})")
        return 0
    where = paths_for(root)
    if where is None:
        print("namedcheck daemon: error: no private directory for the socket", file=sys.stderr)
        return 2
    log = where[1].with_suffix(".log")
    with contextlib.suppress(OSError):
        where[1].unlink()
    import subprocess
    import time

    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as err:
        # isolated as the mypy plugin's worker is: `python -m` from the root would import a project's
        # `json.py` or `typing.py` before namedcheck's own
        from namedcheck.cli import isolated

        entries = isolated.path_entries(isolated.OWN, isolated.ANALYSIS_NEEDS)
        proc = subprocess.Popen(
            isolated.command(entries, "namedcheck.cli.daemon", ["--idle-timeout", str(idle_minutes)]),
            cwd=str(root),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,  # not killed with the terminal that started it
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        reply = call(root, {"command": "status"}, timeout=10)
        if reply is not None and "info" in reply:
            print(f"namedcheck daemon: started for {root} (pid {proc.pid})")
            return 0
        time.sleep(0.05)
    try:
        detail = log.read_text(errors="replace").strip()
    except OSError:
        detail = ""
    print(f"namedcheck daemon: error: the daemon did not start{': ' + detail if detail else ''}", file=sys.stderr)
    return 2
