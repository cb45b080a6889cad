"""The model-parameter and convolution corpus (tests/cases/models_*.py) under the installed JAX and flax (8 CPU
devices): each program runs statement by statement in a fresh process; JAX / flax raise exactly on the lines the
checker reports (`# expect:`; a diagnostic in a function the line calls counts there), with the error they raise for
that rule, and every `# reveal:` value's shape is the one the program computes (tests/jaxrun.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("flax")

from tests.jaxrun import cases, check_reports_where_it_raises, check_reveals_are_computed  # noqa: E402

CASES = cases("models_*.py")
# what JAX / flax raise for each code these cases use
ERRORS = {
    "NC305": ("ScopeParamShapeError", "TypeError"),  # flax; stax (its Dense is a jnp.dot)
    "NC203": ("ValueError", "TypeError"),
    "NC701": ("ValueError",),
}


def test_there_are_cases() -> None:
    assert len(CASES) >= 2


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_checker_reports_exactly_where_jax_raises(case: Path) -> None:
    check_reports_where_it_raises(case, "models_case", ERRORS, library="JAX")


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_revealed_shapes_are_what_jax_computes(case: Path) -> None:
    check_reveals_are_computed(case, "models_case")
