"""The mypy plugin never runs the checked project's code and never hangs.

- Isolation: the plugin's helper process (`namedcheck_mypy.worker`) starts as `python -I -S` with exactly
  the path entries namedcheck needs, so a project module named after any standard-library module the
  helper imports (`textwrap.py`, `json.py`, ...), a `sitecustomize.py` / `usercustomize.py`, PYTHONPATH or
  PYTHONSTARTUP never run: each planted module writes a marker file, and no marker may appear while the
  plugin's diagnostics still do.
- Hangs: a stalled helper is killed after its allowance (`NAMEDCHECK_MYPY_TIMEOUT` here), its file gets no
  namedcheck diagnostics and one note, the build's other files keep theirs; a helper that dies mid-answer
  is replaced; the helper ends with its parent and with its stdin; a file deleted between two requests
  has no result (dmypy goes on).
"""

from __future__ import annotations

import os
import pickle
import re
import signal
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("mypy")

from namedcheck_mypy import hooks  # noqa: E402
from namedcheck_mypy.worker import WORKING  # noqa: E402

BUGGY = """\
import jax.numpy as jnp

x = jnp.ones((8, 128)) + jnp.ones((8, 64))
"""
FINE = """\
import jax.numpy as jnp

y = jnp.ones((8, 128)) + jnp.ones((8, 128))
"""
MYPY_INI = """\
[mypy]
plugins = namedcheck_mypy
ignore_missing_imports = True
show_column_numbers = True
[mypy-jax.*]
follow_imports = skip
"""
# standard-library names a project may well hold a file of (the stress pass found 65 imported by the helper)
COMMON = """
textwrap pathlib types json random re os typing enum functools collections dataclasses abc ast io
itertools operator copy pickle struct string hashlib tempfile shutil glob fnmatch threading queue signal
subprocess select selectors time datetime math numbers decimal fractions statistics logging warnings
traceback inspect dis tokenize token keyword linecache contextlib weakref heapq bisect array codecs
locale platform sysconfig site importlib zipfile tarfile gzip bz2 lzma zlib base64 binascii uuid csv
configparser tomllib argparse getopt pprint reprlib difflib unittest socket errno stat posixpath ntpath
genericpath ctypes tty termios pty fcntl resource shlex mmap secrets hmac
""".split()
# mypy itself refuses a project file named after one of these ("This file shadows library module"), so
# it never starts the helper with them in the project's folder; they are planted on PYTHONPATH instead
MYPY_CORE = {"builtins", "typing", "types", "typing_extensions", "mypy_extensions", "_typeshed"}
MYPY_CORE |= {"_collections_abc", "collections", "sys", "abc"}
# a project file named after one of these breaks mypy itself (an internal error, plugin or not); the
# interpreter has them frozen, so no file can shadow them at run time either
MYPY_CORE |= {"_frozen_importlib", "_frozen_importlib_external"}
NC_ERROR = re.compile(r"^buggy\.py:3:\d+: error: .*\[NC201\]$", re.M)


def _plant(where: Path, names: set[str], markers: Path) -> None:
    """A module per name whose body leaves a marker (and fails, as a shadowed module would)."""
    where.mkdir(parents=True, exist_ok=True)
    for name in sorted(names):
        (where / f"{name}.py").write_text(
            f"open({str(markers / name)!r}, 'w').close()\nraise ImportError('planted module {name} ran')\n"
        )
    (where / "startup.py").write_text(f"open({str(markers / 'PYTHONSTARTUP')!r}, 'w').close()\n")


