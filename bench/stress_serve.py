"""The stress suite's serving front ends (`bench/stress.py daemon | paths | xmap`, tests/stress/):

- `daemon_clients`: `namedcheck daemon` against hostile clients on its socket: one that asks for a large reply
  and never reads it, one that trickles its request a byte at a time, a JSON nested 100,000 deep, option values
  the command line refuses, and a folder at the socket path. After each, a `check` is served by the daemon
  (not a fallback) within a bound and prints what an in-process check prints.
- `editor_paths`: the language server on files whose paths need escaping (`+` raw and as `%2B`, a space,
  unicode, `%`): each gets its diagnostics and a hover.
- `xmap_leaves`: `namedcheck.xmap` over a dict of 2,000 leaves (linear in the leaves; 59 s before the fix).

Each part returns a `stress_runs.Scenario`: its notes are the figures, its problems the failures.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

import stress_lsp
from stress_runs import NAMEDCHECK, Scenario, run_limited

SERVED_BOUND = 30.0  # seconds a served `check` may take while a hostile client holds a connection
ERRORS_PER_FILE = 200  # NC201 lines per generated file: a json reply larger than a socket's buffer


def _error_file(i: int) -> str:
    lines = [f"y{j} = jnp.zeros(({i % 7 + 2}, 8)) + jnp.ones(({i % 7 + 3}, 8))" for j in range(ERRORS_PER_FILE)]
    return "import jax.numpy as jnp\n\n" + "\n".join(lines) + "\n"


def _daemon_project(root: Path, files: int) -> None:
    if root.exists():
        shutil.rmtree(root)
    (root / "pkg").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.namedcheck]\n")
    (root / "pkg" / "__init__.py").write_text("")
    for i in range(files):
        (root / "pkg" / f"m{i}.py").write_text(_error_file(i))


def _socket_of(root: Path, env: dict[str, str]) -> Path:
    code = (
        "from pathlib import Path; from namedcheck.cli import daemon_client as c; "
        "print(c.paths_for(Path('.').resolve())[0])"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=60)
    return Path(out.stdout.strip())


def _request(root: Path, options: dict[str, object]) -> bytes:
    from namedcheck.cli import daemon_client

    message = {
        "protocol": daemon_client.PROTOCOL,
        "command": "check",
        "options": options,
        "cwd": str(root),
        "env": {},
        "tty": False,
        "code": daemon_client.identity(),
    }
    data = json.dumps(message).encode()
    return struct.pack(">I", len(data)) + data


def _reply(sock: Path, payload: bytes, timeout: float = 30) -> dict | None:
    """Send `payload` and read one message back (None: no whole answer in time)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(str(sock))
        s.sendall(payload)
        head = b""
        while len(head) < 4:
            chunk = s.recv(4 - len(head))
            if not chunk:
                return None
            head += chunk
        (size,) = struct.unpack(">I", head)
        body = b""
        while len(body) < size:
            chunk = s.recv(min(1 << 20, size - len(body)))
            if not chunk:
                return None
            body += chunk
        got = json.loads(body)
        return got if isinstance(got, dict) else None
    except (OSError, ValueError):
        return None
    finally:
        s.close()


def _requests(root: Path, env: dict[str, str]) -> int | None:
    """The daemon's count of requests served (None: `daemon status` did not say)."""
    out = subprocess.run(
        [*NAMEDCHECK, "daemon", "status"], cwd=root, env=env, capture_output=True, text=True, timeout=60
    ).stdout
    for line in out.splitlines():
        if line.strip().startswith("requests:"):
            return int(line.split(":", 1)[1])
    return None


