"""Every Unknown carries its cause (analyzer/causes.py): small programs whose unknown shapes have known causes,
the ranking of `namedcheck coverage --why` (text and JSON), `--fail-under`, and a cached run that says what an
uncached one says."""

from __future__ import annotations

import io
import json

import pytest

from namedcheck.analyzer.causes import Cause
from namedcheck.analyzer.coverage_figures import CauseCount, Coverage
from namedcheck.analyzer.session import Session
from namedcheck.cli.main import main

LIBRARY = """import sonnet as snt
import jax.numpy as jnp
from namedcheck import f32


def f(x: f32[(3, 4)]):
    h = snt.Linear(8)(x)
    k = h * 2
    return jnp.tanh(k)
"""

UNMODELLED = """import jax.numpy as jnp
from namedcheck import f32


def f(x: f32[(3, 4)]):
    y = jnp.not_a_function_yet(x)
    return jnp.sum(y, axis=0)
"""

KWARGS = """import dataclasses

import jax.numpy as jnp
from namedcheck import f32


@dataclasses.dataclass
class Config:
    d: int = 4


def make(d=3):
    return jnp.zeros((d,))


def g(x: f32[(3,)], opts):
    cfg = dict(a=1)
    y = foo(**cfg)
    a = jnp.exp(y)
    b = jnp.exp(make(**opts))
    c = jnp.exp(make(**Config()))
    return a, b, c
"""

LOOP = """import jax.numpy as jnp
from namedcheck import f32


def loop(x: f32[(3,)]):
    xs = []
    for i in range(n_steps()):
        xs.append(x * i)
    return jnp.stack(xs)
"""

KNOWN = """import jax.numpy as jnp
from namedcheck import f32


def f(x: f32[(3, 4)]):
    return jnp.tanh(x) * 2
"""


def causes_of(source: str) -> tuple[dict[tuple[str, str], tuple[int, int]], Coverage]:
    """(kind, label) -> (count, line of the example), and the coverage, of a program checked on its own."""
    result = Session(projects=False).check("prog.py", source, force=True)
    an = result.analyzer
    assert an is not None and an.coverage is not None
    positions = an.positions()
    cov = an.coverage.result(lambda n: positions[n].start.line if n in positions else 0)
    assert cov == result.coverage  # the same counts, located or not
    return {(c.kind, c.label): (c.count, c.line) for c in cov.causes}, cov


def test_a_library_call_is_the_cause_of_what_flows_from_it():
    """h, h * 2 and tanh(...) are lost at `snt.Linear(8)(x)`: one cause, by the library's name, at line 7."""
    found, cov = causes_of(LIBRARY)
    # counted: jnp.tanh(k) (the layer's call is no call into jax, h * 2 no operator on a known array)
    assert found == {("library", "sonnet.Linear"): (1, 7)}


def test_an_unmodelled_jax_function():
    found, cov = causes_of(UNMODELLED)
    assert found == {("unmodelled call", "jax.numpy.not_a_function_yet"): (2, 6)}


def test_kwargs_calls_unknown_callees_and_parameters():
    found, _ = causes_of(KWARGS)
    # `make(**opts)` and `make(**Config())`: a mapping not known sets at most make's own parameters, so the
    # result keeps its rank and names its size after the parameter, ('d',): a known (symbolic) shape, no cause
    assert found == {
        ("unknown name", "foo"): (1, 18),  # `foo(**cfg)`: foo is bound nowhere (whatever it is given)
    }


def test_loops_and_containers_changed_in_place():
    found, _ = causes_of(LOOP)
    assert found == {
        ("unknown name", "n_steps"): (1, 7),  # `x * i`: i walks a range of unknown length
        # `jnp.stack(xs)`: the list grows by one item per turn of a loop of unknown length
        ("python form", "loop carry that changes"): (1, 7),
    }


