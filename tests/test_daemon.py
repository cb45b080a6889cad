"""`namedcheck daemon`: a served `check` prints what an in-process one prints and exits the same, re-checks
only edited files and their importers, survives malformed requests, and a dead or stale daemon costs nothing
but its speed."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from namedcheck.cli import daemon_client

LIB = """import jax.numpy as jnp
from namedcheck import f32


def mm(a: f32["B", "D"], b: f32["D", "K"]) -> f32["B", "K"]:
    return jnp.dot(a, b)


def add(a, b):
    return a + b
"""

MAIN = """import jax.numpy as jnp
from pkg.lib import mm

x = jnp.zeros((4, 8))
y = jnp.zeros((8, 3))
z = mm(x, y)
w = jnp.zeros((3, 5)) + z
"""

OTHER = """import jax.numpy as jnp

a = jnp.zeros((2, 3)) @ jnp.zeros((4, 5))
"""


@pytest.fixture
def env() -> Iterator[dict[str, str]]:
    """A private runtime directory of the test's own (short: a socket path has a length limit)."""
    run = tempfile.mkdtemp(prefix="nc", dir="/tmp")
    os.chmod(run, 0o700)
    e = {**os.environ, "XDG_RUNTIME_DIR": run}
    e.pop("NAMEDCHECK_NO_DAEMON", None)
    yield e
    shutil.rmtree(run, ignore_errors=True)


@pytest.fixture
def project(tmp_path: Path, env: dict[str, str]) -> Iterator[Path]:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "lib.py").write_text(LIB)
    (tmp_path / "pkg" / "main.py").write_text(MAIN)
    (tmp_path / "pkg" / "other.py").write_text(OTHER)
    (tmp_path / "pkg" / "plain.py").write_text("x = 1\n")
    yield tmp_path
    nc(tmp_path, env, "daemon", "stop")


