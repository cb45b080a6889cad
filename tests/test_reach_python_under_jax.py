"""The Python real pipelines are written in (generators, iterators, itertools, user pytrees, partial chains,
properties: tests/cases/reach_generators.py, reach_pytrees.py; knowledge through unknown parts, narrowing, numpy's
and x64's widths: reach_degrade.py, reach_python.py, reach_x64.py; loop carries and changed globals:
reach_later_values.py; calls into helpers (`**kwargs`, classes without `__init__`): reach_calls.py) under real JAX on 8 CPU devices: every
`right_*` function runs, every `wrong_*` one raises, and the checker flags exactly the `wrong_*` ones (a
diagnostic inside the function, or inside a helper it calls); every `# reveal:` value, in module code and in
the `right_*` functions, is what the run computes there (its rank, known sizes and dtype)."""

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
from tests.fresh_process import run_fresh  # noqa: E402

CASES = Path(__file__).parent / "cases"
FILES = [
    "reach_generators.py",
    "reach_pytrees.py",
    "reach_degrade.py",
    "reach_python.py",
    "reach_later_values.py",
    "reach_calls.py",
]
# runs in a process of its own (it sets a global JAX flag): only its reveals are compared with the run
RUN_ALONE = ["reach_x64.py"]


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
        with pytest.raises(Exception) as raised:  # a shape error, a sharding type error, a failing assert
            jax.block_until_ready(fn())
        assert isinstance(raised.value, TypeError | ValueError | AssertionError) or (
            type(raised.value).__name__ == "ShardingTypeError"
        ), raised.value
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


# Runs a case file in a fresh process with a tracer: after each `# reveal:` line assigning one name, the
# shapes and dtypes (or Python ints) that name holds, in module code and in every `right_*` function.
REVEAL_RUNNER = r"""
import ast, json, os, sys, importlib.util
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np
path = sys.argv[1]
src = open(path, encoding="utf-8").read()
lines = src.splitlines()
targets = {}
for node in ast.walk(ast.parse(src)):
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
        if "# reveal:" in lines[node.lineno - 1]:
            targets[node.lineno] = node.targets[0].id
seen = {}
pending = {}

def describe(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return ["int", v]
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return ["array", [int(d) for d in v.shape], str(np.dtype(v.dtype)) if "key" not in str(v.dtype) else None]
    if isinstance(v, (list, tuple)):
        return ["seq", [describe(i) for i in v]]
    return None

def local(frame, event, arg):
    key = id(frame)
    if key in pending:
        line, name = pending.pop(key)
        if name in frame.f_locals:
            seen.setdefault(line, []).append(describe(frame.f_locals[name]))
    if event == "line" and frame.f_lineno in targets:
        pending[key] = (frame.f_lineno, targets[frame.f_lineno])
    return local

def tracer(frame, event, arg):
    return local if frame.f_code.co_filename == path else None

sys.settrace(tracer)
spec = importlib.util.spec_from_file_location("reach_reveal_case", path)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
for name in dir(mod):
    if name.startswith("right_"):
        getattr(mod, name)()
sys.settrace(None)
print(json.dumps({str(k): v for k, v in seen.items()}))
"""


def _agrees(ours: Any, run: Any) -> bool:
    """The inferred value says nothing the run contradicts: an array's rank, known sizes and known dtype; an int."""
    from namedcheck.engine.values import ArrayType, Const, Seq

    if run is None:
        return True
    if isinstance(ours, Const) and isinstance(ours.value, int) and not isinstance(ours.value, bool):
        return run == ["int", ours.value]
    if isinstance(ours, Seq) and ours.kind in ("list", "tuple"):
        return run[0] == "seq" and len(run[1]) == len(ours.items) and all(map(_agrees, ours.items, run[1]))
    if isinstance(ours, ArrayType) and not ours.has_ellipsis:
        if run[0] != "array" or len(run[1]) != len(ours.shape):
            return False
        sizes = all(not isinstance(d, int) or d == r for d, r in zip(ours.shape, run[1]))
        weak = ours.dtype_code is not None and "*" in ours.dtype_code
        return sizes and (ours.dtype is None or weak or run[2] is None or ours.dtype == run[2])
    return True  # Unknown, or only partly known: says nothing


@pytest.mark.parametrize("file", FILES + RUN_ALONE)
def test_revealed_values_are_the_runs(file: str) -> None:
    import json

    source = (CASES / file).read_text(encoding="utf-8")
    _, revealed = analyse_for_test(source, file)
    out = run_fresh(REVEAL_RUNNER, str(CASES / file))
    assert out.returncode == 0, out.stderr[-2000:]
    seen = {int(k): v for k, v in json.loads(out.stdout.strip().splitlines()[-1]).items()}
    reveals = [i for i, line in enumerate(source.splitlines(), 1) if "# reveal:" in line]
    checked = 0
    for line in reveals:
        for run in seen.get(line, []):
            assert _agrees(revealed[line], run), f"{file}:{line}: inferred {revealed[line]!r}, the run: {run}"
            checked += 1
    assert checked >= len([r for r in reveals if r in seen]), file
