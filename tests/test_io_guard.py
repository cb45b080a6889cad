"""Every read through one guarded reader (regular files only, a size cap, no blocking): imported modules,
stubs, standard input, `infer`; a cache no check can poison; workers that die with their parent and a pool
that survives a crashed worker; a command whose json / sarif output is always a document."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from namedcheck.analyzer.budget import Limits
from namedcheck.cli import runner
from namedcheck.cli.main import main

HEADER = "import jax.numpy as jnp\nfrom namedcheck import f32\n"
BAD = HEADER + "\ndef f(x: f32[(3, 4)], y: f32[(5,)]):\n    return x + y\n"  # one NC201, line 5


def _run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def _codes(out: str) -> list[tuple[str, str]]:
    return sorted((Path(d["path"]).name, d["code"]) for d in json.loads(out))


# ---- the guarded reader -------------------------------------------------------------------------------


def test_the_reader_reads_only_regular_files_under_the_cap(tmp_path) -> None:
    from namedcheck.analyzer.sources import Unreadable, read_bytes, read_regular

    f = tmp_path / "a.py"
    f.write_bytes(b"x = 1\n" * 1000)
    assert read_bytes(f, 6000) == b"x = 1\n" * 1000
    # a cap far past memory allocates nothing of its size (`max-file-size = 100000` was an internal error)
    assert read_regular(str(f), 10**14) == b"x = 1\n" * 1000
    with pytest.raises(Unreadable, match="larger than 5999 bytes") as e:
        read_bytes(f, 5999)
    assert e.value.too_large
    os.mkfifo(tmp_path / "fifo.py")
    with pytest.raises(Unreadable, match="it is a FIFO, not a regular file"):
        read_bytes(tmp_path / "fifo.py", 100)
    with pytest.raises(Unreadable, match="it is a character device, not a regular file"):
        read_bytes("/dev/zero", 100)
    (tmp_path / "loop.py").symlink_to("loop.py")
    with pytest.raises(OSError, match="symbolic links"):
        read_bytes(tmp_path / "loop.py", 100)


def test_writes_are_atomic_keep_links_and_never_overwrite_a_newer_save(tmp_path) -> None:
    from namedcheck.analyzer.sources import Unreadable, write_regular

    real = tmp_path / "real.py"
    real.write_text("old\n")
    real.chmod(0o640)
    (tmp_path / "link.py").symlink_to(real)
    write_regular(tmp_path / "link.py", b"new\n", expected=b"old\n")
    assert (tmp_path / "link.py").is_symlink() and real.read_text() == "new\n"
    assert real.stat().st_mode & 0o777 == 0o640
    with pytest.raises(Unreadable, match="changed since it was read"):
        write_regular(real, b"mine\n", expected=b"old\n")
    assert real.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.py", "real.py"]  # no temporary file left


# ---- imported modules ---------------------------------------------------------------------------------


def _project(tmp_path: Path, dep: str, main_text: str | None = None) -> Path:
    (tmp_path / "pyproject.toml").write_text("")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "dep.py").write_text(dep)
    (pkg / "main.py").write_text(
        main_text or HEADER + "from pkg.dep import N\n\nx = jnp.ones(N) + jnp.ones(4)\ny = jnp.ones(2) + jnp.ones(5)\n"
    )
    return pkg


def test_an_imported_module_over_the_cap_is_unknown_not_a_failure(tmp_path, capsys, monkeypatch) -> None:
    from namedcheck.analyzer import project

    monkeypatch.setattr(project, "MAX_SCANNED_BYTES", 1024 * 1024)  # the 5 MB cap, scaled down
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, "N = 3\n" + "# padding\n" * 150_000)  # 1.5 MB
    code, out, err = _run(capsys, "check", "--format", "json", "pkg/main.py")
    # N is Unknown (no NC201 on line 5), line 6 still reported, nothing about the big module
    assert code == 1 and [(d["line"], d["code"]) for d in json.loads(out)] == [(6, "NC201")]
    assert err == ""


@pytest.mark.parametrize(
    "dep",
    [
        "N = " + " + ".join(["1"] * 5000),  # RecursionError in the import scan: the whole run was lost
        "N = " + "-" * 100_000 + "3",
        "N = 3\n",  # the control: the dependency's value reaches line 5
    ],
    ids=["5,000-term chain", "100,000 unary minus", "plain"],
)
def test_a_deeply_chained_imported_module_costs_nothing_else(tmp_path, capsys, monkeypatch, dep: str) -> None:
    monkeypatch.chdir(tmp_path)
    _project(tmp_path, dep)
    code, out, err = _run(capsys, "check", "--format", "json", "pkg/main.py")  # the cache on: the import scan runs
    lines = [(d["line"], d["code"]) for d in json.loads(out)]
    assert code == 1 and "internal error" not in err
    assert lines == ([(5, "NC201"), (6, "NC201")] if dep == "N = 3\n" else [(6, "NC201")])


def test_an_imported_symlink_loop_is_unknown(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    pkg = _project(tmp_path, "N = 3\n", HEADER + "from pkg import loop\n\ny = jnp.ones(2) + jnp.ones(5)\n")
    (pkg / "loop.py").symlink_to("loop.py")
    code, out, _ = _run(capsys, "check", "--format", "json", "pkg/main.py")
    assert code == 1 and [(d["line"], d["code"]) for d in json.loads(out)] == [(5, "NC201")]


# ---- stubs ----------------------------------------------------------------------------------------------


def _bad_stub(stubs: Path, kind: str) -> str:
    f = stubs / "jax.mine.pyi"
    if kind == "fifo":
        os.mkfifo(f)
        return "cannot be read: it is a FIFO, not a regular file"
    if kind == "dev-zero":
        f.symlink_to("/dev/zero")
        return "cannot be read: it is a character device, not a regular file"
    if kind == "dangling":
        f.symlink_to(stubs / "nowhere.pyi")
        return "cannot be read: No such file or directory"
    if kind == "syntax":
        f.write_text("def ok(x: f32[(3,)]) -> f32[(3,)]: ...\ndef f(x:\n")
        return ":2: invalid syntax"
    if kind == "deep":
        f.write_text("x = " + "-" * 100_000 + "1\n")
        return "nested too deeply"
    f.write_text("def f(x) -> f32[(3,)]: ...\n" * 10 + "x = '" + "#" * (6 * 1024 * 1024) + "'\n")
    return "cannot be read: it is larger than 5 MB"


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "dangling", "syntax", "deep", "huge"])
def test_a_bad_stub_is_one_clear_error(tmp_path, capsys, monkeypatch, kind: str) -> None:
    """As mypy stops at a stub it cannot parse: exit 2, one message naming the file, where and what is wrong
    and what to do; never a hang (FIFO), a false pass (/dev/zero) or every file's NC000 (a syntax error)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.namedcheck]\nstub-paths = ["stubs"]\n')
    (tmp_path / "stubs").mkdir()
    what = _bad_stub(tmp_path / "stubs", kind)
    (tmp_path / "ok.py").write_text(BAD)
    start = time.monotonic()
    code, out, err = _run(capsys, "check", "--format", "json", "ok.py")
    assert time.monotonic() - start < 30
    assert code == 2 and out == "[]\n"
    assert err.count("\n") == 1 and err.startswith("namedcheck: error: a stub file cannot be used: ")
    assert str(tmp_path / "stubs" / "jax.mine.pyi") in err and what in err
    assert "stub-paths in " + str(tmp_path / "pyproject.toml") in err and "hint:" in err
    for command in (["coverage"], ["infer"]):
        assert main([*command, "ok.py"]) == 2
        assert what in capsys.readouterr().err