def daemon_clients(work: Path, quick: bool = False, files: int | None = None) -> Scenario:
    """The daemon past hostile clients: every later `check` served within SERVED_BOUND, output unchanged."""
    sc = Scenario("daemon")
    root = work / "daemon"
    _daemon_project(root, files or (3 if quick else 6))
    run_dir = Path(tempfile.mkdtemp(prefix="ncs", dir="/tmp"))  # short: a socket path has a length limit
    os.chmod(run_dir, 0o700)
    env = {k: v for k, v in os.environ.items() if k != "NAMEDCHECK_NO_DAEMON"}
    env["XDG_RUNTIME_DIR"] = str(run_dir)
    saved_env = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = str(run_dir)
    check = [*NAMEDCHECK, "check", "--format", "json", "--no-cache", "pkg"]
    held: list[socket.socket] = []
    stop = threading.Event()
    try:
        alone = run_limited([*check, "--no-daemon"], root, 300, env=env)
        sc.notes.append(f"in-process check: {alone.seconds:.1f} s, {len(alone.stdout) // 1024} KB of json")
        started = run_limited([*NAMEDCHECK, "daemon", "start", "--idle-timeout", "10"], root, 120, env=env)
        if started.rc != 0:
            sc.problems.append(f"crash: daemon start exited {started.rc}: {started.stderr.strip()[-200:]}")
            return sc
        sock = _socket_of(root, env)
        first = run_limited(check, root, 300, env=env)  # the daemon's analysis loaded and its memo filled
        sc.add(first)

        def served(row: str) -> None:
            before = _requests(root, env)
            got = run_limited(check, root, SERVED_BOUND + 30, env=env)
            sc.add(got)
            after = _requests(root, env)
            by_daemon = before is not None and after is not None and after > before
            sc.notes.append(
                f"{row}: a check {'served' if by_daemon else 'NOT served'} in {got.seconds:.1f} s"
                + (" (killed: hung)" if got.hung else "")
            )
            if got.hung:
                sc.problems.append(f"hang: {row}: a check did not end in {SERVED_BOUND + 30:.0f} s")
            elif got.seconds > SERVED_BOUND:
                sc.problems.append(f"slow: {row}: a check took {got.seconds:.1f} s")
            if not got.hung and got.stdout != alone.stdout:
                sc.problems.append(f"wrong: {row}: the check's output differs from an in-process check's")
            if not got.hung and not by_daemon:
                sc.problems.append(f"wrong: {row}: the check was not served by the daemon (status: {after})")

        # a client asks for the whole project's json and never reads it (a check suspended by Ctrl-Z)
        stuck = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stuck.connect(str(sock))
        stuck.sendall(_request(root, {"no_cache": True, "format": "json", "paths": ["pkg"]}))
        held.append(stuck)
        time.sleep(3 if quick else 5)
        served("stuck client (never reads its reply)")

        # a client sends a header, then one byte every half second
        trickle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        trickle.connect(str(sock))
        trickle.sendall(struct.pack(">I", 1000) + b"{")
        held.append(trickle)

        def drip() -> None:
            while not stop.wait(0.5):
                try:
                    trickle.send(b" ")
                except OSError:
                    return

        threading.Thread(target=drip, daemon=True).start()
        time.sleep(1)
        served("trickling client (a byte per 0.5 s)")

        # a request nested 100,000 deep: an error reply, the daemon alive
        body = b"[" * 100_000 + b"]" * 100_000
        t = time.monotonic()
        got = _reply(sock, struct.pack(">I", len(body)) + body)
        error = str((got or {}).get("error", ""))
        sc.notes.append(f"nested JSON request: {error[:70] or 'no reply'} ({time.monotonic() - t:.1f} s)")
        if "malformed" not in error:
            sc.problems.append(f"crash: nested JSON: no error reply ({got})")
        served("after a nested JSON request")

        # option values the command line refuses
        for options, expect in (({"format": "xml"}, "invalid choice"), ({"jobs": "many"}, "wrong type")):
            got = _reply(sock, _request(root, options))
            error = str((got or {}).get("error", ""))
            sc.notes.append(f"option {options}: {error[:70] or (got and 'accepted') or 'no reply'}")
            if expect not in error:
                sc.problems.append(f"wrong: option {options} was not refused ({str(got)[:80]})")
    finally:
        stop.set()
        for s in held:
            s.close()
        subprocess.run([*NAMEDCHECK, "daemon", "stop"], cwd=root, env=env, capture_output=True, timeout=120)
        if saved_env is None:
            os.environ.pop("XDG_RUNTIME_DIR", None)
        else:
            os.environ["XDG_RUNTIME_DIR"] = saved_env

    # a folder where the socket belongs: a clear message, no traceback
    try:
        sock = _socket_of(root, env)
        sock.mkdir(parents=True, exist_ok=True)
        got = run_limited([*NAMEDCHECK, "daemon", "start"], root, 120, env=env)
        sc.add(got)
        sc.notes.append(f"folder at the socket path: exit {got.rc}: {got.stderr.strip()[:90]}")
        if got.rc != 2 or "Traceback" in got.stderr:
            sc.problems.append(f"crash: a folder at the socket path: exit {got.rc}, {got.stderr.strip()[-160:]}")
    finally:
        subprocess.run([*NAMEDCHECK, "daemon", "stop"], cwd=root, env=env, capture_output=True, timeout=120)
        shutil.rmtree(run_dir, ignore_errors=True)
    return sc