def nc(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "namedcheck", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def _timeless(text: str) -> str:
    return re.sub(r" in \d+\.\d\d s:", " in T s:", text)


def _status(cwd: Path, env: dict[str, str]) -> dict[str, object]:
    out = nc(cwd, env, "daemon", "status").stdout
    return {k.strip(): json.loads(v) for k, v in (ln.split(":", 1) for ln in out.splitlines()[1:])}


def _same_as_in_process(cwd: Path, env: dict[str, str], *args: str) -> int:
    served = nc(cwd, env, "check", *args)
    alone = nc(cwd, env, "check", "--no-daemon", *args)
    assert served.returncode == alone.returncode
    assert _timeless(served.stdout) == _timeless(alone.stdout)
    assert served.stderr == alone.stderr
    return served.returncode


@pytest.mark.slow
def test_served_check_prints_what_an_in_process_check_prints(
    project: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    started = nc(project, env, "daemon", "start", "--idle-timeout", "5")
    assert started.returncode == 0 and "started" in started.stdout
    monkeypatch.setenv("XDG_RUNTIME_DIR", env["XDG_RUNTIME_DIR"])
    where = daemon_client.paths_for(project.resolve())
    for args in (("--no-cache",), ("--no-cache", "--format", "json"), ("--format", "sarif"), ("--statistics",)):
        assert _same_as_in_process(project, env, *args) == 1
    assert _same_as_in_process(project, env, "--select", "NC8") == 0
    assert _same_as_in_process(project, env, "pkg/plain.py", "nowhere.py") == 2  # a missing path: exit 2
    # nothing changed: every file from memory
    nc(project, env, "check", "--no-cache")
    last = _status(project, env)["last_check"]
    assert isinstance(last, dict) and last["files_checked"] == 0 and last["files_from_memory"] == 5
    assert last["importers_from_memory"] == 1  # the run's reverse import graph too
    # an edit of one module: it and the module importing it checked again, the output still an in-process run's
    (project / "pkg" / "lib.py").write_text(LIB.replace('f32["B", "K"]', 'f32["B", "D"]'))
    served = nc(project, env, "check", "--no-cache", "--format", "json")
    last = _status(project, env)["last_check"]
    assert isinstance(last, dict) and last["files_checked"] == 2 and last["files_from_memory"] == 3
    assert last["importers_from_memory"] == 1  # its import lines are unchanged
    alone = nc(project, env, "check", "--no-cache", "--format", "json", "--no-daemon")
    assert served.stdout == alone.stdout and served.returncode == alone.returncode == 1
    found = {(d["path"], d["line"], d["code"], "(4, 8) of `z`" in d["message"]) for d in json.loads(served.stdout)}
    assert found == {("./pkg/main.py", 7, "NC201", True), ("./pkg/other.py", 3, "NC203", False)}
    # a changed-files run (pre-commit's): what importers cause in the file, also once an import line changes
    assert _same_as_in_process(project, env, "--no-cache", "--format", "json", "pkg/lib.py") == 0
    other = OTHER + "\nfrom pkg.lib import add\n\nc = add(jnp.zeros((2, 3)), jnp.zeros((4, 5)))\n"
    (project / "pkg" / "other.py").write_text(other)
    assert _same_as_in_process(project, env, "--no-cache", "--format", "json", "pkg/lib.py") == 1
    served = nc(project, env, "check", "--no-cache", "--format", "json", "pkg/lib.py")
    assert [(d["path"], d["line"], d["code"]) for d in json.loads(served.stdout)] == [("pkg/lib.py", 10, "NC201")]
    # a new module: everything from scratch, still the same output
    (project / "pkg" / "more.py").write_text(OTHER)
    assert _same_as_in_process(project, env, "--no-cache", "--format", "json") == 1
    # a module that an unchanged file imported before it existed: that file's result changes too
    (project / "pkg" / "user.py").write_text(
        "import jax.numpy as jnp\nfrom pkg.extra import make\n\nb = make() @ jnp.zeros((4, 5))\n"
    )
    nc(project, env, "check", "--no-cache")
    (project / "pkg" / "extra.py").write_text(
        "import jax.numpy as jnp\n\n\ndef make():\n    return jnp.zeros((2, 3))\n"
    )
    assert _same_as_in_process(project, env, "--no-cache", "--format", "json") == 1
    served = nc(project, env, "check", "--no-cache", "--format", "json")
    assert ("./pkg/user.py", 4, "NC203") in {(d["path"], d["line"], d["code"]) for d in json.loads(served.stdout)}
    # the socket and its directory are the user's alone
    assert where is not None
    assert stat.S_IMODE(os.stat(where[0].parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(where[0]).st_mode) & 0o077 == 0
    assert nc(project, env, "daemon", "stop").stdout.startswith("namedcheck daemon: stopped")
    assert not where[0].exists() and not where[1].exists()


def _raw(path: Path, payload: bytes) -> dict[str, object]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(str(path))
    s.sendall(payload)
    s.shutdown(socket.SHUT_WR)
    reply = daemon_client.receive(s)
    s.close()
    return reply


def _message(obj: object) -> bytes:
    data = json.dumps(obj).encode()
    return struct.pack(">I", len(data)) + data


@pytest.mark.slow
def test_malformed_requests_get_an_error_and_the_daemon_goes_on(
    project: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert nc(project, env, "daemon", "start").returncode == 0
    monkeypatch.setenv("XDG_RUNTIME_DIR", env["XDG_RUNTIME_DIR"])
    where = daemon_client.paths_for(project.resolve())
    assert where is not None
    sock = where[0]
    bad = [
        struct.pack(">I", 5) + b"{nope",
        _message([1, 2]),
        struct.pack(">I", daemon_client.MAX_MESSAGE + 1),
        _message({"protocol": 99, "command": "check"}),
        _message({"protocol": daemon_client.PROTOCOL, "command": "rm -rf"}),
        _message(
            {
                "protocol": daemon_client.PROTOCOL,
                "command": "check",
                "options": {"paths": 3},
                "cwd": "/",
                "env": {},
                "tty": False,
            }
        ),
        _message(
            {
                "protocol": daemon_client.PROTOCOL,
                "command": "check",
                "options": {"evil": 1},
                "cwd": "/",
                "env": {},
                "tty": False,
            }
        ),
        _message(
            {"protocol": daemon_client.PROTOCOL, "command": "check", "options": {}, "cwd": 7, "env": {}, "tty": False}
        ),
        _message(
            {"protocol": daemon_client.PROTOCOL, "command": "check", "options": {}, "cwd": "/", "env": {}, "tty": False}
        ),
        _message(
            {
                "protocol": daemon_client.PROTOCOL,
                "command": "check",
                "options": {},
                "cwd": "/",
                "env": {"A": 1},
                "code": {},
            }
        ),
    ]
    for payload in bad:
        reply = _raw(sock, payload)
        assert isinstance(reply.get("error"), str), reply
    # a client that sends half a message and leaves
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(str(sock))
    s.sendall(struct.pack(">I", 100) + b"{")
    s.close()
    assert _same_as_in_process(project, env, "--no-cache") == 1
    assert _status(project, env)["requests"] == 1


@pytest.mark.slow
def test_a_dead_or_stale_daemon_falls_back_to_an_in_process_check(project: Path, env: dict[str, str]) -> None:
    assert nc(project, env, "daemon", "start").returncode == 0
    status = json.loads(next(Path(env["XDG_RUNTIME_DIR"], "namedcheck").glob("*.json")).read_text())
    os.kill(status["pid"], 9)  # dies without cleaning up: its status file stays
    time.sleep(0.2)
    assert Path(status["socket"]).exists()
    alone = nc(project, env, "check", "--no-daemon", "--format", "json")
    served = nc(project, env, "check", "--format", "json")
    assert (served.stdout, served.stderr, served.returncode) == (alone.stdout, alone.stderr, 1)
    assert nc(project, env, "daemon", "status").returncode == 1
    # a daemon asked by another namedcheck (an upgrade since it started) says so and stops
    assert nc(project, env, "daemon", "start").returncode == 0
    status = json.loads(next(Path(env["XDG_RUNTIME_DIR"], "namedcheck").glob("*.json")).read_text())
    other = {**daemon_client.identity(), "version": "0.0.0"}
    request = {
        "protocol": daemon_client.PROTOCOL,
        "command": "check",
        "options": {},
        "cwd": str(project),
        "env": {},
        "code": other,
    }
    assert "stale" in str(_raw(Path(status["socket"]), _message(request)).get("error"))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and _alive(status["pid"]):
        time.sleep(0.1)
    assert not _alive(status["pid"])
    served = nc(project, env, "check", "--format", "json")
    assert (served.stdout, served.stderr, served.returncode) == (alone.stdout, alone.stderr, 1)
    # a daemon whose socket file is removed ends by itself
    assert nc(project, env, "daemon", "start").returncode == 0
    status = json.loads(next(Path(env["XDG_RUNTIME_DIR"], "namedcheck").glob("*.json")).read_text())
    os.unlink(status["socket"])
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and _alive(status["pid"]):
        time.sleep(0.1)
    assert not _alive(status["pid"])


@pytest.mark.slow
def test_an_idle_daemon_stops(project: Path, env: dict[str, str]) -> None:
    assert nc(project, env, "daemon", "start", "--idle-timeout", "0.02").returncode == 0  # 1.2 s
    status = json.loads(next(Path(env["XDG_RUNTIME_DIR"], "namedcheck").glob("*.json")).read_text())
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _alive(status["pid"]):
        time.sleep(0.2)
    assert not _alive(status["pid"])
    assert nc(project, env, "daemon", "status").stdout.startswith("namedcheck daemon: not running")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_the_client_path_does_not_import_the_analysis() -> None:
    code = (
        "import sys; import namedcheck.cli.main, namedcheck.cli.daemon_client; "
        "print(sorted(m for m in ('libcst', 'jax', 'namedcheck.analyzer.session') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_wire_format_round_trip() -> None:
    a, b = socket.socketpair()
    with a, b:
        daemon_client.send(a, {"command": "status", "n": [1, "é"]})
        assert daemon_client.receive(b) == {"command": "status", "n": [1, "é"]}
        a.sendall(struct.pack(">I", 2) + b"[]")
        with pytest.raises(daemon_client.ProtocolError):
            daemon_client.receive(b)


@pytest.mark.slow
def test_peers_bench_quick_prints_every_row_with_its_ratio() -> None:
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, str(root / "bench" / "peers.py"), "--quick", "--jobs", "2"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    rows = {}
    for line in out.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 5 and cells[0] not in ("tool", "---"):
            rows[cells[0]] = cells
    expected = [
        "ast.parse, one core",
        "libcst parse_module, one core",
        "ruff check",
        "mypy --no-incremental",
        "mypy, cache filled",
        "mypy, warm",
        "pyrefly check",
        "ty check",
        "namedcheck --no-cache -j 2",
        "namedcheck -j 2, cache filled",
        "namedcheck, warm",
        "namedcheck daemon, first run",
        "namedcheck daemon, re-run",
        "namedcheck daemon, one-file edit",
    ]
    assert list(rows) == expected
    assert rows["mypy --no-incremental"][2] == "1.00x" and rows["mypy, warm"][3] == "1.00x"
    timed = [name for name in expected if name not in ("ruff check", "pyrefly check", "ty check")]
    for name in timed:  # always measured: a wall time and its ratio to mypy --no-incremental
        assert re.fullmatch(r"\d+\.\d\d s", rows[name][1]), rows[name]
        assert re.fullmatch(r"\d+\.\d\dx", rows[name][2]), rows[name]
    for name in ("namedcheck, warm", "namedcheck daemon, re-run", "namedcheck daemon, one-file edit"):
        assert re.fullmatch(r"\d+\.\d\dx", rows[name][3]), rows[name]
    for name in ("ruff check", "pyrefly check", "ty check"):  # measured, or said to be missing
        assert re.fullmatch(r"\d+\.\d\d s", rows[name][1]) or "not installed" in rows[name][4], rows[name]
    assert "daemon rerun: 0 files checked, 52 from memory" in out.stdout
    assert re.search(r"daemon edit: \d+ files checked, \d+ from memory", out.stdout)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to connect as another user")
def test_another_user_is_refused_even_past_the_directory(project: Path, env: dict[str, str]) -> None:
    assert nc(project, env, "daemon", "start").returncode == 0
    status = json.loads(next(Path(env["XDG_RUNTIME_DIR"], "namedcheck").glob("*.json")).read_text())
    sock = Path(status["socket"])
    # open what the daemon keeps closed: the directories and the socket itself
    os.chmod(env["XDG_RUNTIME_DIR"], 0o711)
    os.chmod(sock.parent, 0o711)
    os.chmod(sock, 0o666)
    code = (
        "import os, socket, struct, json, sys; os.setuid(65534); s = socket.socket(socket.AF_UNIX); "
        "s.connect(sys.argv[1]); d = json.dumps({'protocol': 1, 'command': 'status'}).encode()\n"
        "try: s.sendall(struct.pack('>I', len(d)) + d)\nexcept BrokenPipeError: pass  # refused before it was read\n"
        "b = b''\n"
        "while (c := s.recv(4096)): b += c\n"
        "print(b[4:].decode())"
    )
    out = subprocess.run([sys.executable, "-c", code, str(sock)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"error": "refused: not the daemon's user"}, out.stderr
    os.chmod(sock.parent, 0o700)
    assert nc(project, env, "daemon", "status").returncode == 0


def test_a_whole_tree_run_checks_each_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A script beside the packages has a project of its own (its directory adds a root): it imports a
    package module, yet a run given both checks it once, not again as that module's importer."""
    from namedcheck.cli import runner
    from namedcheck.cli.main import main

    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "lib.py").write_text(LIB)
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "run.py").write_text(MAIN)
    monkeypatch.chdir(tmp_path)
    checked: list[str] = []

    def counting(todo: list[runner.Job], jobs: int, on_file: object) -> list[object]:
        checked.extend(j.display for j in todo)
        saved, runner.FILE_MEMO = runner.FILE_MEMO, None
        try:
            return runner.check_all(todo, jobs, on_file)  # type: ignore[arg-type]
        finally:
            runner.FILE_MEMO = saved

    monkeypatch.setattr(runner, "FILE_MEMO", counting)
    assert main(["check", "--no-cache", "--no-daemon", "-j", "1", "."]) == 1
    assert sorted(checked) == ["./pkg/__init__.py", "./pkg/lib.py", "./scripts/run.py"]


# ---- one client cannot block another; any request is survived ------------------------------------
class _FakeState:
    idle = 600.0


def _serving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply_size: int) -> tuple[Path, Any]:
    """An in-process `_Server` on a real socket whose checks answer at once with a reply of `reply_size`
    bytes (over a socket buffer: a client that never reads blocks the send)."""
    from namedcheck.cli import daemon

    monkeypatch.setattr(daemon, "REQUEST_DEADLINE", 1.0)
    monkeypatch.setattr(daemon, "SEND_DEADLINE", 1.5)
    monkeypatch.setattr(
        daemon, "handle", lambda _state, m: ({"status": 0, "stdout": "x" * reply_size, "stderr": m["command"]}, False)
    )
    path = Path(tempfile.mkdtemp(prefix="ncs", dir="/tmp")) / "d.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(16)
    listener.settimeout(0.2)
    server = daemon._Server(_FakeState(), listener)  # type: ignore[arg-type]
    server.start()
    threading.Thread(target=server.loop, args=(lambda: True,), daemon=True).start()
    return path, server


def _ask(path: Path, command: str = "check", timeout: float = 10) -> dict[str, object]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(str(path))
    with s:
        daemon_client.send(s, {"protocol": daemon_client.PROTOCOL, "command": command})
        while True:
            reply = daemon_client.receive(s, time.monotonic() + timeout)
            if reply != daemon_client.WORKING:
                return reply


def test_a_client_that_never_reads_or_trickles_blocks_no_other(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, server = _serving(tmp_path, monkeypatch, 8 * 1024 * 1024)
    try:
        stuck = []
        for _ in range(3):  # each asks for an 8 MB reply and never reads it
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(path))
            daemon_client.send(s, {"protocol": daemon_client.PROTOCOL, "command": "check"})
            stuck.append(s)
        trickle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        trickle.connect(str(path))
        trickle.sendall(struct.pack(">I", 1000) + b"{")  # then nothing more: its whole request never comes
        start = time.monotonic()
        reply = _ask(path)
        assert reply["status"] == 0 and len(str(reply["stdout"])) == 8 * 1024 * 1024
        assert time.monotonic() - start < 8  # served while the others hang (each send bounded by its deadline)
        trickle.settimeout(10)
        assert trickle.recv(1 << 16) == b""  # closed by the daemon after REQUEST_DEADLINE
        deadline = time.monotonic() + 10
        while server.active and time.monotonic() < deadline:  # every stuck connection let go in time
            time.sleep(0.05)
        assert server.active == 0
        for s in [*stuck, trickle]:
            s.close()
        assert _ask(path)["status"] == 0
    finally:
        server.stop()
        server.listener.close()


def test_a_request_trickled_a_byte_at_a_time_is_cut_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = socket.socketpair()
    with a, b:
        a.sendall(struct.pack(">I", 100) + b"{")

        def drip() -> None:  # a byte every 0.2 s: each read is quick, the whole request never is
            with contextlib.suppress(OSError):
                for _ in range(30):
                    time.sleep(0.2)
                    a.send(b" ")

        threading.Thread(target=drip, daemon=True).start()
        start = time.monotonic()
        with pytest.raises(TimeoutError):
            daemon_client.receive(b, time.monotonic() + 1.0)
        assert time.monotonic() - start < 3


def test_a_deeply_nested_request_is_an_error_and_the_daemon_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = socket.socketpair()
    with a, b:
        body = b"[" * 100_000 + b"]" * 100_000
        a.sendall(struct.pack(">I", len(body)) + body)
        with pytest.raises(daemon_client.ProtocolError, match="RecursionError"):
            daemon_client.receive(b)
    path, server = _serving(tmp_path, monkeypatch, 10)
    try:
        reply = _raw(path, struct.pack(">I", len(body)) + body)
        assert "malformed request" in str(reply["error"]) and "RecursionError" in str(reply["error"])
        assert _ask(path)["status"] == 0
    finally:
        server.stop()
        server.listener.close()


def test_the_daemon_refuses_option_values_the_command_line_refuses() -> None:
    from namedcheck.cli import daemon

    for options, said in (
        ({"format": "xml"}, "invalid choice 'xml'"),
        ({"jobs": "many"}, "wrong type"),
        ({"jobs": True}, "wrong type"),
        ({"jobs": 1.5}, "wrong type"),
        ({"statistics": 1}, "wrong type"),
        ({"paths": ["a", 3]}, "paths must be a list of strings"),
    ):
        with pytest.raises(ValueError, match=re.escape(said)):
            daemon._check_args(options)
    args = daemon._check_args({"format": "sarif", "jobs": 2, "statistics": True, "paths": ["a.py"]})
    assert (args.format, args.jobs, args.statistics, args.paths, args.no_daemon) == ("sarif", 2, True, ["a.py"], True)


def test_status_says_busy_when_the_daemon_is_alive_but_silent(
    tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse

    monkeypatch.setenv("XDG_RUNTIME_DIR", env["XDG_RUNTIME_DIR"])
    monkeypatch.setattr(daemon_client, "STATUS_TIMEOUT", 0.5)
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\n")
    where = daemon_client.paths_for(tmp_path.resolve())
    assert where is not None
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # listens, never accepts: a wedged daemon
    silent.bind(str(where[0]))
    silent.listen(4)
    where[1].write_text(json.dumps({"pid": os.getpid(), "root": str(tmp_path)}))
    args = argparse.Namespace(action="status", config_root=str(tmp_path), idle_timeout=1.0)
    with silent:
        assert daemon_client.cmd_daemon(args) == 0
    assert "busy" in capsys.readouterr().out
    where[1].write_text(json.dumps({"pid": 2**22 + 12345, "root": str(tmp_path)}))  # no such process
    assert daemon_client.cmd_daemon(args) == 1
    assert "not running" in capsys.readouterr().out


def test_a_directory_at_the_socket_path_is_said_plainly(
    tmp_path: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse

    monkeypatch.setenv("XDG_RUNTIME_DIR", env["XDG_RUNTIME_DIR"])
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\n")
    where = daemon_client.paths_for(tmp_path.resolve())
    assert where is not None
    where[0].mkdir()
    args = argparse.Namespace(action="start", config_root=str(tmp_path), idle_timeout=1.0)
    assert daemon_client.cmd_daemon(args) == 2
    err = capsys.readouterr().err
    assert "is a directory" in err and "Traceback" not in err


@pytest.mark.slow
def test_a_real_daemon_serves_others_past_a_stuck_and_a_trickling_client(
    project: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert nc(project, env, "daemon", "start").returncode == 0
    monkeypatch.setenv("XDG_RUNTIME_DIR", env["XDG_RUNTIME_DIR"])
    where = daemon_client.paths_for(project.resolve())
    assert where is not None
    request = {
        "protocol": daemon_client.PROTOCOL,
        "command": "check",
        "options": {"no_cache": True, "format": "json"},
        "cwd": str(project),
        "env": {},
        "tty": False,
        "code": daemon_client.identity(),
    }
    stuck = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # asks, never reads
    stuck.connect(str(where[0]))
    daemon_client.send(stuck, request)
    trickle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # a header, then a byte now and then
    trickle.connect(str(where[0]))
    trickle.sendall(struct.pack(">I", 1000) + b"{")
    body = b"[" * 100_000 + b"]" * 100_000
    assert "RecursionError" in str(_raw(where[0], struct.pack(">I", len(body)) + body)["error"])
    bad = _raw(where[0], _message({**request, "options": {"format": "xml"}}))
    assert "invalid choice 'xml'" in str(bad["error"])
    with stuck, trickle:
        assert _same_as_in_process(project, env, "--no-cache", "--format", "json") == 1
        assert nc(project, env, "daemon", "status").returncode == 0
    assert _status(project, env)["requests"] == 2  # the stuck client's and the served one