# ---- standard input -------------------------------------------------------------------------------------


def _stdin_run(tmp_path: Path, stdin, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "namedcheck", "check", "-", "--format", "json", *args],
        stdin=stdin,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )


def test_dev_zero_on_stdin_stops_at_the_cap(tmp_path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\nmax-file-size = 1\n")
    with open("/dev/zero", "rb") as zero:
        r = _stdin_run(tmp_path, zero, "--stdin-filename", "buf.py")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    [d] = json.loads(r.stdout)
    assert (d["path"], d["code"]) == ("buf.py", "NC001") and "larger than 1 MB" in d["message"]


def test_an_idle_fifo_on_stdin_ends_the_run(tmp_path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\ntime-budget = 0.5\n")
    os.mkfifo(tmp_path / "in")
    fd = os.open(tmp_path / "in", os.O_RDWR)  # a writer that never writes nor closes
    try:
        start = time.monotonic()
        r = _stdin_run(tmp_path, fd)
        assert time.monotonic() - start < 30
    finally:
        os.close(fd)
    assert r.returncode == 2 and r.stdout == "[]\n"
    assert "standard input cannot be read: no data arrived for 1.5 s" in r.stderr


def test_a_closed_stdin_is_a_clear_error(tmp_path) -> None:
    r = subprocess.run(
        f"exec {sys.executable} -m namedcheck check - --format json <&-",
        shell=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert r.returncode == 2 and r.stdout == "[]\n"
    assert "namedcheck: error: standard input cannot be read: it is closed" in r.stderr


def test_stdin_is_still_read_whole(tmp_path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "namedcheck", "check", "-", "--format", "json"],
        input=BAD,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert r.returncode == 1 and [(d["line"], d["code"]) for d in json.loads(r.stdout)] == [(5, "NC201")]


def test_stdin_with_a_coding_line_is_decoded_as_python_does(tmp_path) -> None:
    """A latin-1 buffer with its PEP 263 coding line on stdin is valid Python: checked, not 'not UTF-8'."""
    source = ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + BAD).encode("latin-1")
    r = subprocess.run(
        [sys.executable, "-m", "namedcheck", "check", "-", "--format", "json"],
        input=source,
        capture_output=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert r.returncode == 1 and [(d["line"], d["code"]) for d in json.loads(r.stdout)] == [(7, "NC201")]


# ---- infer ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_infer_never_reads_special_files(tmp_path, capsys, monkeypatch, kind: str) -> None:
    monkeypatch.chdir(tmp_path)
    if kind == "fifo":
        os.mkfifo(tmp_path / "f.py")
    else:
        (tmp_path / "f.py").symlink_to("/dev/zero")
    (tmp_path / "g.py").write_text(HEADER + "\ndef g():\n    return jnp.ones((2, 3))\n")
    code, out, err = _run(capsys, "infer", "f.py", "g.py")
    assert code == 2 and "f.py: cannot read: it is a" in err and "not a regular file" in err
    assert out.startswith("g.py:4:") and "Would annotate 1 site in 1 file." in err  # the other file still done


def test_infer_write_keeps_a_save_made_while_it_ran(tmp_path, capsys, monkeypatch) -> None:
    from namedcheck.edits import infer

    monkeypatch.chdir(tmp_path)
    f = tmp_path / "m.py"
    f.write_text(BAD)

    def saved_meanwhile(source, *a, **k):
        f.write_text(BAD + "# the user's edit\n")
        return source + "# annotated\n", []

    monkeypatch.setattr(infer, "infer_source", saved_meanwhile)
    code, _, err = _run(capsys, "infer", "--write", "m.py")
    assert code == 2 and "m.py: cannot write: it changed since it was read; not written" in err
    assert f.read_text() == BAD + "# the user's edit\n"


def test_infer_leaves_what_check_refuses_and_goes_on(tmp_path, capsys, monkeypatch) -> None:
    """A file over max-file-size and a file the guard refuses as a whole (as `check` does, one NC001 there)
    are said on stderr and left as they are, without failing the command or costing the budget; the other
    files are annotated."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\nmax-file-size = 1\n")
    (tmp_path / "big.py").write_text(HEADER + "x = 1  # " + "y" * (1024 * 1024) + "\n")
    (tmp_path / "chain.py").write_text(HEADER + "y = " + " and ".join(["a"] * 20_000) + "\n")
    (tmp_path / "g.py").write_text(HEADER + "\ndef g():\n    return jnp.ones((2, 3))\n")
    started = time.monotonic()
    code, out, err = _run(capsys, "infer", "big.py", "chain.py", "g.py")
    assert code == 0 and out.startswith("g.py:4:"), (code, out, err)
    assert "big.py: not annotated: it is larger than 1 MB" in err
    assert "chain.py: not annotated: line " in err
    assert "Would annotate 1 site in 1 file." in err
    assert time.monotonic() - started < 60


def test_infer_write_keeps_a_files_declared_encoding(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    source = "# -*- coding: latin-1 -*-\n# caf\xe9\n" + HEADER + "\ndef g():\n    return jnp.ones((2, 3))\n"
    (tmp_path / "g.py").write_bytes(source.encode("latin-1"))
    code, _, err = _run(capsys, "infer", "--write", "g.py")
    assert code == 0 and "Annotated 1 site in 1 file." in err
    written = (tmp_path / "g.py").read_bytes()
    assert b"caf\xe9" in written and "-> f32[Array, Dims(2, 3)]" in written.decode("latin-1")


# ---- the result cache -----------------------------------------------------------------------------------


def _fresh_process_state() -> None:
    from namedcheck.analyzer import project, session

    project._PROJECTS.clear()
    session._SESSIONS.clear()


def test_a_dependency_saved_during_a_check_does_not_poison_the_cache(tmp_path, monkeypatch) -> None:
    from namedcheck.analyzer.session import Session

    monkeypatch.chdir(tmp_path)
    pkg = _project(tmp_path, "N = 3\n")
    job = runner.Job("pkg/main.py", str(pkg / "main.py"), (), str(tmp_path), Limits(), (str(tmp_path),))
    real_check = Session.check

    def saved_while_checking(self, *a, **k):
        (pkg / "dep.py").write_text("N = 4\n")  # an editor saves the dependency mid-check
        return real_check(self, *a, **k)

    _fresh_process_state()
    with monkeypatch.context() as m:
        m.setattr(Session, "check", saved_while_checking)
        assert [(d.line, d.code) for d in runner.check_file(job)] == [(6, "NC201")]  # it read N = 4
    entries = [p for p in (tmp_path / ".namedcheck_cache").rglob("*") if p.is_file() and p.name != ".gitignore"]
    assert entries == []  # the key names N = 3: nothing stored under it
    (pkg / "dep.py").write_text("N = 3\n")
    _fresh_process_state()
    assert [(d.line, d.code) for d in runner.check_file(job)] == [(5, "NC201"), (6, "NC201")]
    _fresh_process_state()
    assert [(d.line, d.code) for d in runner.check_file(job)] == [(5, "NC201"), (6, "NC201")]  # now cached
    entries = [p for p in (tmp_path / ".namedcheck_cache").rglob("*") if p.is_file() and p.name != ".gitignore"]
    assert len(entries) == 1


def test_a_dependency_saved_and_restored_during_a_check_does_not_poison_the_cache(tmp_path, monkeypatch) -> None:
    """Saved A -> B -> A while the check runs: the key (made before) and the disk (after) both say A, but the
    analysis read B; the result is not stored, and the next run reads A."""
    from namedcheck.analyzer.project import Project

    monkeypatch.chdir(tmp_path)
    pkg = _project(tmp_path, "N = 3\n")
    job = runner.Job("pkg/main.py", str(pkg / "main.py"), (), str(tmp_path), Limits(), (str(tmp_path),))
    real_read = Project.read_text

    def flipped_while_read(self, path):
        if path.name != "dep.py":
            return real_read(self, path)
        (pkg / "dep.py").write_text("N = 4\n")
        try:
            return real_read(self, path)
        finally:
            (pkg / "dep.py").write_text("N = 3\n")
            os.utime(pkg / "dep.py", ns=(time.time_ns(), time.time_ns() + 10**9))  # a later save of A

    _fresh_process_state()
    with monkeypatch.context() as m:
        m.setattr(Project, "read_text", flipped_while_read)
        assert [(d.line, d.code) for d in runner.check_file(job)] == [(6, "NC201")]  # it read N = 4
    entries = [p for p in (tmp_path / ".namedcheck_cache").rglob("*") if p.is_file() and p.name != ".gitignore"]
    assert entries == []
    _fresh_process_state()
    assert [(d.line, d.code) for d in runner.check_file(job)] == [(5, "NC201"), (6, "NC201")]


def test_a_full_disk_leaves_no_temporary_file_in_the_cache(tmp_path, capsys, monkeypatch) -> None:
    from namedcheck.cli import cache

    def full(fd: int, data: bytes) -> None:
        os.write(fd, data[:100])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache, "_write_all", full)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("")
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text(BAD)
    code, out, _ = _run(capsys, "check", "--format", "json", ".")
    assert code == 1 and _codes(out) == [("m0.py", "NC201"), ("m1.py", "NC201"), ("m2.py", "NC201")]
    left = sorted(p.name for p in (tmp_path / ".namedcheck_cache").rglob("*") if p.is_file())
    assert left == [".gitignore", "files-v1.json"]  # no entry, no temporary file (the file facts are not entries)


# ---- workers --------------------------------------------------------------------------------------------

_SLOW_RUN = """
import sys, time
from namedcheck.analyzer.budget import Limits
from namedcheck.cli import runner

def slow(job):
    time.sleep(300)
    return []

runner.check_file = slow
runner.cached_result = lambda job: None  # (the files do not exist: every one goes to a worker)
if "fallback" in sys.argv:  # no PR_SET_PDEATHSIG (as off Linux): the watching thread alone
    sys.platform = "darwin"
jobs = [runner.Job(f"m{i}.py", f"m{i}.py", (), None, Limits()) for i in range(12)]
runner.check_all(jobs, 2)
"""


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                out.append(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie nobody reaps (PID 1 in a container) runs no more


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["pdeathsig", "fallback"])
def test_workers_die_with_a_killed_parent(how: str) -> None:
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_RUN, how])
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = _children(proc.pid)
        assert len(workers) == 2
        time.sleep(0.5)  # past the workers' initializer
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 5
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [w for w in workers if _alive(w)] == []
    finally:
        if proc.poll() is None:
            proc.kill()
        for w in workers:  # never left behind by a failing test
            if _alive(w) and b"runner.check_all" in Path(f"/proc/{w}/cmdline").read_bytes():
                os.kill(w, signal.SIGKILL)


def test_a_crashed_worker_does_not_make_the_run_serial(tmp_path, monkeypatch) -> None:
    for i in range(40):
        (tmp_path / f"m{i:02}.py").write_text(BAD)
    original = runner.check_file
    alone: list[str] = []
    real_isolated = runner.isolated

    def crashing(job):  # the fault a native parser's stack overflow gives
        if job.display.endswith("m07.py"):
            import faulthandler

            faulthandler.disable()
            os.kill(os.getpid(), signal.SIGSEGV)
        return original(job)

    def counted(job):
        alone.append(Path(job.display).name)
        return real_isolated(job)

    monkeypatch.setattr(runner, "check_file", crashing)
    monkeypatch.setattr(runner, "isolated", counted)
    jobs = [runner.Job(str(p), str(p), (), None, Limits()) for p in sorted(tmp_path.glob("*.py"))]
    diags = runner.check_all(jobs, 2)
    assert sorted((Path(d.path).name, d.code) for d in diags) == sorted(
        [(f"m{i:02}.py", "NC201") for i in range(40) if i != 7] + [("m07.py", "NC001")]
    )
    # only the crashing file (and at most one that ran beside it when it crashed again) is checked alone;
    # the other 38 ran in the rebuilt pool (before: every file after the crash, one process each)
    assert "m07.py" in alone and len(alone) <= 2


def test_a_failure_outside_the_analysis_costs_one_file(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(BAD)
    real = runner._check_file

    def failing(job):  # the import scan, the cache key, a read: anything outside Session.check
        if job.display.endswith("a.py"):
            raise RecursionError("maximum recursion depth exceeded during ast construction")
        return real(job)

    monkeypatch.setattr(runner, "_check_file", failing)
    code, out, err = _run(capsys, "check", "--no-cache", "--format", "json", ".")
    assert code == 1 and _codes(out) == [("a.py", "NC000"), ("b.py", "NC201")]
    assert "RecursionError" in json.loads(out)[0]["message"] and "internal error" not in err


# ---- the command's output -------------------------------------------------------------------------------


def test_a_missing_path_is_a_diagnostic_and_the_rest_is_checked(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.py").write_text(BAD)
    code, out, err = _run(capsys, "check", "--no-cache", "--format", "json", "nope.py", "ok.py")
    assert code == 2 and _codes(out) == [("nope.py", "NC001"), ("ok.py", "NC201")]
    assert "nope.py: Path cannot be read: No such file or directory" in err


@pytest.mark.parametrize(
    "args, toml, said",
    [
        (["--select", "ZZ"], "", "--select names no known code: ZZ"),
        ([], "[tool.namedcheck]\nselect = 5\n", "select must be a list of strings"),
        ([], "[tool.namedcheck\n", "cannot read [tool.namedcheck]"),
    ],
    ids=["bad --select", "bad config value", "broken toml"],
)
@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_an_error_still_prints_a_document(tmp_path, capsys, monkeypatch, args, toml, said, fmt) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(toml)
    (tmp_path / "ok.py").write_text(BAD)
    code, out, err = _run(capsys, "check", "--format", fmt, *args, "ok.py")
    assert code == 2 and said in err
    doc = json.loads(out)
    assert doc == [] if fmt == "json" else doc["runs"][0]["results"] == []


def test_coverage_json_is_a_document_on_error(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck\n")
    code, out, _ = _run(capsys, "coverage", "--format", "json", ".")
    assert code == 2 and json.loads(out)["total"]["files"] == 0


def test_a_file_removed_during_the_run_is_one_diagnostic(tmp_path, capsys, monkeypatch) -> None:
    from namedcheck.cli import main as cli_main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.py").write_text(BAD)
    real = cli_main.discover

    def listed_then_renamed(*a, **k):  # an editor's rename-save between the listing and the read
        files, missing = real(*a, **k)
        return [*files, ("gone.py", tmp_path / "gone.py")], missing

    monkeypatch.setattr(cli_main, "discover", listed_then_renamed)
    code, out, err = _run(capsys, "check", "--no-cache", "--format", "json", ".")
    assert code == 1 and _codes(out) == [("gone.py", "NC001"), ("ok.py", "NC201")]
    [gone] = [d for d in json.loads(out) if d["code"] == "NC001"]
    assert "removed or renamed during the run" in gone["message"] and err == ""


@pytest.mark.parametrize(
    "line, said",
    [
        ("max-file-size = 100000", "max-file-size must be an integer of MB from 1 to 1024; found 100000"),
        ("time-budget = nan", "time-budget must be a finite number of seconds from 0.1 to 86400; found nan"),
        ("time-budget = inf", "found inf"),
        ("memory-budget = 0", "memory-budget must be an integer of MB from 64 to 1.04858e+06; found 0"),
    ],
)
def test_config_numbers_are_finite_and_in_range(tmp_path, capsys, monkeypatch, line: str, said: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(f"[tool.namedcheck]\n{line}\n")
    (tmp_path / "ok.py").write_text(BAD)
    code, out, err = _run(capsys, "check", "--format", "json", "ok.py")
    assert code == 2 and out == "[]\n" and said in err and "internal error" not in err


@pytest.mark.parametrize("fmt", ["text", "github", "coverage"])
def test_control_characters_in_file_names_are_escaped(tmp_path, capsys, monkeypatch, fmt: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad\x1b[2J\u202e.py").write_text(BAD)
    args = ["coverage", "--no-cache", "."] if fmt == "coverage" else ["check", "--no-cache", "--format", fmt, "."]
    code, out, _ = _run(capsys, *args)
    assert code == (0 if fmt == "coverage" else 1) and "\x1b" not in out and "\u202e" not in out
    assert "bad\\x1b[2J\\u202e.py" in out
