"""Methods known from their class's builders (tests/cases/reach_classes.py) and methods a class body rebinds
(tests/cases/reach_rebound.py), and keys under a switched PRNG (tests/cases/precision_prng_context.py) under the
installed JAX, flax and equinox (8 CPU devices), in a fresh process: every `wrong_*` function raises, at a line the checker reports (the innermost
line of the case file in the traceback, where the error is raised inside a method), and no line a `right_*`
function runs is reported; every `# reveal:` value the run reaches agrees with the inferred one (its rank, known
sizes and dtype)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jax")
pytest.importorskip("flax")
pytest.importorskip("equinox")

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402
from tests.fresh_process import run_fresh  # noqa: E402
from tests.jaxrun import PRELOAD  # noqa: E402

CASES = [
    Path(__file__).parent / "cases" / name
    for name in ("reach_classes.py", "reach_rebound.py", "precision_prng_context.py", "precision_plain_instances.py")
]

RUNNER = r"""
import ast, json, os, sys, traceback, importlib.util
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np
import jax
assert len(jax.devices()) == 8
path = sys.argv[1]
src = open(path, encoding="utf-8").read()
lines = src.splitlines()
targets = {}
for node in ast.walk(ast.parse(src)):
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        if "# reveal:" in lines[node.lineno - 1]:
            targets[node.lineno] = node.targets[0].id
ran, seen, pending = set(), {}, {}

def describe(v):
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        try:
            dtype = str(np.dtype(v.dtype))
        except TypeError:  # a typed PRNG key's dtype (`key<fry>`)
            dtype = str(v.dtype)
        return [[int(d) for d in v.shape], dtype]
    return None

def local(frame, event, arg):
    key = id(frame)
    if key in pending:
        line, name = pending.pop(key)
        if name in frame.f_locals:
            seen.setdefault(line, []).append(describe(frame.f_locals[name]))
    if event == "line":
        ran.add(frame.f_lineno)
        if frame.f_lineno in targets:
            pending[key] = (frame.f_lineno, targets[frame.f_lineno])
    return local

def tracer(frame, event, arg):
    return local if frame.f_code.co_filename == path else None

spec = importlib.util.spec_from_file_location("reach_classes_case", path)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
out = {"right": {}, "wrong": {}, "reveals": {}}
for name in sorted(dir(mod)):
    if name.startswith("right_"):
        ran.clear()
        sys.settrace(tracer)
        try:
            jax.block_until_ready(getattr(mod, name)())
        finally:
            sys.settrace(None)
        out["right"][name] = sorted(ran)
    elif name.startswith("wrong_"):
        try:
            jax.block_until_ready(getattr(mod, name)())
            out["wrong"][name] = None
        except Exception as e:
            at = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == path]
            out["wrong"][name] = [type(e).__name__, at]
out["reveals"] = {str(k): v for k, v in seen.items()}
print(json.dumps(out))
"""


AS_MAIN = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"


@functools.cache
def run(case: Path) -> dict[str, Any]:
    got = run_fresh(RUNNER, str(case), preload=PRELOAD)  # a fresh process forked from one that imported JAX
    assert got.returncode == 0, got.stderr[-2000:]
    return json.loads(got.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@functools.cache
def checked(case: Path) -> tuple[frozenset[int], dict[int, Any]]:
    diags, revealed = analyse_for_test(case.read_text(encoding="utf-8"), case.name)
    return frozenset(d.line for d in diags), revealed


def _names(prefix: str) -> list[tuple[Path, str]]:
    return [
        (case, line.split("(")[0][4:])
        for case in CASES
        for line in case.read_text(encoding="utf-8").splitlines()
        if line.startswith(prefix)
    ]


@pytest.mark.parametrize(("case", "name"), _names("def wrong_"))
def test_jax_raises_where_the_checker_reports(case: Path, name: str) -> None:
    raised = run(case)["wrong"][name]
    assert raised is not None, f"{name}: JAX runs it"
    kind, at = raised
    assert kind in ("TypeError", "ValueError"), raised
    flagged, _ = checked(case)
    assert at and at[-1] in flagged, f"{name}: JAX raises at line {at[-1] if at else '?'}, the checker: {flagged}"


@pytest.mark.parametrize(("case", "name"), _names("def right_"))
def test_lines_jax_runs_are_not_reported(case: Path, name: str) -> None:
    flagged, _ = checked(case)
    assert not flagged & set(run(case)["right"][name]), f"{name}: the checker flags a line JAX runs"


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_revealed_values_are_the_runs(case: Path) -> None:
    _, revealed = checked(case)
    reveals = run(case)["reveals"]
    assert reveals, "no reveal line ran"
    for line, values in reveals.items():
        ours = revealed[int(line)]
        if not hasattr(ours, "shape"):
            continue  # (Unknown: nothing claimed there)
        for shape, dtype in values:
            assert len(ours.shape) == len(shape), (line, ours, shape)  # type: ignore[attr-defined]
            assert all(not isinstance(d, int) or d == r for d, r in zip(ours.shape, shape)), (line, ours, shape)  # type: ignore[attr-defined]
            assert ours.dtype in (None, dtype), (line, ours, dtype)  # type: ignore[attr-defined]


def test_metaclass_members_are_what_the_program_runs_with() -> None:
    """tests/cases/reach_metaclass.py runs under JAX (its asserts hold: a class attribute read through the program's
    own metaclass is a member, not the body's string) and the checker reports nothing in it."""
    case = Path(__file__).parent / "cases" / "reach_metaclass.py"
    got = run_fresh(AS_MAIN, str(case), preload=PRELOAD)  # `python reach_metaclass.py`, in a fresh process
    assert got.returncode == 0, got.stderr[-2000:]
    diags, revealed = analyse_for_test(case.read_text(encoding="utf-8"), case.name)
    wrong = case.read_text(encoding="utf-8").splitlines().index("def wrong_width():") + 2
    assert [(d.line, d.code) for d in diags] == [(wrong, "NC203")]  # the one line JAX raises at (below)
    assert any(getattr(v, "shape", None) == (2,) for v in revealed.values())
    raised = run_fresh("import runpy, sys; runpy.run_path(sys.argv[1])['wrong_width']()", str(case), preload=PRELOAD)
    assert raised.returncode != 0 and "TypeError" in raised.stderr, raised.stderr[-2000:]
