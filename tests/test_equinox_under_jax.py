"""equinox's and diffrax's cases (tests/cases/lib_equinox*.py, lib_diffrax*.py) under the installed JAX, equinox and
diffrax (8 CPU devices): each program runs statement by statement in a fresh process; JAX / equinox / diffrax raise
exactly on the statements where the checker reports (a diagnostic inside a function a statement calls counts at that
statement), with the error they raise for that rule, and every `# reveal:` value's shape and dtype are the ones the
program computes (tests/jaxrun.py). The names analyzer/equinox.py and analyzer/diffrax.py model are the installed
libraries'."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("equinox")
pytest.importorskip("diffrax")

from tests.jaxrun import cases, check_reports_where_it_raises, check_reveals_are_computed  # noqa: E402

CASES = cases("lib_equinox*.py", "lib_diffrax*.py")
ERRORS = {c: ("ValueError", "TypeError") for c in ("NC201", "NC203", "NC402", "NC403", "NC408")}


def test_there_are_cases() -> None:
    assert CASES


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_checker_reports_exactly_where_the_library_raises(case: Path) -> None:
    check_reports_where_it_raises(case, "library_case", ERRORS)


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_revealed_shapes_are_what_the_program_computes(case: Path) -> None:
    check_reveals_are_computed(case, "library_case")


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