LINEN = """import flax.linen as nn
import jax.numpy as jnp
from namedcheck import f32


class Dense(nn.Module):
    def __call__(self, x: f32[(2, 3)]):
        w = self.param("w", nn.initializers.lecun_normal(), (3, 4))
        return x @ w
"""

SETUP = """import jax.numpy as jnp
from namedcheck import f32


class Net:
    def setup(self):
        self.w = make()

    def run(self, x: f32[(2, 3)]):
        return jnp.tanh(self.w) + jnp.tanh(self.v)
"""


INIT = """import equinox as eqx
import jax.numpy as jnp
from namedcheck import f32


class Net(eqx.Module):
    def __init__(self, n):
        self.w = jnp.zeros((n, 3))
        self.b = jnp.zeros((3,))

    def __call__(self, x: f32[(2, 3)]):
        return jnp.tanh(self.b) + jnp.tanh(self.w)
"""


def test_a_method_is_analysed_once_its_class_is_complete():
    """A method is analysed on its own once its class statement is complete (its bases known): a linen module's
    `self.param(...)` is known there."""
    found, cov = causes_of(LINEN)
    assert found == {} and cov.arrays == cov.shape_known


def test_an_attribute_sized_by_a_builder_parameter():
    """`self.w` that `__init__` sets from its parameter `n`: its rank is known, the size is the parameter's."""
    found, _ = causes_of(INIT)
    # self.w, tanh(self.w) and the sum (in __init__, `jnp.zeros((n, 3))` is ('n', 3): known)
    assert found == {("parameter", "size from a parameter of __init__() (instance attribute)"): (3, 12)}


def test_instance_attributes_by_where_they_are_set():
    found, _ = causes_of(SETUP)
    assert found == {
        ("attribute", "attribute set in setup()"): (2, 10),  # tanh(self.w) and the sum (its left side)
        ("attribute", "attribute the class does not define"): (1, 10),
    }


@pytest.mark.parametrize("source", [LIBRARY, UNMODELLED, KWARGS, LOOP, KNOWN, LINEN, SETUP, INIT])
def test_every_expression_without_a_known_shape_has_one_cause(source):
    _, cov = causes_of(source)
    assert sum(c.count for c in cov.causes) == cov.arrays - cov.shape_known


def test_known_shapes_have_no_cause():
    found, cov = causes_of(KNOWN)
    assert found == {} and cov.arrays == cov.shape_known == 2


def test_a_cause_describes_itself():
    assert Cause("parameter", "unannotated parameter of a function", None, "f(x)").describe() == (
        "parameter: unannotated parameter of a function (`f(x)`)"
    )
    assert Cause("library", "sonnet.Linear").describe() == "library: sonnet.Linear"


def test_causes_round_trip_through_the_cache_entry():
    c = Coverage(5, 3, 2, (CauseCount("library", "sonnet.Linear", 2, 7), CauseCount("python form", "x", 1, 3, 2)))
    back = Coverage.from_json(c.entry())
    assert back == c and back.causes == c.causes
    for bad in ({**c.entry(), "causes": [["k", "l", -1, 0, 0]]}, {**c.entry(), "causes": [["k", "l", 1]]}):
        with pytest.raises(ValueError):
            Coverage.from_json(bad)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    import sys

    sys.stdin = io.StringIO("")
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NAMEDCHECK_NO_CACHE", "")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "lib.py").write_text(LIBRARY)
    (tmp_path / "pkg" / "lib2.py").write_text(LIBRARY.replace("def f(", "def g("))
    (tmp_path / "pkg" / "unmodelled.py").write_text(UNMODELLED)
    (tmp_path / "pkg" / "known.py").write_text(KNOWN)
    return tmp_path


def test_why_text_ranks_the_causes(tree, capsys):
    code, out, _ = run(capsys, "coverage", "--why", "pkg", "--no-cache")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["count", "kind", "label", "example"]
    assert lines[1].split() == ["2", "library", "sonnet.Linear", "pkg/lib.py:7"]  # 1 in each file: the first path
    assert lines[2].split() == ["2", "unmodelled", "call", "jax.numpy.not_a_function_yet", "pkg/unmodelled.py:6"]
    assert lines[3] == "4 of 6 array expressions without a known shape (33% known), 2 causes, 4 files"


