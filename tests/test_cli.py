"""The command line: formats, exit codes, suppression, configuration, parallel runs, explain."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from namedcheck.cli.main import main
from namedcheck.engine.codes import CODES

BAD = """import jax.numpy as jnp
from namedcheck import f32


def f(x: f32[(3, 4)], y: f32[(5,)]):
    return x + y


def g(x: f32[(), {'b': 4}], y: f32[(), {'b': 8}]):
    return x * y
"""


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "bad.py").write_text(BAD)
    (tmp_path / "pkg" / "good.py").write_text(
        "from namedcheck import f32\n\ndef f(x: f32[(3,)]) -> f32[(3,)]:\n    return x * 2\n"
    )
    (tmp_path / "pkg" / "unrelated.py").write_text("x = [1, 2] + 3\n")
    return tmp_path


def test_json_format_is_sorted_and_complete(project, capsys):
    code, out, _ = run(capsys, "check", "pkg", "--format", "json", "-j", "1")
    assert code == 1
    data = json.loads(out)
    assert [(d["line"], d["code"]) for d in data] == [(6, "NC201"), (10, "NC202")]
    first = data[0]
    assert set(first) == {
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "code",
        "message",
        "hint",
        "severity",
        "url",
        "data",
        "related",
    }
    assert first["path"] == str(Path("pkg") / "bad.py")
    assert (first["column"], first["end_column"]) == (12, 17)
    assert first["severity"] == "error"


def test_text_format_shows_source_caret_and_hint(project, capsys):
    code, out, _ = run(capsys, "check", "pkg/bad.py")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("pkg/bad.py:6:12: NC201 Cannot broadcast positional shapes (3, 4)")
    assert "    return x + y" in lines[2]
    assert lines[3].endswith("^^^^^")
    assert any(ln.strip().startswith("= hint:") for ln in lines)
    assert lines[-2] == "Found 2 errors."
    assert lines[-1].startswith("Checked 1 file (1 analysed) in ")
    # both wrong operations are array expressions whose shapes the checker cannot know
    assert lines[-1].endswith(" s: 2 errors in 1 file; shapes known for 0% of 2 array expressions (ranks for 0%)")


def test_clean_run_exits_zero(project, capsys):
    code, out, _ = run(capsys, "check", "pkg/good.py", "pkg/unrelated.py")
    assert code == 0
    assert "All checks passed." in out


def test_missing_path_is_a_usage_error(project, capsys):
    code, _, err = run(capsys, "check", "nope/")
    assert code == 2
    assert "nope/" in err


def test_unparsable_file_is_one_diagnostic_and_run_goes_on(project, capsys):
    (project / "pkg" / "broken.py").write_text("from namedcheck import f32\ndef f(:\n")
    code, out, _ = run(capsys, "check", "pkg", "--format", "json", "-j", "1")
    data = json.loads(out)
    assert code == 1
    assert ("broken.py", "NC001") in {(Path(d["path"]).name, d["code"]) for d in data}
    assert {d["code"] for d in data} >= {"NC201", "NC202"}


def test_internal_error_is_nc000_and_run_goes_on(project, capsys, monkeypatch):
    import namedcheck.analyzer.module as module

    def boom(self):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(module.ModuleAnalyzer, "run", boom)
    code, out, _ = run(capsys, "check", "pkg", "--format", "json", "-j", "1")
    data = json.loads(out)
    assert code == 1
    assert {d["code"] for d in data} == {"NC000"}
    assert "kaboom" in data[0]["message"] and "report" in data[0]["message"]


def test_select_and_ignore(project, capsys):
    _, out, _ = run(capsys, "check", "pkg", "--format", "json", "--select", "NC202")
    assert [d["code"] for d in json.loads(out)] == ["NC202"]
    _, out, _ = run(capsys, "check", "pkg", "--format", "json", "--ignore", "NC2")
    assert json.loads(out) == []


def test_suppression_comments(project, capsys):
    src = BAD.replace("return x + y", "return x + y  # namedcheck: ignore[NC201]").replace(
        "return x * y", "return x * y  # namedcheck: ignore[NC3]"
    )
    (project / "pkg" / "bad.py").write_text(src)
    _, out, _ = run(capsys, "check", "pkg/bad.py", "--format", "json")
    # NC3 does not cover NC202, and silences nothing there: NC002
    assert [d["code"] for d in json.loads(out)] == ["NC202", "NC002"]
    (project / "pkg" / "bad.py").write_text(src.replace("# namedcheck: ignore[NC3]", "# namedcheck: ignore"))
    code, out, _ = run(capsys, "check", "pkg/bad.py", "--format", "json")
    assert code == 0 and json.loads(out) == []


def test_pyproject_configuration(project, capsys):
    (project / "pyproject.toml").write_text('[tool.namedcheck]\nignore = ["NC202"]\nexclude = ["pkg/skip"]\n')
    (project / "pkg" / "skip").mkdir()
    (project / "pkg" / "skip" / "bad2.py").write_text(BAD)
    _, out, _ = run(capsys, "check", "pkg", "--format", "json")
    data = json.loads(out)
    assert [(Path(d["path"]).name, d["code"]) for d in data] == [("bad.py", "NC201")]


def test_bad_configuration_is_a_usage_error(project, capsys):
    (project / "pyproject.toml").write_text('[tool.namedcheck]\nselct = ["NC2"]\n')
    code, _, err = run(capsys, "check", "pkg")
    assert code == 2 and "selct" in err


def test_user_stub_paths(project, capsys):
    (project / "mystubs").mkdir()
    (project / "mystubs" / "mylib.pyi").write_text(
        "from namedcheck import f32\n\ndef project(x: f32[('N', 3)]) -> f32[('N', 2)]: ...\n"
    )
    (project / "pyproject.toml").write_text('[tool.namedcheck]\nstub-paths = ["mystubs"]\n')
    (project / "pkg" / "use.py").write_text(
        "import jax.numpy as jnp\nfrom mylib import project\nfrom namedcheck import f32\n\n"
        "ok: f32[(5, 2)] = project(jnp.zeros((5, 3)))\n"
        "bad = project(jnp.zeros((5, 4)))\n"
    )
    _, out, _ = run(capsys, "check", "pkg/use.py", "--format", "json")
    assert [(d["line"], d["code"]) for d in json.loads(out)] == [(6, "NC203")]


def test_parallel_output_equals_serial(project, capsys):
    for i in range(12):
        (project / "pkg" / f"copy{i}.py").write_text(BAD)
    _, serial, _ = run(capsys, "check", "pkg", "--format", "json", "-j", "1")
    _, parallel, _ = run(capsys, "check", "pkg", "--format", "json", "-j", "4")
    assert serial == parallel
    assert len(json.loads(serial)) == 26


def test_sarif_and_github_formats(project, capsys):
    _, out, _ = run(capsys, "check", "pkg/bad.py", "--format", "sarif")
    sarif = json.loads(out)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["NC201", "NC202"]
    _, out, _ = run(capsys, "check", "pkg/bad.py", "--format", "github")
    assert out.splitlines()[0].startswith("::error file=pkg/bad.py,line=6,col=12")


@pytest.mark.parametrize("code", sorted(CODES))
def test_explain_every_code(capsys, code):
    rc, out, _ = run(capsys, "explain", code.lower())
    assert rc == 0
    assert out.startswith(f"{code}: {CODES[code].title}")
    if CODES[code].wrong:
        assert "Wrong:" in out and "Right:" in out


def test_explain_unknown_code(capsys):
    rc, _, err = run(capsys, "explain", "NC999")
    assert rc == 2 and "unknown code" in err


def test_explain_examples_are_what_they_claim(tmp_path):
    """Each explain text's wrong example raises its code, and the right example is clean."""
    from namedcheck.analyzer.check import check_source

    header = (
        "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\n"
        "from jax.experimental.maps import xmap\nfrom jax.sharding import Mesh\n"
        "from jax.sharding import PartitionSpec as P\nfrom jax import Array\nfrom namedcheck import Dims, f32, i32\n"
        "mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))\n"
    )
    for c in CODES.values():
        if not c.wrong or c.code in ("NC001",):
            continue
        wrong = check_source(header + c.wrong + "\n", "w.py", force=True)
        right = check_source(header + c.right + "\n", "r.py", force=True)
        assert c.code in {d.code for d in wrong}, (c.code, [d.code for d in wrong])
        assert right == [], (c.code, [d.message for d in right])


