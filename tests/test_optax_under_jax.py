"""optax's optimizers against the installed JAX and optax: every function of tests/cases/lib_optax.py with an
`expect` raises when run, every function the checker is silent on runs, and every `reveal` is the value bound
there (the harness of tests/test_einops_under_jax.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
pytest.importorskip("jax")
pytest.importorskip("optax")
pytest.importorskip("einops")

from tests.test_einops_under_jax import check_case_under_jax  # noqa: E402

CASE = Path(__file__).parent / "cases" / "lib_optax.py"


def test_the_checkers_verdicts_are_what_jax_and_optax_do() -> None:
    assert check_case_under_jax(CASE, {}) >= 8
