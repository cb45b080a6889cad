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


CASE = Path(__file__).parent / "cases" / "lib_optax.py"


def test_the_checkers_verdicts_are_what_jax_and_optax_do() -> None:
    """In a process of its own (forked from one that imported JAX: tests/fresh_process.py), under a time limit (a
    recording run of `jax.grad` under `sys.settrace` once did not return in a loaded parallel run: a stuck test must
    fail, not hold the suite)."""
    from tests.fresh_process import run_fresh

    root = Path(__file__).resolve().parent.parent
    code = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]);"
        "from tests.test_einops_under_jax import check_case_under_jax;"
        "n = check_case_under_jax(Path(sys.argv[2]), {'either': (True,)}); assert n >= 8, n"
    )
    # (the environment is this process's: NAMEDCHECK_STRICT, the quiet default budgets, JAX on the CPU)
    proc = run_fresh(code, str(root), str(CASE), timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_modelled_names_are_optaxs() -> None:
    """Every name the checker models is one of the installed optax's, the same object wherever it is reached, and
    the builders are annotated to return a GradientTransformation."""
    import importlib
    import inspect

    import optax

    from namedcheck.analyzer import optax as modelled

    names = modelled.BUILDERS | set(modelled.WRAPPERS) | modelled.SCHEDULES
    names |= {"apply_updates", "chain", "named_chain", "inject_hyperparams", "constant_schedule"}
    for name in names:
        assert hasattr(optax, name), name
    for name in modelled.BUILDERS:
        assert "GradientTransformation" in str(inspect.signature(getattr(optax, name)).return_annotation), name
    for module in modelled._MODULES:
        try:
            mod = importlib.import_module(module)
        except ImportError:
            continue  # a module of another optax version
        for name in names:
            if hasattr(mod, name):
                assert getattr(mod, name) is getattr(optax, name), (module, name)
