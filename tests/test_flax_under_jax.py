"""flax's cases (tests/cases/lib_flax*.py) under the installed JAX and flax (8 CPU devices): each program runs
statement by statement in a fresh process; flax raises exactly on the statements where the checker reports (a
diagnostic inside a function counts at every top-level statement that calls it with the failing arguments: its
related "called here" / "also with" lines), with the error flax or JAX raises for that rule, and every `# reveal:`
value's shape and dtype are the ones the program computes (tests/jaxrun.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("flax")

from tests.jaxrun import cases, check_reports_where_it_raises, check_reveals_are_computed  # noqa: E402

CASES = cases("lib_flax*.py")
ERRORS = {  # what flax / JAX raise for each code these cases use
    "NC305": ("ScopeParamShapeError",),
    "NC203": ("ValueError", "TypeError"),
    "NC201": ("ValueError", "TypeError"),
}


def test_there_are_cases() -> None:
    assert len(CASES) >= 2


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_checker_reports_exactly_where_flax_raises(case: Path) -> None:
    check_reports_where_it_raises(case, "flax_case", ERRORS, every_call=True, arrays_only=True, library="flax")


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_revealed_shapes_are_what_flax_computes(case: Path) -> None:
    check_reveals_are_computed(case, "flax_case", arrays_only=True)