def _project(where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    (where / "buggy.py").write_text(BUGGY)
    (where / "mypy.ini").write_text(MYPY_INI)
    return where


def _answer(proc: subprocess.Popen[bytes], timeout: float = 120) -> dict[str, object]:
    """The worker's records up to the end of its answer (progress records left out)."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    got: dict[str, object] = {}
    while True:
        (n,) = struct.unpack("<Q", hooks._read_within(fd, 8, timeout))
        path, result = pickle.loads(hooks._read_within(fd, n, timeout))
        if path is None:
            return got
        if result != WORKING:
            got[path] = result


def _codes(result: object) -> list[tuple[int, str]]:
    assert isinstance(result, tuple), result
    return [(d.line, d.code) for d in result[0]]


@pytest.fixture(scope="module")
def worker_modules(tmp_path_factory) -> set[str]:
    """The top-level modules the helper imports while it analyses a buggy file, started as the plugin
    starts it."""
    where = _project(tmp_path_factory.mktemp("modules"))
    listing = where / "modules.txt"
    env = {**os.environ, "NAMEDCHECK_TEST_WORKER_MODULES": str(listing)}
    proc = subprocess.Popen(hooks.worker_command(), cwd=where, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdin is not None
        proc.stdin.write(f"A {where / 'buggy.py'}\nE\n".encode())
        proc.stdin.flush()
        answer = _answer(proc)
        proc.stdin.close()
        proc.wait(timeout=30)
    finally:
        proc.kill()
    assert _codes(answer[str(where / "buggy.py")]) == [(3, "NC201")]
    modules = {m.partition(".")[0] for m in listing.read_text().split()}
    assert {"namedcheck", "libcst", "json", "pickle"} <= modules, modules
    return modules


def _stdlib_names(modules: set[str]) -> set[str]:
    names = (modules & set(sys.stdlib_module_names)) | set(COMMON)
    # modules built into the interpreter cannot be shadowed by a file; planting them is harmless, but
    # `__future__`-style names and private accelerators stay as they are
    return {n for n in names if n.isidentifier() and n != "__future__"}


def test_the_command_is_isolated_from_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "yaml.py").write_text("raise SystemExit('planted')\n")  # a dependency not imported yet
    (tmp_path / "pathspec").mkdir()
    (tmp_path / "pathspec" / "__init__.py").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "yaml", raising=False)
    monkeypatch.delitem(sys.modules, "pathspec", raising=False)
    cmd = hooks.worker_command()
    assert cmd[:4] == [sys.executable, "-I", "-S", "-c"]
    assert cmd[5] == str(os.getpid()) and cmd[6:] == ["--pdeathsig"]
    entries = hooks._worker_path.__wrapped__()  # type: ignore[attr-defined]
    assert entries and all(os.path.isabs(e) for e in entries)
    assert str(tmp_path) not in entries and "" not in entries
    import namedcheck
    import namedcheck_mypy

    assert str(Path(namedcheck.__file__).parent.parent) in entries
    assert str(Path(namedcheck_mypy.__file__).parent.parent) in entries


def test_the_worker_runs_nothing_planted_in_its_folder_or_environment(tmp_path, worker_modules):
    """Every standard-library name the helper imports, planted in its working directory and on PYTHONPATH
    (mypy's core names included), with PYTHONSTARTUP, sitecustomize and usercustomize: none runs."""
    markers = tmp_path / "markers"
    markers.mkdir()
    where = _project(tmp_path / "proj")
    names = _stdlib_names(worker_modules) | {"sitecustomize", "usercustomize"}
    _plant(where, names, markers)
    _plant(tmp_path / "on_path", names, markers)
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path / "on_path"),
        "PYTHONSTARTUP": str(where / "startup.py"),
        "PYTHONINSPECT": "1",
    }
    proc = subprocess.Popen(hooks.worker_command(), cwd=where, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdin is not None
        proc.stdin.write(b"A buggy.py\nE\n")
        proc.stdin.flush()
        answer = _answer(proc)
    finally:
        proc.kill()
        proc.wait()
    assert _codes(answer["buggy.py"]) == [(3, "NC201")]
    assert sorted(p.name for p in markers.iterdir()) == []
    assert len(names) >= 65


def _mypy(cwd: Path, args: list[str], env: dict[str, str] | None = None, flags: tuple[str, ...] = ("-P",)):
    done = subprocess.run(
        [sys.executable, *flags, "-m", "mypy", "--no-incremental", "--config-file", "mypy.ini", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    out = done.stdout + done.stderr
    assert "Traceback" not in out and "INTERNAL ERROR" not in out, out
    return done.returncode, out


@pytest.mark.slow
def test_mypy_with_the_plugin_runs_no_module_of_the_project(tmp_path, worker_modules):
    """mypy run from a project holding a module for every standard-library name the helper imports (mypy
    itself runs with -P, as the `mypy` script does, so that only the plugin could import them)."""
    markers = tmp_path / "markers"
    markers.mkdir()
    where = _project(tmp_path / "proj")
    _plant(where, _stdlib_names(worker_modules) - MYPY_CORE | {"sitecustomize", "usercustomize"}, markers)
    status, out = _mypy(where, ["buggy.py"])
    assert NC_ERROR.search(out), out
    assert status == 1, out
    assert sorted(p.name for p in markers.iterdir()) == []


@pytest.mark.slow
def test_mypy_with_the_plugin_ignores_a_pythonpath_of_planted_modules(tmp_path, worker_modules):
    markers = tmp_path / "markers"
    markers.mkdir()
    where = _project(tmp_path / "proj")
    planted = tmp_path / "planted"
    _plant(planted, _stdlib_names(worker_modules) | {"sitecustomize", "usercustomize"}, markers)
    env = {**os.environ, "PYTHONPATH": str(planted), "PYTHONSTARTUP": str(planted / "startup.py")}
    status, out = _mypy(where, ["buggy.py"], env, flags=("-I",))  # mypy itself ignores PYTHON* variables
    assert NC_ERROR.search(out), out
    assert sorted(p.name for p in markers.iterdir()) == []


# ---- reads and budgets ---------------------------------------------------------------------------------


def test_the_worker_keeps_the_configured_budgets_and_size_cap(tmp_path, monkeypatch):
    from namedcheck_mypy.worker import Build, _configured

    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\ntime-budget = 0.5\nmax-file-size = 1\n")
    paths = _files(tmp_path, buggy=BUGGY, huge=BUGGY + "#" * (1024 * 1024) + "\n")
    assert _configured(paths["buggy"])[1].time_budget == 0.5
    monkeypatch.delenv(hooks.WORKER_TIMEOUT, raising=False)
    assert hooks._allowance(paths["buggy"]) == 3 * 0.5 + 30
    monkeypatch.setenv(hooks.WORKER_TIMEOUT, "7")
    assert hooks._allowance(paths["buggy"]) == 7
    for bad in ("nan", "-1", "inf", "x"):
        monkeypatch.setenv(hooks.WORKER_TIMEOUT, bad)
        assert hooks._allowance(paths["buggy"]) == 3 * 0.5 + 30
    build = Build()
    build.add(paths["buggy"])
    build.add(paths["huge"])
    results = build.results()
    assert build.session.limits.time_budget == 0.5 and build.session.limits.max_file_size == 1
    assert _codes(results[paths["buggy"]]) == [(3, "NC201")]
    (huge,) = results[paths["huge"]][0]  # type: ignore[index]
    assert (huge.line, huge.code) == (1, "NC001") and "larger than 1 MB" in huge.message


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_or_a_vanished_file_is_never_read(tmp_path, quick):
    paths = _files(tmp_path, buggy=BUGGY)
    fifo = tmp_path / "fifo.py"
    os.mkfifo(fifo)
    assert not hooks._reported(str(fifo), "fifo")
    assert hooks._read_source(str(fifo)) is None and hooks._read_source(str(tmp_path / "gone.py")) is None
    worker = hooks._Worker()
    try:
        worker.submit(paths["buggy"])
        worker.note(str(fifo))
        assert _codes(worker.result(paths["buggy"])) == [(3, "NC201")]
        assert worker.result(str(fifo)) is None and worker.failures == {}
    finally:
        worker.close(kill=True)


# ---- hangs and crashes ---------------------------------------------------------------------------------


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setenv(hooks.WORKER_TIMEOUT, "3")


def _files(where: Path, **texts: str) -> dict[str, str]:
    where.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, text in texts.items():
        (where / f"{name}.py").write_text(text)
        paths[name] = str(where / f"{name}.py")
    return paths


def test_a_stalled_worker_costs_its_file_a_note_and_nothing_else(tmp_path, quick, monkeypatch):
    monkeypatch.setenv("NAMEDCHECK_TEST_WORKER_STALL", "stall_me")
    paths = _files(tmp_path, buggy=BUGGY, stall_me=FINE, fine=FINE)
    worker = hooks._Worker()
    try:
        for p in paths.values():
            worker.submit(p)
        start = time.monotonic()
        assert _codes(worker.result(paths["buggy"])) == [(3, "NC201")]
        took = time.monotonic() - start
        assert worker.result(paths["stall_me"]) is None
        assert worker.result(paths["fine"]) is None or _codes(worker.result(paths["fine"])) == []
        assert list(worker.failures) == [paths["stall_me"]]
        assert "did not finish within 3 s" in worker.failures[paths["stall_me"]]
        assert took < 3 * 3 + 60  # one allowance to find the stalled file, the others' analysis (generous)
        # the next update (dmypy) of another file does not wait for the stalled one again
        Path(paths["fine"]).write_text(FINE + "\n")
        worker.submit(paths["fine"])
        answers = []
        read = worker._read_answer
        monkeypatch.setattr(worker, "_read_answer", lambda: answers.append(read()))
        assert _codes(worker.result(paths["buggy"])) == [(3, "NC201")]
        assert len(answers) == 1  # one worker answered: none stalled
        assert list(worker.failures) == [paths["stall_me"]]
        # once edited, it is analysed again
        Path(paths["stall_me"]).write_text(FINE + "\n")
        worker.submit(paths["stall_me"])
        assert worker.result(paths["buggy"]) is not None and paths["stall_me"] in worker.failures
    finally:
        worker.close(kill=True)


def test_a_worker_crashing_in_a_file_costs_that_file_alone(tmp_path, quick, monkeypatch):
    monkeypatch.setenv("NAMEDCHECK_TEST_WORKER_CRASH", "crash_me")
    paths = _files(tmp_path, buggy=BUGGY, crash_me=BUGGY)
    worker = hooks._Worker()
    try:
        for p in paths.values():
            worker.submit(p)
        assert _codes(worker.result(paths["buggy"])) == [(3, "NC201")]
        assert worker.result(paths["crash_me"]) is None
        assert list(worker.failures) == [paths["crash_me"]]
        assert "ended abnormally" in worker.failures[paths["crash_me"]]
    finally:
        worker.close(kill=True)


def test_a_worker_killed_mid_request_is_replaced(tmp_path, quick):
    paths = _files(tmp_path, buggy=BUGGY, other=FINE)
    worker = hooks._Worker()
    try:
        for p in paths.values():
            worker.submit(p)
        assert worker.proc is not None
        os.kill(worker.proc.pid, signal.SIGKILL)
        assert _codes(worker.result(paths["buggy"])) == [(3, "NC201")]
        assert worker.failures == {}
    finally:
        worker.close(kill=True)


def test_a_stalled_file_is_left_out_and_the_answer_is_bounded(tmp_path, quick, monkeypatch):
    """The only file stalls: it gets the note, after one allowance."""
    monkeypatch.setenv("NAMEDCHECK_TEST_WORKER_STALL", "stall_me")
    paths = _files(tmp_path, stall_me=BUGGY)
    worker = hooks._Worker()
    start = time.monotonic()
    try:
        worker.submit(paths["stall_me"])
        assert worker.result(paths["stall_me"]) is None
    finally:
        worker.close(kill=True)
    assert time.monotonic() - start < 3 + 30
    assert "did not finish" in worker.failures[paths["stall_me"]]


def test_a_worker_that_never_answers_costs_a_bounded_wait_and_notes(tmp_path, monkeypatch):
    """A helper that says nothing at all (not even which file it is in): a few restarts, each within the
    allowance, then every file of the build gets the note."""
    monkeypatch.setenv(hooks.WORKER_TIMEOUT, "1")
    monkeypatch.setattr(hooks, "worker_command", lambda: [sys.executable, "-c", "import time; time.sleep(600)"])
    paths = _files(tmp_path, a=BUGGY, b=FINE)
    worker = hooks._Worker()
    start = time.monotonic()
    try:
        for p in paths.values():
            worker.submit(p)
        assert worker.result(paths["a"]) is None and worker.result(paths["b"]) is None
    finally:
        worker.close(kill=True)
    took = time.monotonic() - start
    assert (hooks._RESTARTS + 1) * 1 <= took < (hooks._RESTARTS + 1) * 1 + 30
    assert sorted(worker.failures) == sorted(paths.values())
    assert all("did not finish within 1 s" in why for why in worker.failures.values())


def test_a_worker_that_cannot_start_leaves_the_analysis_to_mypys_process(tmp_path, monkeypatch):
    monkeypatch.setattr(hooks, "worker_command", lambda: [str(tmp_path / "no such python")])
    paths = _files(tmp_path, buggy=BUGGY)
    worker = hooks._Worker()
    worker.submit(paths["buggy"])
    assert worker.failed and worker.proc is None
    with pytest.raises(KeyError):
        worker.result(paths["buggy"])
    assert _codes(worker.in_process(paths["buggy"])) == [(3, "NC201")]


def test_odd_paths_cannot_break_the_protocol(tmp_path, quick):
    """A line break in a file's name would start another request: that file has no result; a name that
    is not UTF-8 goes through as it is; a file named late (after the answer) is analysed by the worker."""
    paths = _files(tmp_path, buggy=BUGGY)
    odd = tmp_path / "two\nE\nB x.py"  # injected, the `E` would end the answer early
    odd.write_text(BUGGY)
    raw = os.fsdecode(bytes(tmp_path) + b"/caf\xe9.py")
    Path(raw).write_text(BUGGY)
    worker = hooks._Worker()
    try:
        worker.submit(paths["buggy"])
        worker.submit(str(odd))
        worker.submit(raw)
        assert _codes(worker.result(paths["buggy"])) == [(3, "NC201")]
        assert worker.result(str(odd)) is None
        assert _codes(worker.result(raw)) == [(3, "NC201")]
        late = tmp_path / "late.py"
        late.write_text(BUGGY)
        assert _codes(worker.result(str(late))) == [(3, "NC201")]
        assert worker.failures == {} and not worker.failed
    finally:
        worker.close(kill=True)


def test_a_file_deleted_between_requests_has_no_result(tmp_path, quick):
    paths = _files(tmp_path, buggy=BUGGY, gone=BUGGY)
    worker = hooks._Worker()
    try:
        for p in paths.values():
            worker.submit(p)
        assert _codes(worker.result(paths["gone"])) == [(3, "NC201")]
        os.unlink(paths["gone"])
        Path(paths["buggy"]).write_text(BUGGY + "\n")  # the next update (dmypy): the file changed
        worker.submit(paths["buggy"])
        assert _codes(worker.result(paths["buggy"])) == [(3, "NC201")]
        assert worker.result(paths["gone"]) is None
        assert worker.failures == {}
    finally:
        worker.close(kill=True)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds processes through /proc")
def test_the_worker_dies_with_its_parent_even_mid_file(tmp_path):
    paths = _files(tmp_path, stall_me=BUGGY)
    parent = textwrap.dedent(f"""\
        import sys, time
        from namedcheck_mypy import hooks
        w = hooks._Worker()
        w.submit({paths["stall_me"]!r})
        print(w.proc.pid, flush=True)
        time.sleep(600)
        """)
    env = {**os.environ, "NAMEDCHECK_TEST_WORKER_STALL": "stall_me"}
    proc = subprocess.Popen([sys.executable, "-c", parent], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        pid = int(proc.stdout.readline())
        time.sleep(1.0)  # the worker is in the file (stalled)
        assert _alive(pid)
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 20
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(pid)
    finally:
        proc.kill()


def test_the_worker_ends_when_its_stdin_closes_even_mid_file(tmp_path):
    paths = _files(tmp_path, stall_me=BUGGY)
    env = {**os.environ, "NAMEDCHECK_TEST_WORKER_STALL": "stall_me"}
    proc = subprocess.Popen(hooks.worker_command(), env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdin is not None
        proc.stdin.write(f"A {paths['stall_me']}\n".encode())
        proc.stdin.flush()
        time.sleep(1.0)
        assert proc.poll() is None
        proc.stdin.close()
        assert proc.wait(timeout=20) == 0
    finally:
        proc.kill()


@pytest.mark.slow
def test_mypy_reports_a_stalled_file_with_a_note_and_goes_on(tmp_path):
    where = _project(tmp_path / "proj")
    (where / "stall_me.py").write_text(FINE)
    env = {**os.environ, "NAMEDCHECK_TEST_WORKER_STALL": "stall_me", hooks.WORKER_TIMEOUT: "3"}
    start = time.monotonic()
    status, out = _mypy(where, ["buggy.py", "stall_me.py"], env)
    assert time.monotonic() - start < 120, out
    assert NC_ERROR.search(out), out
    assert re.search(r"^stall_me\.py:1:1: note: namedcheck: no diagnostics for this file: .*3 s", out, re.M), out
    assert status == 1  # buggy.py's error; the note alone changes nothing


@pytest.mark.slow
def test_dmypy_goes_on_after_a_stall_and_a_deleted_file(tmp_path):
    where = _project(tmp_path / "proj")
    # jax is not followed (dmypy with `follow_imports = skip` for jax alone crashes, plugin or not)
    (where / "mypy.ini").write_text(MYPY_INI.replace("[mypy-jax.*]\n", ""))
    other = where / "other.py"
    other.write_text("import jax.numpy as jnp\n\nz = jnp.ones(3) + jnp.ones(4)\n")
    (where / "stall_me.py").write_text(FINE)
    status_file = tmp_path / "dmypy.json"
    dmypy = [sys.executable, "-P", "-m", "mypy.dmypy", "--status-file", str(status_file)]
    env = {**os.environ, "NAMEDCHECK_TEST_WORKER_STALL": "stall_me", hooks.WORKER_TIMEOUT: "3"}

    def run(*files: str) -> str:
        done = subprocess.run(
            [*dmypy, "run", "--", "--config-file", "mypy.ini", *files],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        out = done.stdout + done.stderr
        assert "Traceback" not in out and "crashed" not in out, out
        return out

    try:
        first = run("buggy.py", "other.py", "stall_me.py")
        assert NC_ERROR.search(first) and "other.py:3:5: error" in first, first
        assert "stall_me.py:1:1: note: namedcheck: no diagnostics for this file" in first, first
        other.unlink()
        (where / "stall_me.py").unlink()
        second = run("buggy.py")
        assert NC_ERROR.search(second), second
        assert "other.py" not in second and "stall_me" not in second, second
        other.write_text("import jax.numpy as jnp\n\nz = jnp.ones(5) + jnp.ones(4)\n")
        third = run("buggy.py", "other.py")
        assert NC_ERROR.search(third) and "other.py:3:5: error" in third, third
    finally:
        subprocess.run([*dmypy, "kill"], cwd=where, capture_output=True, timeout=60)
