"""The Explicit-sharding corpus (tests/cases/shd_*.py) under the installed JAX (8 CPU devices, set in
conftest): each program runs statement by statement; JAX raises a sharding type error exactly on the
lines the checker reports (`# expect: NC8xx`), and every `# reveal:` value's sharding is `jax.typeof`'s."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest

jax = pytest.importorskip("jax")

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402
from tests.fresh_process import run_fresh  # noqa: E402
from tests.test_cases import expectations  # noqa: E402

CASES = sorted((Path(__file__).parent / "cases").glob("shd_*.py"))
REVEAL = re.compile(r"#\s*reveal:\s*(.+?)\s*$")
UR = re.compile(r"\{[UR]:[^}]*\}")  # unreduced / reduced axes, printed alike: `{U:data}`
# what JAX raises for the rules NC8xx model: sharding type errors, jit's in_shardings mismatch (ValueError),
# with_sharding_constraint's assertion, a scan carry whose type changes (TypeError); `@checked` finding a
# sharding other than the annotation's (ShapeError, NC811); an op JAX has no unreduced rule for (NC813);
SHARDING_ERRORS = (
    "ShardingTypeError",
    "AssertionError",
    "ValueError",
    "TypeError",
    "ShapeError",
    "NotImplementedError: unreduced rule",
    # a bare PartitionSpec with no context mesh (NC826)
    "RuntimeError: with_sharding_constraint requires a non-empty mesh",
    "RuntimeError: jit requires a non-empty mesh",
)


RUNNER = r"""
import ast, json, os, sys, traceback
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax
path = sys.argv[1]
tree = ast.parse(open(path, encoding="utf-8").read())
ns = {"__name__": "shd_case"}
errors, types = {}, {}
for stmt in tree.body:
    try:
        exec(compile(ast.Module([stmt], []), path, "exec"), ns)
    except Exception as e:
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == path]
        line = frames[-1].lineno if frames else stmt.lineno
        errors[line] = type(e).__name__ + ": " + (str(e).splitlines() or [""])[0][:300]
        continue
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        v = ns.get(stmt.targets[0].id)
        if hasattr(v, "shape") and hasattr(v, "dtype"):
            types[stmt.lineno] = str(jax.typeof(v))
print(json.dumps({"errors": errors, "types": types}))
"""


@functools.cache
def run_statements(path: Path) -> tuple[dict[int, str], dict[int, str]]:
    """Execute a case program one top-level statement at a time in a fresh process (its `jax.set_mesh`
    stays there): (line -> the error raised there, located at the deepest frame in the program),
    (line of a top-level `name = ...` -> str(jax.typeof(name)))."""
    out = run_fresh(RUNNER, str(path), check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    return ({int(k): v for k, v in got["errors"].items()}, {int(k): v for k, v in got["types"].items()})


def dims_of_jax(t: str) -> list[str]:
    """`float32[8@data,16]` -> ['8@data', '16']."""
    inner = t[t.index("[") + 1 : t.rindex("]")]
    return [d for d in re.split(r",(?![^()]*\))", inner) if d]


def dims_of_ours(t: str) -> list[str]:
    """`f32[(8@data, 16)]` -> ['8@data', '16']."""
    inner = t[t.index("(") + 1 : t.rindex(")")]
    return [d.strip() for d in re.split(r",(?![^()]*\))", inner) if d.strip()]


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_checker_reports_exactly_where_jax_raises(case: Path) -> None:
    source = case.read_text(encoding="utf-8")
    diags, _ = analyse_for_test(source, case.name)
    reported = {d.line for d in diags if d.code.startswith("NC8")}
    errors, _ = run_statements(case)
    raised = {line for line, err in errors.items() if err.startswith(SHARDING_ERRORS)}
    assert not set(errors) - raised, f"{case.name}: other errors under JAX: {errors}"
    assert reported == raised, (
        f"{case.name}: checker {sorted(reported)} vs JAX {sorted(raised)}: "
        f"{ {k: errors[k] for k in sorted(raised ^ reported) if k in errors} }"
    )
    expected = {line for line, _ in expectations(source)[0]}
    assert raised == expected, f"{case.name}: the expect comments are not where JAX raises"


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_revealed_shardings_equal_jax_typeof(case: Path) -> None:
    source = case.read_text(encoding="utf-8")
    reveals = {i: m.group(1) for i, line in enumerate(source.splitlines(), 1) if (m := REVEAL.search(line))}
    _, types = run_statements(case)
    checked = 0
    for line, want in reveals.items():
        if line in types:
            assert dims_of_ours(want) == dims_of_jax(types[line]), f"{case.name}:{line}: {want} vs {types[line]}"
            assert UR.findall(want) == UR.findall(types[line]), f"{case.name}:{line}: {want} vs {types[line]}"
            checked += 1
    assert checked == len(reveals), f"{case.name}: reveals not at top-level array assignments"
