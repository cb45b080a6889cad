"""Nothing of the checked project runs, from any front end: a project plants modules named like the standard
library's and namedcheck's dependencies, a `sitecustomize.py`, a `.pth` file, a side-effecting package
`__init__.py`, a `conftest.py` and a config module; each writes a marker when imported. `check` (one process
and workers), `--fix`, `infer`, `coverage`, a notebook, `check -`, the daemon and the language server run over
it, each started as a user starts it (the console script, from the project root), and must leave no marker
while still finding the project's bug. The mypy plugin's worker has its own test (test_plugin_isolation.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

NAMEDCHECK = str(Path(sys.executable).with_name("namedcheck"))
# what namedcheck's processes import, the daemon's and the language server's start included
PLANTED = (
    *("json", "typing", "argparse", "socket", "struct", "tempfile", "threading", "tomllib", "traceback", "ast"),
    *("dataclasses", "hashlib", "locale", "shutil", "signal", "selectors", "subprocess", "contextlib", "re"),
    *("enum", "functools", "pathlib", "collections", "tokenize", "io", "codecs", "logging", "asyncio"),
    *("libcst", "yaml", "typing_extensions", "pygls", "lsprotocol", "attrs", "cattrs", "namedcheck_mypy"),
    *("sitecustomize", "usercustomize", "conftest"),
)
BUG = "import jax.numpy as jnp\n\nfrom pkg.model import forward\n\ny = jnp.zeros((4, 8)) + jnp.ones((5, 8))\n"


def _marker_source(markers: Path, name: str) -> str:
    return (
        "import os as _os\n"
        f"open(_os.path.join({str(markers)!r}, {name!r}), 'w').write(str(_os.getpid()))\n"
        "raise ImportError('planted module ran')\n"
    )


@pytest.fixture
def planted(tmp_path: Path) -> Iterator[tuple[Path, Path, dict[str, str]]]:
    root, markers = tmp_path / "proj", tmp_path / "markers"
    root.mkdir()
    markers.mkdir()
    (root / "pyproject.toml").write_text("[tool.namedcheck]\n")
    for name in PLANTED:
        (root / f"{name}.py").write_text(_marker_source(markers, name))
    (root / "planted.pth").write_text(f"import os; open({str(markers / 'pth')!r}, 'w').write('ran')\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text(_marker_source(markers, "pkg_init"))
    (root / "pkg" / "model.py").write_text(
        "import jax.numpy as jnp\n\n\ndef forward(x):\n    return x @ jnp.ones((8, 3))\n"
    )
    (root / "configs").mkdir()
    (root / "configs" / "default.py").write_text(_marker_source(markers, "config"))
    (root / "main.py").write_text(BUG)
    cells = [{"cell_type": "code", "metadata": {}, "source": BUG, "outputs": [], "execution_count": None}]
    (root / "nb.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    run = tempfile.mkdtemp(prefix="nc", dir="/tmp")  # short: a socket path has a length limit
    os.chmod(run, 0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": run, "NAMEDCHECK_NO_CACHE": "1"}
    env.pop("PYTHONPATH", None)
    env.pop("NAMEDCHECK_NO_DAEMON", None)
    yield root, markers, env
    subprocess.run([NAMEDCHECK, "daemon", "stop"], cwd=root, env=env, capture_output=True, timeout=60)
    shutil.rmtree(run, ignore_errors=True)


def _nc(root: Path, env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [NAMEDCHECK, *args], cwd=root, env=env, input=stdin, capture_output=True, text=True, timeout=240
    )


def _ran(markers: Path) -> list[str]:
    return sorted(p.name for p in markers.iterdir())


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--no-daemon", "main.py"),
        ("check", "--no-daemon", "-j", "2", "."),
        ("check", "--no-daemon", "--fix", "--unsafe-fixes", "main.py"),
        ("check", "--no-daemon", "nb.ipynb"),
        ("infer", "--diff", "main.py"),
        ("coverage", "."),
    ],
    ids=["check", "check-j2", "fix", "notebook", "infer", "coverage"],
)
def test_a_command_runs_nothing_of_the_project(planted: tuple[Path, Path, dict[str, str]], args: tuple) -> None:
    root, markers, env = planted
    proc = _nc(root, env, *args)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert _ran(markers) == []
    if args[0] == "check":
        assert proc.returncode == 1 and "NC201" in proc.stdout, proc.stdout + proc.stderr


def test_check_from_stdin_runs_nothing_of_the_project(planted: tuple[Path, Path, dict[str, str]]) -> None:
    root, markers, env = planted
    proc = _nc(root, env, "check", "--no-daemon", "--stdin-filename", "main.py", "-", stdin=BUG)
    assert proc.returncode == 1 and "NC201" in proc.stdout, proc.stdout + proc.stderr
    assert _ran(markers) == []


def test_the_daemon_runs_nothing_of_the_project(planted: tuple[Path, Path, dict[str, str]]) -> None:
    root, markers, env = planted
    started = _nc(root, env, "daemon", "start")
    assert started.returncode == 0, started.stdout + started.stderr
    served = _nc(root, env, "check", "main.py")
    assert served.returncode == 1 and "NC201" in served.stdout, served.stdout + served.stderr
    status = _nc(root, env, "daemon", "status")
    assert "requests: 1" in status.stdout or "requests: 2" in status.stdout, status.stdout  # the daemon answered
    assert _ran(markers) == []


def _frame(obj: object) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read_frame(stream: object) -> dict[str, object]:
    headers = b""
    while not headers.endswith(b"\r\n\r\n"):
        ch = stream.read(1)  # type: ignore[attr-defined]
        if not ch:
            raise EOFError
        headers += ch
    length = int(headers.split(b"Content-Length:")[1].split(b"\r\n")[0])
    return json.loads(stream.read(length))  # type: ignore[attr-defined,no-any-return]


def test_the_language_server_runs_nothing_of_the_project(planted: tuple[Path, Path, dict[str, str]]) -> None:
    pytest.importorskip("pygls")
    root, markers, env = planted
    proc = subprocess.Popen(
        [NAMEDCHECK, "lsp"], cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    uri = (root / "main.py").as_uri()
    send = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"rootUri": root.as_uri(), "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": BUG}},
        },
    ]
    try:
        for m in send:
            proc.stdin.write(_frame(m))
        proc.stdin.flush()
        deadline = time.monotonic() + 120
        codes: list[object] = []
        while time.monotonic() < deadline:
            msg = _read_frame(proc.stdout)
            params = msg.get("params")
            if msg.get("method") == "textDocument/publishDiagnostics" and isinstance(params, dict):
                codes = [d.get("code") for d in params["diagnostics"]]
                if codes:
                    break
        assert "NC201" in codes
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.flush()
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert _ran(markers) == []
