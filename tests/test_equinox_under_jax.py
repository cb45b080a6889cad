"""equinox's and diffrax's cases (tests/cases/lib_equinox*.py, lib_diffrax*.py) under the installed JAX, equinox and
diffrax (8 CPU devices): each program runs statement by statement in a fresh process; JAX / equinox / diffrax raise
exactly on the statements where the checker reports (a diagnostic inside a function a statement calls counts at that
statement), with the error they raise for that rule, and every `# reveal:` value's shape and dtype are the ones the
program computes. The names analyzer/equinox.py and analyzer/diffrax.py model are the installed libraries'."""

from __future__ import annotations

import ast
import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("equinox")
pytest.importorskip("diffrax")

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402

CASES = sorted(
    p for pattern in ("lib_equinox*.py", "lib_diffrax*.py") for p in (Path(__file__).parent / "cases").glob(pattern)
)
EXPECT = re.compile(r"#\s*expect:\s*([A-Z0-9_,\s]+?)\s*(?:#|$)")
REVEAL = re.compile(r"#\s*reveal:\s*(.+?)\s*$")
ERRORS = {c: ("ValueError", "TypeError") for c in ("NC201", "NC203", "NC402", "NC403", "NC408")}

RUNNER = r"""
import ast, json, os, sys
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax
assert len(jax.devices()) == 8
path = sys.argv[1]
tree = ast.parse(open(path, encoding="utf-8").read())
ns = {"__name__": "library_case"}
errors, shapes = {}, {}
for stmt in tree.body:
    try:
        exec(compile(ast.Module([stmt], []), path, "exec"), ns)
    except Exception as e:
        errors[stmt.lineno] = type(e).__name__ + ": " + (str(e).splitlines() or [""])[0][:300]
        continue
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        v = ns.get(stmt.targets[0].id)
        if hasattr(v, "shape") and hasattr(v, "dtype"):
            shapes[stmt.lineno] = [list(v.shape), str(v.dtype)]
print(json.dumps({"errors": errors, "shapes": shapes}))
"""


@functools.cache
def run_statements(path: Path) -> tuple[dict[int, str], dict[int, list]]:
    out = subprocess.run(
        [sys.executable, "-c", RUNNER, str(path)], capture_output=True, text=True, timeout=300, check=True
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return ({int(k): v for k, v in got["errors"].items()}, {int(k): v for k, v in got["shapes"].items()})


def test_there_are_cases() -> None:
    assert CASES


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_checker_reports_exactly_where_the_library_raises(case: Path) -> None:
    source = case.read_text(encoding="utf-8")
    diags, _ = analyse_for_test(source, case.name)
    statements = {s.lineno for s in ast.parse(source).body}
    reported = {}
    for d in diags:
        at = [d.line] if d.line in statements else [r.line for r in d.related if r.line in statements]
        assert at, f"{case.name}:{d.line}: {d.code} neither at nor called from a top-level statement"
        reported[at[0]] = d.code
    errors, _ = run_statements(case)
    assert set(reported) == set(errors), f"{case.name}: checker {reported} vs the run {errors}"
    for line, code in reported.items():
        assert errors[line].split(":")[0] in ERRORS[code], f"{case.name}:{line}: {code} but the run: {errors[line]}"
    expected = {i for i, line in enumerate(source.splitlines(), 1) if EXPECT.search(line)}
    assert {d.line for d in diags} == expected, f"{case.name}: the expect comments are not where the checker reports"


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_revealed_shapes_are_what_the_program_computes(case: Path) -> None:
    source = case.read_text(encoding="utf-8")
    _, revealed = analyse_for_test(source, case.name)
    _, shapes = run_statements(case)
    reveals = {i for i, line in enumerate(source.splitlines(), 1) if REVEAL.search(line)}
    assert reveals and reveals <= set(shapes), f"{case.name}: reveals not at top-level array assignments"
    for line in reveals:
        ours = revealed[line]
        assert list(ours.shape) == shapes[line][0], f"{case.name}:{line}: {ours!r} vs {shapes[line]}"
        assert ours.dtype == shapes[line][1], f"{case.name}:{line}: {ours!r} vs {shapes[line]}"


def test_the_modelled_names_are_the_librarys() -> None:
    """Every name the checker models is one the installed equinox / diffrax has."""
    import importlib

    from namedcheck.analyzer import diffrax, equinox

    for name in sorted(equinox.MODELLED | diffrax.MODELLED):
        module, _, attr = name.rpartition(".")
        assert hasattr(importlib.import_module(module), attr), name


def test_a_program_that_imports_only_diffrax_or_equinox_is_checked() -> None:
    from namedcheck.analyzer.relevance import is_relevant

    assert is_relevant("import diffrax\nsol = diffrax.diffeqsolve(term, solver, 0, 1, 0.1, y0)\n")
    assert is_relevant("import equinox as eqx\n")
    assert not is_relevant("import numpy as np\n")
