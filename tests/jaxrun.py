"""A library's case programs (tests/cases/lib_*.py, models_*.py) checked against the installed JAX and the library
(8 CPU devices): each program runs statement by statement in a fresh process (forked from one test process's
server that imported JAX and the library once: tests/fresh_process.py); the library raises exactly on the
statements where the checker reports, with the error it raises for that rule, and every `# reveal:` value's shape
and dtype are the ones the program computes. Shared by test_{equinox,flax,haiku,models}_under_jax.py: each case is
run once and analysed once per test process, however many tests read its verdicts."""

from __future__ import annotations

import ast
import functools
import importlib.util
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from namedcheck.analyzer.check import analyse_for_test
from tests.fresh_process import run_fresh
from tests.test_cases import REVEAL, expectations

CASES = Path(__file__).parent / "cases"

RUNNER = r"""
import ast, json, os, sys
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax
import numpy as np
assert len(jax.devices()) == 8
path, name, arrays_only = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
tree = ast.parse(open(path, encoding="utf-8").read())
ns = {"__name__": name}
errors, shapes = {}, {}
for stmt in tree.body:
    try:
        exec(compile(ast.Module([stmt], []), path, "exec"), ns)
    except Exception as e:
        errors[stmt.lineno] = type(e).__name__ + ": " + (str(e).splitlines() or [""])[0][:300]
        continue
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        v = ns.get(stmt.targets[0].id)
        # (with arrays_only: an nnx.Rngs has every attribute, `rngs.shape` is a stream)
        if isinstance(v, (jax.Array, np.ndarray)) if arrays_only else hasattr(v, "shape") and hasattr(v, "dtype"):
            shapes[stmt.lineno] = [list(v.shape), str(v.dtype)]
print(json.dumps({"errors": errors, "shapes": shapes}))
"""

# Imported once by the one server all four modules share (each only where installed): a program importing one
# of them finds it imported already, as in any process that imported it first.
PRELOAD = tuple(
    m for m in ("flax.linen", "equinox", "diffrax", "haiku") if importlib.util.find_spec(m.split(".")[0]) is not None
)


def cases(*patterns: str) -> list[Path]:
    return sorted(p for pattern in patterns for p in CASES.glob(pattern))


@functools.cache
def run_statements(path: Path, name: str, arrays_only: bool = False) -> tuple[dict[int, str], dict[int, list[Any]]]:
    """(line of a top-level statement -> the error it raised), (line of a top-level `name = array` -> [shape,
    dtype]), from one fresh process per program, once per test process."""
    out = run_fresh(RUNNER, str(path), name, "1" if arrays_only else "0", preload=PRELOAD, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return ({int(k): v for k, v in got["errors"].items()}, {int(k): v for k, v in got["shapes"].items()})


@functools.cache
def analysed(path: Path) -> tuple[list[Any], dict[int, object]]:
    """The checker's diagnostics and revealed values for a case file, once per test process."""
    return analyse_for_test(path.read_text(encoding="utf-8"), path.name)


def check_reports_where_it_raises(
    case: Path,
    name: str,
    errors_for: Mapping[str, tuple[str, ...]],
    *,
    every_call: bool = False,
    arrays_only: bool = False,
    library: str = "the run",
) -> None:
    """The top-level statements the checker reports at are exactly those that raise under the library, each with
    an error `errors_for[code]` names; the `# expect:` comments are where the checker reports. A diagnostic inside
    a function counts at the top-level statement that calls it (its related lines; with `every_call`, at every
    such statement, else at the first)."""
    source = case.read_text(encoding="utf-8")
    diags, _ = analysed(case)
    statements = {s.lineno for s in ast.parse(source).body}
    reported: dict[int, str] = {}
    for d in diags:
        at = [d.line] if d.line in statements else [r.line for r in d.related if r.line in statements]
        assert at, f"{case.name}:{d.line}: {d.code} neither at nor called from a top-level statement"
        reported.update({line: d.code for line in (at if every_call else at[:1])})
    errors, _ = run_statements(case, name, arrays_only)
    assert set(reported) == set(errors), f"{case.name}: checker {reported} vs {library} {errors}"
    for line, code in reported.items():
        kind = errors[line].split(":")[0]
        assert kind in errors_for[code], f"{case.name}:{line}: {code} but {library}: {errors[line]}"
    expected = {line for line, _ in expectations(source)[0]}
    assert {d.line for d in diags} == expected, f"{case.name}: the expect comments are not where the checker reports"


def check_reveals_are_computed(case: Path, name: str, *, arrays_only: bool = False) -> None:
    """Every `# reveal:` line is a top-level array assignment whose inferred shape and dtype are the run's."""
    source = case.read_text(encoding="utf-8")
    _, revealed = analysed(case)
    _, shapes = run_statements(case, name, arrays_only)
    reveals = {i for i, line in enumerate(source.splitlines(), 1) if REVEAL.search(line)}
    assert reveals and reveals <= set(shapes), f"{case.name}: reveals not at top-level array assignments"
    for line in reveals:
        ours: Any = revealed[line]
        assert list(ours.shape) == shapes[line][0], f"{case.name}:{line}: {ours!r} vs {shapes[line]}"
        assert ours.dtype == shapes[line][1], f"{case.name}:{line}: {ours!r} vs {shapes[line]}"
