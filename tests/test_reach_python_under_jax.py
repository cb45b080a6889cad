"""The Python real pipelines are written in (generators, iterators, itertools, user pytrees, partial chains,
properties: tests/cases/reach_generators.py, reach_pytrees.py) under real JAX on 8 CPU devices: every
`right_*` function runs, every `wrong_*` one raises, and the checker flags exactly the `wrong_*` ones (a
diagnostic inside the function, or inside a helper it calls)."""

from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import importlib.util  # noqa: E402
import inspect  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402

jax = pytest.importorskip("jax")

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402

CASES = Path(__file__).parent / "cases"
FILES = ["reach_generators.py", "reach_pytrees.py"]


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"reach_case_{name[:-3]}", CASES / name)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _functions(name: str) -> list[tuple[str, str]]:
    source = (CASES / name).read_text(encoding="utf-8")
    return [
        (name, line.split("(")[0][4:]) for line in source.splitlines() if line.startswith(("def right_", "def wrong_"))
    ]


CALLS = [c for f in FILES for c in _functions(f)]


@pytest.fixture(scope="module")
def modules() -> dict[str, Any]:
    assert jax.device_count() == 8
    return {f: _load(f) for f in FILES}


@pytest.fixture(scope="module")
def flagged() -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for f in FILES:
        diags, _ = analyse_for_test((CASES / f).read_text(encoding="utf-8"), f)
        # where each diagnostic is, and the calls that caused it in a helper
        out[f] = {d.line for d in diags} | {
            r.line for d in diags for r in d.related if r.message.startswith("called here")
        }
    return out


@pytest.mark.parametrize(("file", "func"), CALLS, ids=[f"{f[:-3]}:{n}" for f, n in CALLS])
def test_jax_agrees(modules: dict[str, Any], flagged: dict[str, set[int]], file: str, func: str) -> None:
    fn = getattr(modules[file], func)
    lines, start = inspect.getsourcelines(fn)
    own = set(range(start, start + len(lines)))
    if func.startswith("right_"):
        jax.block_until_ready(fn())
        assert not own & flagged[file], f"{func}: the checker flags a program JAX runs"
    else:
        with pytest.raises((TypeError, ValueError)):
            jax.block_until_ready(fn())
        assert own & flagged[file], f"{func}: JAX raises, the checker is silent"


def test_every_file_has_both_kinds() -> None:
    for f in FILES:
        kinds = {n.split("_")[0] for file, n in CALLS if file == f}
        assert kinds == {"right", "wrong"}, f


NUMPY_SAMPLERS = [
    "np.random.choice(10, size=(4, 3))",
    "np.random.choice(np.arange(5.0), size=7)",
    "np.random.choice(len(np.ones((9, 2))), size=16)",
    "np.random.permutation(6)",
    "np.random.permutation(np.ones((4, 2), np.float32))",
    "np.random.default_rng(0).choice(10, size=3)",
    "np.random.default_rng(0).permutation(np.ones((3, 5), np.float32), axis=1)",
    "np.random.RandomState(0).choice(12, size=(2, 2))",
]


@pytest.mark.parametrize("expr", NUMPY_SAMPLERS)
def test_numpy_samplers_shapes(expr: str) -> None:
    """Batch indices sampled on the host (`np.random.choice(len(x), size=b)`): the inferred shape is numpy's."""
    import numpy as np

    _, revealed = analyse_for_test(f"import numpy as np\ny = {expr}\n")
    value = eval(expr, {"np": np})
    inferred = revealed[2]
    assert tuple(inferred.shape) == value.shape, (inferred, value.shape)  # type: ignore[attr-defined]
    kind = "f" if np.issubdtype(value.dtype, np.floating) else "i"
    assert inferred.dtype_code[0] == kind, (inferred, value.dtype)  # type: ignore[attr-defined]