def test_why_text_top(tree, capsys):
    _, out, _ = run(capsys, "coverage", "--why", "--top", "1", "pkg", "--no-cache")
    lines = out.splitlines()
    assert len(lines) == 3 and lines[-1].endswith("; 1 more causes (--top 0 shows all)")


def test_why_json_shape(tree, capsys):
    code, out, _ = run(capsys, "coverage", "--why", "--format", "json", "pkg", "--no-cache")
    assert code == 0
    data = json.loads(out)
    assert data == {
        "causes": [
            {"count": 2, "kind": "library", "label": "sonnet.Linear", "example": {"path": "pkg/lib.py", "line": 7}},
            {
                "count": 2,
                "kind": "unmodelled call",
                "label": "jax.numpy.not_a_function_yet",
                "example": {"path": "pkg/unmodelled.py", "line": 6},
            },
        ],
        "total": {"files": 4, "arrays": 6, "rank_known": 2, "shape_known": 2, "causes": 2},
    }


def test_fail_under_exit_codes(tree, capsys):
    code, out, err = run(capsys, "coverage", "--fail-under", "40", "pkg", "--no-cache")
    assert code == 1
    assert "total (4 files)" in out  # the report is printed all the same
    assert err.strip() == (
        "namedcheck: coverage failure: 33.3% of array shapes known (2 of 6), less than fail-under=40"
    )
    code, _, err = run(capsys, "coverage", "--fail-under", "33.3", "pkg", "--no-cache")
    assert (code, err) == (0, "")
    code, _, _ = run(capsys, "coverage", "--why", "--fail-under", "100", "pkg/known.py", "--no-cache")
    assert code == 0
    code, _, _ = run(capsys, "coverage", "--why", "--fail-under", "0", "pkg", "--no-cache")
    assert code == 0


@pytest.mark.parametrize("bad", ["101", "-1", "half"])
def test_fail_under_needs_a_percentage(tree, capsys, bad):
    with pytest.raises(SystemExit) as e:
        main(["coverage", "--fail-under", bad, "pkg"])
    assert e.value.code == 2
    assert "--fail-under" in capsys.readouterr().err


def test_warm_cache_says_what_a_cold_run_says(tree, capsys, monkeypatch):
    monkeypatch.delenv("NAMEDCHECK_NO_CACHE", raising=False)
    _, cold, _ = run(capsys, "coverage", "--why", "--format", "json", "pkg", "--no-cache")
    _, plain, _ = run(capsys, "coverage", "pkg")  # fills the cache with unlocated causes: another entry
    _, first, _ = run(capsys, "coverage", "--why", "--format", "json", "pkg")
    assert first == cold

    def no_analysis(*args, **kwargs):
        raise AssertionError("a cached file was analysed again")

    monkeypatch.setattr(Session, "check", no_analysis)
    _, warm, _ = run(capsys, "coverage", "--why", "--format", "json", "pkg")
    assert warm == cold
    _, plain_warm, _ = run(capsys, "coverage", "pkg")
    assert plain_warm == plain


