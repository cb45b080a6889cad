"""The short spelling `f32[Array, Dims(...)]` is clean under the tools users already run: ruff (default
rules plus F and UP, with and without `from __future__ import annotations`, and `--fix` changes nothing),
basedpyright (standard mode: zero diagnostics; its default settings: no error) and mypy without the plugin, over examples/, the README's code and a
spelling file holding every form; and namedcheck still reads it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # runs basedpyright, ruff and mypy

ROOT = Path(__file__).parent.parent
SPELLING = ROOT / "tests" / "cases" / "ann_spelling_clean.py"
EXAMPLES = sorted((ROOT / "examples").rglob("*.py"))  # the buggy tour too: its bugs are shapes, not types
BIN = Path(sys.executable).parent
RUFF_RULES = ["--isolated", "--select", "E4,E7,E9,F,UP", "--target-version", "py311", "--output-format", "concise"]


def _with_future(path: Path) -> str:
    """The file with `from __future__ import annotations` before its first import."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.startswith(("import ", "from ")))
    return "".join(lines[:first] + ["from __future__ import annotations\n\n"] + lines[first:])


def readme_python() -> str:
    """The README's Python code blocks, as one module (what a reader copies)."""
    import re

    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    assert blocks, "the README shows the annotation language in a ```python block"
    return "\n\n".join(blocks)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/, the spelling file and the README's code, each as written and with the future import."""
    out = tmp_path_factory.mktemp("spelling")
    readme = tmp_path_factory.mktemp("readme") / "README.py"
    readme.write_text(readme_python(), encoding="utf-8")
    for path in [*EXAMPLES, SPELLING, readme]:
        name = "_".join(path.relative_to(readme.parent if path == readme else ROOT).with_suffix("").parts)
        shutil.copy(path, out / f"{name}.py")
        (out / f"{name}_future.py").write_text(_with_future(path), encoding="utf-8")
    return out


def _tool(name: str) -> str:
    exe = BIN / name
    if not exe.exists():
        found = shutil.which(name)
        if found is None:
            pytest.skip(f"{name} is not installed (pip install -e '.[dev]' installs it)")
        return found
    return str(exe)


def test_ruff_reports_nothing_and_fix_changes_nothing(corpus: Path) -> None:
    ruff = _tool("ruff")
    run = subprocess.run([ruff, "check", *RUFF_RULES, str(corpus)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    before = {p.name: p.read_text() for p in corpus.glob("*.py")}
    subprocess.run([ruff, "check", *RUFF_RULES, "--fix", "--unsafe-fixes", str(corpus)], capture_output=True)
    assert {p.name: p.read_text() for p in corpus.glob("*.py")} == before


def test_basedpyright_reports_nothing(corpus: Path) -> None:
    exe = _tool("basedpyright")
    config = corpus / "pyrightconfig.json"
    config.write_text(json.dumps({"typeCheckingMode": "standard", "pythonVersion": "3.11", "extraPaths": [str(ROOT)]}))
    try:
        run = subprocess.run(
            [exe, "-p", str(config), "--pythonpath", sys.executable, "--outputjson"],
            capture_output=True,
            text=True,
            cwd=corpus,
            timeout=600,
        )
    except (OSError, subprocess.TimeoutExpired) as e:  # its bundled node could not start
        pytest.skip(f"basedpyright could not run here: {e}")
    try:
        report = json.loads(run.stdout)
    except json.JSONDecodeError:
        pytest.skip(f"basedpyright could not run here: {run.stderr.strip()[:300]}")
    found = [
        f"{Path(d['file']).name}:{d['range']['start']['line'] + 1}: {d['severity']}: {d['message']}"
        for d in report["generalDiagnostics"]
    ]
    assert report["summary"]["filesAnalyzed"] == len(list(corpus.glob("*.py")))
    assert not found, "\n".join(found)


def test_basedpyright_default_settings_report_no_error_in_examples() -> None:
    """A user who runs `basedpyright examples/` as it comes (no configuration: its default, stricter than pyright's
    standard mode, reports bare generics such as `dict`) gets no error; warnings about jax's partly unknown types
    are basedpyright's taste, not the examples' faults."""
    exe = _tool("basedpyright")
    try:
        run = subprocess.run(
            [exe, "--pythonpath", sys.executable, "--outputjson", "examples"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=600,
        )
        report = json.loads(run.stdout)
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as e:  # its bundled node could not start
        pytest.skip(f"basedpyright could not run here: {e}")
    errors = [
        f"{Path(d['file']).relative_to(ROOT)}:{d['range']['start']['line'] + 1}: {d['message']}"
        for d in report["generalDiagnostics"]
        if d["severity"] == "error"
    ]
    assert report["summary"]["filesAnalyzed"] == len(EXAMPLES)
    assert not errors, "\n".join(errors)


def test_mypy_without_the_plugin_reports_nothing(corpus: Path) -> None:
    mypy = _tool("mypy")
    files = sorted(str(p) for p in corpus.glob("*.py"))  # examples/, the spelling file and the README's code
    run = subprocess.run(
        [mypy, "--config-file", os.devnull, "--no-incremental", "--python-version", "3.11", *files],
        capture_output=True,
        text=True,
        cwd=corpus,
        env={**os.environ, "MYPYPATH": str(ROOT)},
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_namedcheck_reads_the_future_variant_alike(corpus: Path) -> None:
    from namedcheck.analyzer.check import analyse_for_test

    plain = analyse_for_test(SPELLING.read_text(), "plain.py")
    future = analyse_for_test((corpus / "tests_cases_ann_spelling_clean_future.py").read_text(), "future.py")
    assert plain[0] == [] and future[0] == []
    assert sorted(map(repr, plain[1].values())) == sorted(map(repr, future[1].values()))


PLUGIN_PROGRAM = """\
from typing import Annotated

import jax.numpy as jnp
from jax import Array

from namedcheck import Dims, Float, f32


def project(x: f32[Array, Dims('B', 784)], w: f32[Array, Dims(784, 10)]) -> f32[Array, Dims('B', 10)]:
    return x @ w


def scale(x: Float[Array, Dims('N')]) -> Float[Array, Dims('N')]:
    return x * 2


c: f32[Array, Dims(3, 10)] = project(jnp.ones((3, 784)), jnp.ones((784, 10)))
reveal_type(c)
project(jnp.ones((3, 784)), jnp.ones((785, 10)))
plain: Annotated[int, "metadata"] = 3
reveal_type(plain)
"""


def test_mypy_plugin_reads_the_short_spelling(tmp_path: Path) -> None:
    mypy = _tool("mypy")
    (tmp_path / "prog.py").write_text(PLUGIN_PROGRAM)
    (tmp_path / "mypy.ini").write_text(
        "[mypy]\nplugins = namedcheck_mypy\n[mypy-namedcheck.*]\nfollow_imports = silent\n"
    )
    run = subprocess.run(
        [mypy, "--config-file", "mypy.ini", "--no-incremental", "prog.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(ROOT)},
    )
    out = run.stdout
    assert "Traceback" not in out + run.stderr
    assert "prog.py:18: note: Revealed type is \"namedcheck.shaped.Shaped[Literal['f32[(3, 10)]']]\"" in out, out
    assert "prog.py:19: error: " in out and "[NC302]" in out, out
    assert 'prog.py:21: note: Revealed type is "int"' in out, out
    assert out.count("error:") == 1, out
