"""Jupyter notebooks: `check .` finds them, their code cells are checked as one module (magics masked) and
every output format locates a diagnostic at its cell and line; a broken notebook is one NC001."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from namedcheck.cli.main import main
from namedcheck.cli.notebook import NotebookError, read_notebook


def _code(src: str) -> dict[str, object]:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": src.splitlines(True)}


def _md(src: str) -> dict[str, object]:
    return {"cell_type": "markdown", "metadata": {}, "source": src}


def notebook(*cells: dict[str, object], language: str = "python") -> str:
    meta = {"language_info": {"name": language}}
    return json.dumps({"cells": list(cells), "metadata": meta, "nbformat": 4, "nbformat_minor": 5}, indent=1)


DEMO = notebook(
    _md("# A demo"),
    _code("%matplotlib inline\nimport jax.numpy as jnp\n!pip install nothing"),
    _md("shapes"),
    _code("a = jnp.ones((2, 3))\nb = jnp.ones((4, 5))\nc = a + b"),
    _code("%%bash\necho c = a + b"),
    _code("d = jnp.ones((3,)) @ jnp.ones((4,))"),
)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", "-j", "1", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\n")
    (tmp_path / "demo.ipynb").write_text(DEMO)
    return tmp_path


def test_cells_concatenated_with_magics_masked() -> None:
    nb = read_notebook(DEMO)
    assert nb.source.splitlines() == [
        "pass",
        "import jax.numpy as jnp",
        "pass",
        "a = jnp.ones((2, 3))",
        "b = jnp.ones((4, 5))",
        "c = a + b",
        "#%%bash",
        "#echo c = a + b",
        "d = jnp.ones((3,)) @ jnp.ones((4,))",
    ]
    assert (nb.cells, nb.starts) == ((2, 4, 5, 6), (1, 4, 7, 9))
    assert nb.cell_at(6) == (4, 3)


def test_text_output_at_cell_and_line(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, ".", "--no-cache")
    assert code == 1
    heads = [ln for ln in out.splitlines() if ": NC" in ln and "cell" in ln.split(":")[1]]
    assert heads == [
        "./demo.ipynb:cell 4:3:5: NC201 Cannot broadcast positional shapes (2, 3) of `a` and (4, 5) of `b`: "
        "dimension -1 is 3 in `a` and 5 in `b`",
        "./demo.ipynb:cell 6:1:5: NC203 jnp.matmul contracts dimension 0 of `jnp.ones(...)` (size 3, shape (3,)) "
        "with dimension 0 of `jnp.ones(...)` (size 4, shape (4,)); the sizes must be equal",
    ]
    assert "3 | c = a + b" in out.splitlines()  # the cell's own line, with its number in the cell
    assert "  = note: ./demo.ipynb:1:5: cell 4: `a` gets its shape (2, 3) from jnp.ones here" in out.splitlines()


def test_json_github_sarif_statistics(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "demo.ipynb", "--format", "json")
    got = [(d["cell"], d["line"], d["column"], d["end_line"], d["code"]) for d in json.loads(out)]
    assert got == [(4, 3, 5, 3, "NC201"), (6, 1, 5, 1, "NC203")]
    _, out, _ = run(capsys, "demo.ipynb", "--format", "github")
    assert [ln.split("::")[1].split(",title")[0] for ln in out.splitlines()] == [
        "error file=demo.ipynb,line=3,col=5,endLine=3,endColumn=10",
        "error file=demo.ipynb,line=1,col=5,endLine=1,endColumn=36",
    ]
    assert out.splitlines()[0].split("::")[2].startswith("cell 4: Cannot broadcast")
    _, out, _ = run(capsys, "demo.ipynb", "--format", "sarif")
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in json.loads(out)["runs"][0]["results"]]
    assert [(r["properties"]["cell"], r["startLine"]) for r in regions] == [(4, 3), (6, 1)]
    _, out, _ = run(capsys, "demo.ipynb", "--statistics", "-q")
    assert out.splitlines() == ["1\tNC201\tpositional broadcasting mismatch", "1\tNC203\top shape rule violated"]


def test_cached_result_keeps_cells(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, first, _ = run(capsys, "demo.ipynb", "--format", "json")
    _, second, _ = run(capsys, "demo.ipynb", "--format", "json")
    assert json.loads(first) == json.loads(second)
    assert [d["cell"] for d in json.loads(second)] == [4, 6]


def test_stdin_notebook(tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(DEMO))
    code, out, _ = run(capsys, "-", "--stdin-filename", "demo.ipynb", "--format", "json")
    assert code == 1
    assert [(d["cell"], d["line"], d["code"]) for d in json.loads(out)] == [(4, 3, "NC201"), (6, 1, "NC203")]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "Notebook is not checked: it is not valid JSON ("),
        ('{"cells": 3}', "Notebook is not checked: it is not in the notebook format: expected a JSON object"),
        ('{"cells": [{"source": "x"}]}', "Notebook is not checked: cell 1 is not a notebook cell"),
        ('{"cells": [{"cell_type": "code", "source": 7}]}', "Notebook is not checked: cell 1's `source` is not text"),
        ("import jax\nx = 1\n", "Notebook is not checked: it is not valid JSON ("),
    ],
)
def test_broken_notebook_is_one_nc001(tree: Path, capsys: pytest.CaptureFixture[str], text: str, why: str) -> None:
    (tree / "demo.ipynb").write_text(text)
    code, out, err = run(capsys, "demo.ipynb", "--no-cache", "--format", "json")
    [d] = json.loads(out)
    assert (code, d["code"], d["line"]) == (1, "NC001", 1)
    assert d["message"].startswith(why)
    assert "Traceback" not in err


def test_other_languages_and_empty_notebooks(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "demo.ipynb").write_text(notebook(_code("a = jnp.ones((2,)) + jnp.ones((3,))"), language="julia"))
    (tree / "empty.ipynb").write_text(notebook())
    code, out, _ = run(capsys, ".", "--no-cache", "--format", "json")
    assert (code, json.loads(out)) == (0, [])
    with pytest.raises(NotebookError):
        read_notebook(b"\xff\xfe")


def test_fix_refuses_notebooks(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "demo.ipynb").write_text(notebook(_code("import jax.numpy as jnp\n\nx = jnp.ones((2, 3))  # noqa: NC201")))
    code, out, err = run(capsys, "demo.ipynb", "--no-cache", "--fix", "-q")
    assert code == 1
    assert (
        out.splitlines()[0] == "demo.ipynb:cell 1:3:31: NC002 `# noqa` names NC201, which nothing reports on this line"
    )
    assert "[*]" not in out  # no fix is offered for a notebook
    assert "namedcheck: demo.ipynb: not fixed: --fix does not edit notebooks; apply the fix in the cell" in err
    assert "# noqa: NC201" in (tree / "demo.ipynb").read_text()


def test_infer_leaves_notebooks(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["infer", "demo.ipynb", "--write"])
    _, err = capsys.readouterr()
    assert code == 0 and "demo.ipynb: not annotated: infer does not edit notebooks" in err
    assert (tree / "demo.ipynb").read_text() == DEMO


def test_module_a_notebook_imports_is_not_judged(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A notebook is no project module: a comment in a module it imports may be for a cell's call, so the
    module's suppressions are not judged in a run with that notebook."""
    (tree / "demo.ipynb").unlink()
    (tree / "lib.py").write_text(
        "import jax.numpy as jnp\n\n\ndef add(x, y):\n    return jnp.add(x, y)  # noqa: NC201\n"
    )
    _, out, _ = run(capsys, ".", "--no-cache", "--format", "json")
    assert [d["code"] for d in json.loads(out)] == ["NC002"]
    (tree / "use.ipynb").write_text(notebook(_code("import jax.numpy as jnp\nfrom lib import add\n")))
    code, out, _ = run(capsys, ".", "--no-cache", "--format", "json")
    assert (code, json.loads(out)) == (0, [])
