"""The mapspec corpus (tests/cases/mapspec_shard_map.py) under real JAX: every function the checker
flags raises in JAX, every one it accepts runs (8 CPU devices, set in conftest)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

CASE = Path(__file__).parent / "cases" / "mapspec_shard_map.py"


@pytest.fixture(scope="module")
def m() -> Any:
    spec = importlib.util.spec_from_file_location("mapspec_case", CASE)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _calls(m: Any) -> dict[str, tuple[Callable[[], Any], bool]]:
    """name -> (the call, whether the checker flags it)."""
    params = m.init_params(jax.random.key(0), [8, 16, 4])
    batch = jnp.ones((16, 8))
    lhs, rhs = jnp.ones((8, 8)), jnp.ones((8, 4))
    bad, ok = m.make_train_step(m.mesh)
    return {
        "loss_forgot_pmean": (lambda: m.loss_forgot_pmean(params, batch), True),
        "loss_ok": (lambda: m.loss_ok(params, batch), False),
        "collective_matmul_bad": (lambda: m.collective_matmul_bad(lhs, rhs), True),
        "collective_matmul_ok": (lambda: m.collective_matmul_ok(lhs, rhs), False),
        "scan_layers_bad": (lambda: m.sharded_scan(jnp.ones((3, 8, 8)), jnp.ones((8, 8))), True),
        "pmap_bad": (lambda: m.pmapped_bad(jnp.ones((8, 3))), True),
        "pmap_ok": (lambda: m.pmapped_ok(jnp.ones((8, 3))), False),
        "normalise": (lambda: m.normalise(jnp.ones((8, 3))), False),
        "make_train_step_bad": (lambda: bad(jnp.ones((8, 4)), batch), True),
        "make_train_step_ok": (lambda: ok(jnp.ones((8, 4)), batch), False),
        "misspelt": (lambda: m.misspelt(jnp.ones((8, 8))), True),
        "repeated": (lambda: m.repeated(jnp.ones((8, 8))), True),
        "fine": (lambda: m.fine(jnp.ones((8, 8))), False),
        "inferred_specs_bad": (m.run_inferred_specs_bad, True),
        "inferred_specs_ok": (m.run_inferred_specs_ok, False),
        "gather": (lambda: m.make_gather(m.mesh)(jnp.ones((8, 3))), False),
        "layers_bad": (lambda: m.layers_bad([jnp.ones((8,))] * 2, jnp.ones((8,))), True),
        "layers_ok": (lambda: m.layers_ok([jnp.ones((8,))] * 2, jnp.ones((8,))), False),
    }


NAMES = [
    "loss_forgot_pmean",
    "loss_ok",
    "collective_matmul_bad",
    "collective_matmul_ok",
    "scan_layers_bad",
    "pmap_bad",
    "pmap_ok",
    "normalise",
    "make_train_step_bad",
    "make_train_step_ok",
    "misspelt",
    "repeated",
    "fine",
    "inferred_specs_bad",
    "inferred_specs_ok",
    "gather",
    "layers_bad",
    "layers_ok",
]


@pytest.mark.parametrize("name", NAMES)
def test_jax_agrees_with_the_checker(m: Any, name: str) -> None:
    call, flagged = _calls(m)[name]
    if flagged:
        with pytest.raises(Exception):  # noqa: B017 (JAX's error classes differ per rule)
            jax.block_until_ready(call())
    else:
        jax.block_until_ready(call())
