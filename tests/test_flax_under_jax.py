"""flax's cases (tests/cases/lib_flax*.py) under the installed JAX and flax (8 CPU devices): each program runs
statement by statement in a fresh process; flax raises exactly on the statements where the checker reports (a
diagnostic inside a function counts at every top-level statement that calls it with the failing arguments: its
related "called here" / "also with" lines), with the error flax or JAX raises for that rule, and every `# reveal:`
value's shape and dtype are the ones the program computes."""

from __future__ import annotations

import ast
import functools
import json
import re
from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("flax")

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402
from tests.fresh_process import run_fresh  # noqa: E402
from tests.test_cases import expectations  # noqa: E402

CASES = sorted((Path(__file__).parent / "cases").glob("lib_flax*.py"))
REVEAL = re.compile(r"#\s*reveal:\s*(.+?)\s*$")
ERRORS = {  # what flax / JAX raise for each code these cases use
    "NC305": ("ScopeParamShapeError",),
    "NC203": ("ValueError", "TypeError"),
    "NC201": ("ValueError", "TypeError"),
}

RUNNER = r"""
import ast, json, os, sys
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax
import numpy as np
assert len(jax.devices()) == 8
path = sys.argv[1]
tree = ast.parse(open(path, encoding="utf-8").read())
ns = {"__name__": "flax_case"}
errors, shapes = {}, {}
for stmt in tree.body:
    try:
        exec(compile(ast.Module([stmt], []), path, "exec"), ns)
    except Exception as e:
        errors[stmt.lineno] = type(e).__name__ + ": " + (str(e).splitlines() or [""])[0][:300]
        continue
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        v = ns.get(stmt.targets[0].id)
        if isinstance(v, (jax.Array, np.ndarray)):  # (an nnx.Rngs has every attribute: `rngs.shape` is a stream)
            shapes[stmt.lineno] = [list(v.shape), str(v.dtype)]
print(json.dumps({"errors": errors, "shapes": shapes}))
"""


@functools.cache
def run_statements(path: Path) -> tuple[dict[int, str], dict[int, list]]:
    out = run_fresh(RUNNER, str(path), preload=("flax.linen",), check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return ({int(k): v for k, v in got["errors"].items()}, {int(k): v for k, v in got["shapes"].items()})


def test_there_are_cases() -> None:
    assert len(CASES) >= 2


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_checker_reports_exactly_where_flax_raises(case: Path) -> None:
    source = case.read_text(encoding="utf-8")
    diags, _ = analyse_for_test(source, case.name)
    statements = {s.lineno for s in ast.parse(source).body}
    reported: dict[int, str] = {}
    for d in diags:
        at = [d.line] if d.line in statements else [r.line for r in d.related if r.line in statements]
        assert at, f"{case.name}:{d.line}: {d.code} neither at nor called from a top-level statement"
        reported.update({line: d.code for line in at})
    errors, _ = run_statements(case)
    assert set(reported) == set(errors), f"{case.name}: checker {reported} vs flax {errors}"
    for line, code in reported.items():
        assert errors[line].split(":")[0] in ERRORS[code], f"{case.name}:{line}: {code} but flax: {errors[line]}"
    expected = {line for line, _ in expectations(source)[0]}
    assert {d.line for d in diags} == expected, f"{case.name}: the expect comments are not where the checker reports"


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_revealed_shapes_are_what_flax_computes(case: Path) -> None:
    source = case.read_text(encoding="utf-8")
    _, revealed = analyse_for_test(source, case.name)
    _, shapes = run_statements(case)
    reveals = {i for i, line in enumerate(source.splitlines(), 1) if REVEAL.search(line)}
    assert reveals and reveals <= set(shapes), f"{case.name}: reveals not at top-level array assignments"
    for line in reveals:
        ours = revealed[line]
        assert list(ours.shape) == shapes[line][0], f"{case.name}:{line}: {ours!r} vs {shapes[line]}"
        assert ours.dtype == shapes[line][1], f"{case.name}:{line}: {ours!r} vs {shapes[line]}"
