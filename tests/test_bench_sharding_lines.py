"""The at-line benchmark of Explicit-axis errors (`bench/sharding_lines.py`) on a few of its programs: every
correct program runs under JAX and the checker is silent on it; every mutant JAX rejects is reported with a
diagnostic or a related location at the line to edit (the caller's placement, the sharding's own line, a
spec inside a tree), also when the error is raised inside a helper in another module."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import sharding_lines as bench  # noqa: E402

FEW = ("residual_add", "sharding_defined_apart", "params_tree_put", "init_in_helper", "shard_map_sum", "sgd_reshard")


@pytest.mark.slow
def test_a_few_programs_at_the_line_to_edit(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    programs = [p for p in bench.PROGRAMS if p.name in FEW]
    assert len(programs) == len(FEW)
    fig = bench.measure(programs, tmp_path)
    assert fig["correct_jax_rejects"] == [] and fig["mutants_jax_accepts"] == []
    assert fig["false_alarms"] == 0
    assert fig["mutants_kept"] == sum(len(p.mutants) for p in programs)
    assert fig["at_line"] == fig["mutants_kept"], [r for r in fig["rows"] if r.get("grade") not in (None, "at")]


def test_mutants_edit_one_line_each() -> None:
    for p in bench.PROGRAMS:
        base = p.files()
        for m in p.mutants:
            files, line = bench.apply(base, m)
            changed = [
                i + 1 for i, (a, b) in enumerate(zip(base[m.file].splitlines(), files[m.file].splitlines())) if a != b
            ]
            assert changed == [line], (p.name, m)


def test_grading() -> None:
    d = {"path": "./layers.py", "line": 9, "code": "NC801", "related": [{"path": "./train.py", "line": 12}]}
    assert bench.grade([d], "train.py", 12) == "at"
    assert bench.grade([d], "train.py", 14) == "near"
    assert bench.grade([d], "train.py", 20) == "elsewhere"
    assert bench.grade([], "train.py", 12) == "missed"
