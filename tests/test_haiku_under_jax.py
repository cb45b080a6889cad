"""dm-haiku's cases (tests/cases/lib_haiku*.py) under the installed JAX and dm-haiku (8 CPU devices): each program runs
statement by statement in a fresh process; haiku raises exactly on the statements where the checker reports (a
diagnostic inside a function a statement calls counts at that statement), with the error haiku raises for that rule,
and every `# reveal:` value's shape and dtype are the ones the program computes (tests/jaxrun.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("haiku")

from tests.jaxrun import cases, check_reports_where_it_raises, check_reveals_are_computed  # noqa: E402

CASES = cases("lib_haiku*.py")
ERRORS = {"NC305": ("ValueError",), "NC203": ("ValueError", "TypeError")}  # haiku's get_parameter; its layers


def test_there_are_cases() -> None:
    assert CASES


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_checker_reports_exactly_where_haiku_raises(case: Path) -> None:
    check_reports_where_it_raises(case, "haiku_case", ERRORS, library="haiku")


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_revealed_shapes_are_what_haiku_computes(case: Path) -> None:
    check_reveals_are_computed(case, "haiku_case")
