"""`infer --write` leaves a project clean: no types from a library's `__main__` self-test or from test functions,
no parameter types for functions other modules call, imports where ruff's isort puts them (under
`if TYPE_CHECKING:` where the module does not import namedcheck), and `check`, ruff, mypy and basedpyright
report nothing new after it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from namedcheck.cli.main import main
from namedcheck.edits.infer import add_imports

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

LAYERS = """import jax.numpy as jnp


def project(h, w):
    y = h @ w
    return y


def demo():
    return project(jnp.ones((4, 8)), jnp.ones((8, 2)))


def norm(x):
    return x / jnp.sum(x)


if __name__ == "__main__":
    out = project(jnp.ones((4, 8)), jnp.ones((8, 2)))
    print(norm(out))
"""
MODEL = "import jax.numpy as jnp\n\nfrom layers import project\n\n\ndef forward():\n    return project(jnp.ones((16, 32)), jnp.ones((32, 64)))\n"
TRAIN = "import jax.numpy as jnp\n\nfrom layers import project\n\n\ndef step():\n    return project(jnp.ones((2, 3)), jnp.ones((3, 5)))\n"
HELPERS = "import jax.numpy as jnp\n\n\ndef double(x):\n    return x * 2\n"
TEST_HELPERS = (
    "import jax.numpy as jnp\n\nfrom helpers import double\n\n\ndef test_double():\n"
    "    assert double(jnp.ones((3,))).shape == (3,)\n"
)


def _project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "proj"\n')
    for name, text in [
        ("layers.py", LAYERS),
        ("model.py", MODEL),
        ("train.py", TRAIN),
        ("helpers.py", HELPERS),
        ("test_helpers.py", TEST_HELPERS),
    ]:
        (tmp_path / name).write_text(text)
    return tmp_path


def test_library_self_test_and_tests_give_no_types(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's case: `project` is called from two modules with other shapes and from the file's own
    `__main__` self-test. infer leaves its parameters and return alone, and `check` after it reports nothing
    (it reported three NC203 when the self-test's shapes were written)."""
    monkeypatch.chdir(_project(tmp_path))
    assert main(["infer", "--write", "."]) == 0
    layers = (tmp_path / "layers.py").read_text()
    assert "def project(h, w):\n    y = h @ w\n" in layers and "def norm(x):\n" in layers
    assert "def demo() -> f32[Array, Dims(4, 2)]:" in layers  # the file's own function: typed
    assert "def double(x):\n" in (tmp_path / "helpers.py").read_text()  # called only from a test function
    assert "def forward() -> f32[Array, Dims(16, 64)]:" in (tmp_path / "model.py").read_text()
    capsys.readouterr()
    assert main(["check", "--no-cache", "."]) == 0
    assert "All checks passed" in capsys.readouterr().out


def test_in_file_calls_still_type_a_private_helper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(
        "import jax.numpy as jnp\n\n\ndef _scale(x):\n    return x * 2\n\n\ndef run():\n"
        "    return _scale(jnp.ones((3, 4)))\n\n\nif __name__ == '__main__':\n    print(_scale(jnp.ones((5,))))\n"
    )
    assert main(["infer", "--write", "m.py"]) == 0
    text = (tmp_path / "m.py").read_text()
    # the self-test's call (another shape) vetoes the parameter; run's own return is known
    assert "def _scale(x):" in text and "def run() -> f32[Array, Dims(3, 4)]:" in text


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (  # no namedcheck import: under TYPE_CHECKING, with the future import; sections kept
            '"""Doc."""\n\nimport os\n\nimport jax.numpy as jnp\n\n\ndef f(): ...\n',
            '"""Doc."""\n\nfrom __future__ import annotations\n\nimport os\nfrom typing import TYPE_CHECKING\n\n'
            "import jax.numpy as jnp\n\nif TYPE_CHECKING:\n    from jax import Array\n    from namedcheck import Dims, f32\n"
            "\n\ndef f(): ...\n",
        ),
        (  # no module-level import: after the docstring, with the blank lines pycodestyle wants
            '"""Doc."""\n\n\ndef f():\n    import jax\n',
            '"""Doc."""\n\nfrom __future__ import annotations\n\nfrom typing import TYPE_CHECKING\n\n'
            "if TYPE_CHECKING:\n    from jax import Array\n    from namedcheck import Dims, f32\n\n\ndef f():\n    import jax\n",
        ),
        (  # an existing run-time import: merged, names ordered by type
            "import jax\nfrom namedcheck import checked, i32\n\n\ndef f(): ...\n",
            "import jax\nfrom namedcheck import Dims, checked, f32, i32\n\n\ndef f(): ...\n",
        ),
        (  # an existing TYPE_CHECKING block and typing import: used as they are
            "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING, Any\n\nimport jax\n\n"
            "if TYPE_CHECKING:\n    from collections.abc import Sequence\n\n\ndef f(): ...\n",
            "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING, Any\n\nimport jax\n\n"
            "if TYPE_CHECKING:\n    from collections.abc import Sequence\n\n    from namedcheck import Dims, f32\n\n\ndef f(): ...\n",
        ),
        (  # a 2-space (Google / pyink) file: the new block in its own indentation
            "import jax.numpy as jnp\n\n\ndef f():\n  return jnp.ones(3)\n",
            "from __future__ import annotations\n\nfrom typing import TYPE_CHECKING\n\nimport jax.numpy as jnp\n\n"
            "if TYPE_CHECKING:\n  from jax import Array\n  from namedcheck import Dims, f32\n\n\n"
            "def f():\n  return jnp.ones(3)\n",
        ),
    ],
)
def test_imports_are_placed_as_isort_places_them(tmp_path: Path, source: str, expected: str) -> None:
    f = tmp_path / "m.py"
    got = add_imports(source, {"f32", "Dims"}, "dims", str(f))
    assert got == expected
    ruff = shutil.which("ruff", path=str(BIN)) or shutil.which("ruff")
    if ruff is not None:
        f.write_text(got)
        out = subprocess.run(
            [ruff, "check", "--isolated", "--select", "I001", str(f)], capture_output=True, text=True, cwd=tmp_path
        )
        assert out.returncode == 0, out.stdout