# ---- the editor on paths that need escaping ----------------------------------------------------------

EDITOR_PATHS = [("tiny+plus", "raw"), ("tiny+plus", "quoted"), ("with space", "quoted"), ("ünï cödé 名前", "quoted")]


def editor_paths(work: Path, cases: list[tuple[str, str]] | None = None, answer_s: float = 30.0) -> Scenario:
    """Open a buggy file under each folder (its URI spelled raw or percent-encoded): its NC201-like error is
    published under that URI, and a hover on it is answered with a type."""
    sc = Scenario("paths")
    root = work / "paths"
    if root.exists():
        shutil.rmtree(root)
    c, _ = stress_lsp._start(root)
    try:
        for folder, spelling in cases or EDITOR_PATHS:
            path = root / folder / "model.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(stress_lsp.BUGGY)
            uri = "file://" + (quote(str(path)) if spelling == "quoted" else str(path))
            start = time.monotonic()
            c.open(uri, stress_lsp.BUGGY)
            diags = c.wait_diagnostics(uri, answer_s)
            seconds = time.monotonic() - start
            hover, _ = c.request(
                "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 5, "character": 4}}, answer_s
            )
            shown = ((hover or {}).get("result") or {}).get("contents", {}).get("value", "")
            sc.tried += 1
            sc.worst_s = max(sc.worst_s, seconds)
            row = f"{folder!r} ({spelling})"
            sc.notes.append(
                f"{row}: {len(diags) if diags is not None else 'no'} diagnostics in {seconds:.1f} s, "
                f"hover {'with a type' if 'Dims' in shown else 'empty'}"
            )
            if not diags:
                sc.problems.append(f"lost: {row}: no diagnostics published in {answer_s:.0f} s")
            if "Dims" not in shown:
                sc.problems.append(f"lost: {row}: hover {hover}")
    finally:
        c.close()
    return sc


# ---- the runtime: a wide pytree ---------------------------------------------------------------------------

XMAP_SCRIPT = """
import os, sys, time
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax.numpy as jnp
from namedcheck import xmap
n = int(sys.argv[1])
tree = {f"k{i}": jnp.full((2,), float(i)) for i in range(n)}
start = time.perf_counter()
out = xmap(lambda t: t, in_axes=["i", ...], out_axes=["i", ...])(tree)
assert len(out) == n and float(out[f"k{n - 1}"][1]) == n - 1
print(f"{time.perf_counter() - start:.2f}")
"""


def xmap_leaves(work: Path, leaves: int = 2000, bound: float = 30.0) -> Scenario:
    """The first call of an identity xmap over a dict of `leaves` arrays ends within `bound` seconds."""
    sc = Scenario("xmap")
    script = work / "xmap_leaves.py"
    script.write_text(XMAP_SCRIPT)
    got = run_limited([sys.executable, str(script), str(leaves)], work, bound + 60)
    sc.add(got)
    seconds = float(got.stdout.strip()) if got.rc == 0 and got.stdout.strip() else None
    sc.notes.append(
        f"xmap over {leaves:,} leaves: "
        + (f"{seconds:.1f} s (process {got.seconds:.1f} s)" if seconds is not None else f"exit {got.rc}")
    )
    if got.hung:
        sc.problems.append(f"hang: xmap over {leaves:,} leaves past {bound + 60:.0f} s")
    elif seconds is None:
        sc.problems.append(f"crash: exit {got.rc}: {got.stderr.strip()[-200:]}")
    elif seconds > bound:
        sc.problems.append(f"slow: xmap over {leaves:,} leaves took {seconds:.1f} s > {bound:.0f} s")
    return sc