def test_console_script_version():
    out = subprocess.run([sys.executable, "-m", "namedcheck", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("namedcheck ")


def test_cache_hit_skips_analysis_and_gives_the_same_result(project, capsys, monkeypatch):
    _, first, _ = run(capsys, "check", "pkg", "--format", "json", "-j", "1")
    assert (project / ".namedcheck_cache" / ".gitignore").exists()
    import namedcheck.analyzer.check as check

    original = check.check_source

    def no_analysis(*a, **k):
        raise AssertionError("a cached file was analysed again")

    monkeypatch.setattr(check, "check_source", no_analysis)
    _, second, _ = run(capsys, "check", "pkg", "--format", "json", "-j", "1")
    assert first == second
    # An edited file misses the cache.
    (project / "pkg" / "bad.py").write_text(BAD.replace("f32[(5,)]", "f32[(4,)]"))
    monkeypatch.setattr(check, "check_source", original)
    _, third, _ = run(capsys, "check", "pkg", "--format", "json", "-j", "1")
    assert [d["code"] for d in json.loads(third)] == ["NC202"]
    _, fourth, _ = run(capsys, "check", "pkg", "--format", "json", "-j", "1", "--no-cache")
    assert third == fourth


def test_stdin_for_editors(project, capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(BAD))
    code, out, _ = run(capsys, "check", "-", "--stdin-filename", "pkg/buffer.py")
    assert code == 1
    assert out.splitlines()[0].startswith("pkg/buffer.py:6:12: NC201")
    assert "    return x + y" in out


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_sigterm_still_prints_a_document(tmp_path, fmt):
    """SIGTERM (a CI job's timeout) ends a run as Ctrl-C does: a note on stderr, an empty document on stdout
    for json / sarif (never nothing), exit 143. Here the run waits on a standard input that never ends."""
    import os
    import signal
    import time

    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\n")
    env = {**os.environ, "NAMEDCHECK_NO_DAEMON": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "namedcheck", "check", "-", "--stdin-filename", "a.py", "--format", fmt, "--no-cache"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None
    proc.stdin.write("import jax.numpy as jnp\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _catches(proc.pid, signal.SIGTERM):  # started: now reading
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    doc = json.loads(out)
    assert doc == [] if fmt == "json" else doc["runs"][0]["results"] == []
    assert "interrupted" in err


def _catches(pid: int, sig: int) -> bool:
    """Whether the process has a handler for `sig` (Linux: /proc/PID/status SigCgt); else after a while."""
    try:
        with open(f"/proc/{pid}/status") as f:
            mask = next(int(ln.split()[1], 16) for ln in f if ln.startswith("SigCgt:"))
    except (OSError, StopIteration, ValueError):
        import time

        time.sleep(3)
        return True
    return bool(mask >> (sig - 1) & 1)
