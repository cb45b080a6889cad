"""The stress suite's hostile programs (bench/stress_gen.py, run by bench/stress_runs.py): each kind beside a
buggy file, in a subprocess under a wall-clock and an address-space limit. No crash, no hang, the buggy file's
NC201 kept, the kind's expected outcome for the hostile file (no diagnostic, or one NC001), exit status 0 / 1,
time within the file's budget plus a constant and memory within the memory budget plus a constant.

The fast part runs every kind once (a size the guard must still refuse); the slow part every kind in every
mode at the sizes the issue reports, with and without `import jax`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import stress_gen as gen  # noqa: E402
import stress_runs as runs  # noqa: E402

FAST_KINDS = [k for k in gen.KINDS if k != "big_file"]  # long_line stands for the size cap


def _check(case: runs.Case) -> None:
    assert case.run is not None
    detail = f"{case.kind} [{case.mode}, jax={case.jax}] {case.run.seconds:.1f} s {case.run.peak_mb:.0f} MB"
    assert case.problems == [], detail + "\n" + "\n".join(case.problems) + "\n" + case.run.stderr[-2000:]


@pytest.mark.parametrize("kind", FAST_KINDS)
def test_hostile_file_beside_a_buggy_one(kind, tmp_path):
    k = gen.KINDS[kind]
    _check(runs.run_case(k, k.quick, True, "inproc", tmp_path))


@pytest.mark.parametrize(
    "kind,mode",
    [
        ("bool_chain", "stdin"),
        ("devzero", "stdin"),
        ("binary_chain", "parallel"),
        ("fifo", "imported"),
        ("devzero", "imported"),
        ("self_symlink", "parallel"),
        ("fifo", "stub"),
        ("bad_hex_escape", "stub"),
        ("dotted_import", "infer"),
        ("devzero", "infer"),
    ],
)
def test_hostile_file_in_other_front_ends(kind, mode, tmp_path):
    k = gen.KINDS[kind]
    _check(runs.run_case(k, k.quick, True, mode, tmp_path))


@pytest.mark.parametrize("kind", ["binary_chain", "unary_chain", "nested_lambda"])
def test_file_without_jax_does_not_end_the_run(kind, tmp_path):
    """The relevance shortcut: a file that never mentions jax is still parsed by the project's import scan."""
    k = gen.KINDS[kind]
    _check(runs.run_case(k, k.quick, False, "parallel", tmp_path))


def test_expected_outcomes_are_what_python_says(tmp_path):
    """The kinds expected to be clean compile; the ones expected to be one NC001 do not (the table is right)."""
    for name, k in gen.KINDS.items():
        if k.special or k.heavy:
            continue
        try:
            compile(k.make(k.quick, True), name, "exec")
            compiles = True
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            compiles = False
        if k.expect == "clean":
            assert compiles, name
        if k.expect == "nc001":
            assert not compiles, name


@pytest.mark.slow
@pytest.mark.parametrize("mode", runs.MODES)
@pytest.mark.parametrize("kind", list(gen.KINDS))
def test_hostile_kind_in_every_mode(kind, mode, tmp_path):
    k = gen.KINDS[kind]
    if mode == "stdin" and not k.stdin or mode == "stub" and not k.stub:
        pytest.skip(f"{kind} is not given {'on stdin' if mode == 'stdin' else 'as a stub'}")
    variants = (True, False) if mode in ("inproc", "parallel", "imported") else (True,)
    for jax in variants:
        for case in runs.hostile([kind], [mode], False, tmp_path, (jax,)):
            _check(case)
