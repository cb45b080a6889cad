"""`bench/library_calls.py`: calls into a library counted by qualified name through each file's imports (aliases,
`from` imports, decorators written without a call), notebooks' code cells, and the modelled mark."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import library_calls as bench  # noqa: E402

PROGRAM = """
import equinox as eqx
import diffrax as dfx
from equinox import nn
from diffrax import ODETerm

@eqx.filter_jit
def step(model, x):
    return eqx.filter_vmap(model)(x)

layer = nn.Linear(2, 3, key=None)
term = ODETerm(lambda t, y, args: -y)
sol = dfx.diffeqsolve(term, dfx.Tsit5(), 0, 1, 0.1, 1.0)
other = eqx.tree_equal(1, 1)
"""


def test_calls_by_qualified_name() -> None:
    got = bench.calls_in(PROGRAM, ("equinox", "diffrax"))
    assert got == {
        "equinox.filter_jit": 1,
        "equinox.filter_vmap": 1,
        "equinox.nn.Linear": 1,
        "diffrax.ODETerm": 1,
        "diffrax.diffeqsolve": 1,
        "diffrax.Tsit5": 1,
        "equinox.tree_equal": 1,
    }
    assert bench.calls_in("def f(:\n", ("equinox",)) is None


def test_modelled_names() -> None:
    assert bench.analyzer_models("equinox.nn.Linear")  # an op rule
    assert bench.analyzer_models("equinox.filter_vmap")  # analyzer/equinox.py
    assert bench.analyzer_models("diffrax.diffeqsolve")  # analyzer/diffrax.py
    assert bench.analyzer_models("optax.adam")
    assert not bench.analyzer_models("equinox.tree_equal")
    assert bench.analyzer_models("haiku.transform")  # analyzer/haiku.py
    assert bench.analyzer_models("haiku._src.transform.transform_with_state")  # where haiku defines it
    assert bench.analyzer_models("flax.nnx.Optimizer") and bench.analyzer_models("flax.linen.scan")
    assert not bench.analyzer_models("haiku.to_module")


def test_the_table_over_a_tree_with_a_notebook(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a.py").write_text(PROGRAM, encoding="utf-8")
    cells = [{"cell_type": "code", "source": ["%matplotlib inline\n", "import equinox as eqx\n", "eqx.filter(1, 2)\n"]}]
    (tmp_path / "b.ipynb").write_text(json.dumps({"cells": cells}), encoding="utf-8")
    assert bench.main(["--prefix", "equinox", "--json", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["files"] == 2 and out["calls"] == 5
    assert out["modelled"] == 4  # all but tree_equal
