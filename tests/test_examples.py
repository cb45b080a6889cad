"""examples/ is clean; the buggy tour reports exactly the codes its comments announce."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from namedcheck.cli.config import load_config
from namedcheck.cli.main import run_check

ROOT = Path(__file__).resolve().parent.parent
ANNOUNCED = re.compile(r"#\s*(NC\d{3})\b")


def test_examples_are_clean(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert run_check(["examples"], load_config(ROOT), jobs=1) == []


def test_buggy_tour_reports_what_it_announces(monkeypatch):
    monkeypatch.chdir(ROOT)
    for path in sorted((ROOT / "examples" / "buggy").glob("*.py")):
        announced = {
            (i, m.group(1)) for i, line in enumerate(path.read_text().splitlines(), 1) if (m := ANNOUNCED.search(line))
        }
        got = {(d.line, d.code) for d in run_check([str(path)], load_config(ROOT), jobs=1)}
        assert got == announced, path.name


def test_runtime_example_runs_and_prints_the_tutorial_results():
    import os
    import subprocess
    import sys

    script = Path(__file__).parent.parent / "examples" / "xmap_tutorial.py"
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "named reduction: 400.0" in r.stdout and "sum_two_args on one resource: 16.0" in r.stdout
    losses = [float(line.rsplit(":", 1)[1]) for line in r.stdout.splitlines() if line.startswith("loss")]
    assert len(losses) == 4 and max(losses) - min(losses) < 1e-5


@pytest.mark.slow  # analyses the whole repository (about 20 s on 2 cores)
def test_check_dot_from_the_root_reports_nothing():
    """`namedcheck check .` in a fresh clone: the deliberately buggy inputs (examples/buggy, the test cases, the
    xmap error programs, the runtime-error tests) are left out by the project's own `[tool.namedcheck] exclude`."""
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "namedcheck", "check", ".", "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "All checks passed." in r.stdout


def test_readme_code_is_what_namedcheck_reads_clean():
    """The README's annotation examples are correct code: namedcheck reports nothing on them."""
    from namedcheck.analyzer.check import check_source
    from tests.test_ann_static_tools import readme_python

    assert check_source(readme_python(), "README.py", force=True) == []
