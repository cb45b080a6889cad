"""The analyzer never raises on real code: a deterministic sample of the installed jax and numpy
sources, analysed in full (the relevance pre-filter bypassed). bench/cli_bench.py runs them all."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from namedcheck.analyzer.check import check_source


def _sample(package: str, every: int) -> list[Path]:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return []
    files = sorted(Path(next(iter(spec.submodule_search_locations))).rglob("*.py"))
    return files[::every]


FILES = _sample("jax", 12) + _sample("numpy", 40)


@pytest.mark.skipif(not FILES, reason="jax / numpy not installed")
@pytest.mark.parametrize("path", FILES, ids=lambda p: "/".join(p.parts[-3:]))
def test_no_internal_error_and_no_diagnostic(path: Path) -> None:
    source = path.read_text(encoding="utf-8", errors="replace")
    diags = check_source(source, str(path), force=True)
    assert [d for d in diags if d.code == "NC000"] == []
    if "tests" not in path.parts:  # test suites raise errors on purpose (inside assert_raises)
        # Library code has no namedcheck annotations: anything reported would be a false positive.
        assert [d for d in diags if d.code != "NC001"] == [], [(d.line, d.code, d.message) for d in diags]


def test_long_operator_chains_do_not_exhaust_recursion() -> None:
    chain = " + ".join(["jnp.ones(3)"] * 190)  # under the nesting limit (budget.MAX_NESTING)
    source = f"import jax.numpy as jnp\nfrom namedcheck import f32\nx = {chain} + jnp.ones(4)\n"
    assert [(d.line, d.code) for d in check_source(source, "deep.py")] == [(3, "NC201")]


def test_odd_inputs_never_raise() -> None:
    for source in ["", "\n\n", "from namedcheck import *\n", "namedcheck = 1\nx: namedcheck[5]\n",
                   "from namedcheck import f32\nclass A:\n    x: f32[(3,)]\n    def m(self): return self.x + 1\n",
                   "from namedcheck import f32\nasync def f(x: f32[(2,)]):\n    async for y in x:\n        await y\n",
                   "from namedcheck import f32\nmatch 1:\n    case 1:\n        pass\n",
                   "from namedcheck import f32\ndef f(*a, **k):\n    return f(*a, **k)\nf(1)\n",
                   "from namedcheck import f32\nx = lambda: x()\nx()\n", "\ufeffimport namedcheck\n"]:
        diags = check_source(source, "odd.py")
        assert [d for d in diags if d.code == "NC000"] == [], (source, diags)