def test_notebook_causes_are_located_by_cell(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cells = [
        {"cell_type": "code", "source": ["import sonnet as snt\n", "import jax.numpy as jnp\n"]},
        {"cell_type": "markdown", "source": ["text"]},
        {"cell_type": "code", "source": ["x = jnp.zeros((2, 3))\n", "y = jnp.tanh(snt.Linear(4)(x))\n"]},
    ]
    doc = {"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "nb.ipynb").write_text(json.dumps(doc))
    code, out, _ = run(capsys, "coverage", "--why", "--format", "json", "nb.ipynb", "--no-cache")
    assert code == 0
    (cause,) = json.loads(out)["causes"]
    assert cause["label"] == "sonnet.Linear"
    assert cause["example"] == {"path": "nb.ipynb", "line": 2, "cell": 3}  # cells counted as the notebook does


HOVERED = """import sonnet as snt
import jax.numpy as jnp


def f(x):
    h = snt.Linear(8)(x)
    return jnp.tanh(h)


def g(y):
    return y
"""


def test_hover_on_an_unknown_value_says_why():
    """The editor's analysis keeps each lost value's cause: hovering `h` (its binding or a read of it) or the
    call says the layer lost it; a replayed definition (another one edited) keeps its causes."""
    pytest.importorskip("pygls")
    from namedcheck.analyzer.incremental import DocumentAnalyser, why_at
    from namedcheck.lsp.server import _why_text

    doc = DocumentAnalyser("hov.py")
    for text in (HOVERED, HOVERED.replace("return y", "return y + 1")):  # the second: f replayed
        a = doc.analyse(text)
        for line, col in ((6, 4), (6, 12), (7, 20)):  # `h =`, `snt.Linear(8)(x)`, `tanh(h)`'s h
            found = why_at(a, line, col)
            assert found is not None, (line, col)
            assert _why_text(found[1], a) == "not known: library `sonnet.Linear` (line 6)"
    param = why_at(a, 7, 11)  # `jnp.tanh(h)`: h's cause too
    assert param is not None and param[1].label == "sonnet.Linear"
    x = why_at(a, 6, 22)  # `x`: a parameter of a function analysed on its own
    assert (
        x is not None
        and _why_text(x[1], a) == "not known: parameter `unannotated parameter of a function` `f(x)` (line 5)"
    )


def test_language_server_hover_says_why(tmp_path):
    """Through a real client: hovering a value the analysis lost gives its cause."""
    pytest.importorskip("pygls")
    import asyncio
    import sys

    from lsprotocol import types as lsp
    from pygls.lsp.client import LanguageClient

    async def scenario() -> list[str | None]:
        path = tmp_path / "hov.py"
        path.write_text(HOVERED)
        uri = path.as_uri()
        client = LanguageClient("test-client", "1")
        await client.start_io(sys.executable, "-m", "namedcheck", "lsp")
        await client.initialize_async(
            lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=tmp_path.as_uri())
        )
        client.initialized(lsp.InitializedParams())
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "python", 1, HOVERED)))
        out = []
        for line, col in ((5, 4), (9, 0)):  # `h` (lost at the layer), a blank line (nothing)
            hover = await client.text_document_hover_async(
                lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, col))
            )
            out.append(hover.contents.value if hover is not None else None)  # type: ignore[union-attr]
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
        return out

    assert asyncio.run(asyncio.wait_for(scenario(), 120)) == ["not known: library `sonnet.Linear` (line 6)", None]


def test_a_name_a_project_module_does_not_define(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "b.py").write_text("import jax.numpy as jnp\n\n\ndef other(x):\n    return jnp.sin(x)\n")
    (tmp_path / "pkg" / "a.py").write_text(
        "import jax.numpy as jnp\nfrom pkg.b import missing\n\n\ndef f():\n"
        "    y = missing(jnp.zeros((2, 3)))\n    return jnp.tanh(y)\n"
    )
    code, out, _ = run(capsys, "coverage", "--why", "--format", "json", "pkg/a.py", "--no-cache")
    assert code == 0
    assert [(c["kind"], c["label"], c["example"]["line"]) for c in json.loads(out)["causes"]] == [
        ("unknown import", "pkg.b.missing", 6)
    ]


def test_a_run_that_cannot_start_still_prints_a_why_document(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\nbogus = 1\n")
    code, out, err = run(capsys, "coverage", "--why", "--format", "json", ".")
    assert code == 2 and "unknown key 'bogus'" in err
    assert json.loads(out) == {
        "causes": [],
        "total": {"files": 0, "arrays": 0, "rank_known": 0, "shape_known": 0, "causes": 0},
    }