def _ruff_issues(ruff: str, where: Path) -> set[tuple[str, str]]:
    out = subprocess.run(
        [ruff, "check", "--isolated", "--select", "I001,F401,F821", "--output-format", "json", "."],
        cwd=where,
        capture_output=True,
        text=True,
    )
    import json

    return {(d["filename"].replace(str(where), ""), d["code"]) for d in json.loads(out.stdout or "[]")}


def _codes(text: str) -> list[tuple[str, str]]:
    import re

    return sorted((m.group(1), m.group(2)) for m in re.finditer(r"^(\S+?):\d+:\d+: (NC\d+)", text, re.M))


@pytest.mark.slow
def test_infer_write_keeps_corpus_and_examples_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The clean examples and the corpus's real-style programs copied, their imports sorted first (ruff's isort
    with no configuration), `infer --write`: `check` reports the same codes in the same files, ruff reports no
    new I001 / F401 / F821, and mypy and basedpyright (where installed) no new error in the examples."""
    work = tmp_path / "w"
    shutil.copytree(ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns("buggy", "__pycache__"))
    (work / "cases").mkdir()
    for p in sorted((ROOT / "tests" / "cases").glob("*.py")):
        if p.name != "nc001_syntax.py":
            shutil.copy(p, work / "cases" / p.name)
    ruff = shutil.which("ruff", path=str(BIN)) or shutil.which("ruff")
    if ruff is not None:
        subprocess.run([ruff, "check", "--isolated", "--select", "I001", "--fix", "-q", "."], cwd=work)
    before_tree = tmp_path / "before"
    shutil.copytree(work, before_tree)
    assert main(["check", "--no-cache", str(work)]) in (0, 1)
    before = _codes(capsys.readouterr().out)
    assert main(["infer", "--write", str(work)]) == 0
    written = capsys.readouterr().out
    changed = [p for p in work.rglob("*.py") if p.read_text() != (before_tree / p.relative_to(work)).read_text()]
    assert len(changed) > 50, written
    assert main(["check", "--no-cache", str(work)]) in (0, 1)
    after = _codes(capsys.readouterr().out)
    assert after == [(f.replace(str(work), str(work)), c) for f, c in before]
    if ruff is not None:
        assert _ruff_issues(ruff, work) <= _ruff_issues(ruff, before_tree)
    py = str(BIN / "python")
    for tool, cmd in (
        ("mypy", [str(BIN / "mypy"), "--ignore-missing-imports", "--no-error-summary", "--no-incremental", "examples"]),
        ("basedpyright", [str(BIN / "basedpyright"), "--pythonpath", py, "--level", "error", "examples"]),
    ):
        if not (BIN / tool).exists():
            continue
        outs = [
            subprocess.run(cmd, cwd=d, capture_output=True, text=True).stdout.count("error")
            for d in (before_tree, work)
        ]
        assert outs[1] <= outs[0], (tool, outs)


@pytest.mark.parametrize(
    ("pyproject", "length"),
    [
        ("[tool.pyink]\nline-length = 80\n", 80),
        ("[tool.black]\nline-length = 100\n", 100),
        ("[tool.ruff]\nline-length = 120\n[tool.pyink]\nline-length = 80\n", 120),
        ("[tool.ruff]\nline-length = 'x'\n", 88),
        ("[tool.ruff\n", 88),
        ("", 88),
    ],
)
def test_the_line_length_is_the_projects_formatters(tmp_path: Path, pyproject: str, length: int) -> None:
    from namedcheck.edits.imports import first_party_of

    (tmp_path / "pyproject.toml").write_text(pyproject)
    assert first_party_of(str(tmp_path / "m.py"))[1] == length
