"""NC408's verdicts against the installed JAX: every program of tests/cases/nc408_carry.py runs under JAX.

`wrong_*` functions must raise JAX's TypeError about the loop carry (or while_loop's condition), `right_*`
functions must run; each wrong program carries exactly one `# expect: NC408` (tests/test_cases.py checks the
checker reports it there and nothing on the right ones). The two reported bugs of bench/reported/ about scan
carries are checked the same way.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
from pathlib import Path
from typing import Any

import pytest

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
jax = pytest.importorskip("jax")

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "tests" / "cases" / "nc408_carry.py"
REPORTED = [ROOT / "bench" / "reported" / n for n in ("022_scan_carry_none_vs_int.py", "023_scan_carry_reshape.py")]
# what JAX says when a loop's carry changes type, or its condition is not a boolean scalar
JAX_SAYS = re.compile(
    r"carry input and carry output must have (equal types|the same pytree structure)"
    r"|body_fun output and input must have identical types"
    r"|cond_fun must return a boolean scalar"
)


def _load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"_carry_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _programs() -> list[str]:
    tree = ast.parse(CASE.read_text(encoding="utf-8"))
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith(("wrong_", "right_"))]


@pytest.fixture(scope="module")
def cases() -> Any:
    return _load(CASE)


@pytest.mark.parametrize("name", _programs())
def test_program_under_jax(cases: Any, name: str) -> None:
    fn = getattr(cases, name)
    args = cases.ARGS.get(name, lambda: ())()
    if name.startswith("right_"):
        jax.block_until_ready(fn(*args))
        return
    with pytest.raises(TypeError) as e:
        fn(*args)
    assert JAX_SAYS.search(str(e.value)), str(e.value)


def test_each_wrong_program_has_one_expectation() -> None:
    source = CASE.read_text(encoding="utf-8")
    expected = [line for line in source.splitlines() if re.search(r"#\s*expect:\s*NC408", line)]
    wrong = [n for n in _programs() if n.startswith("wrong_")]
    assert len(expected) == len(wrong) and len(wrong) >= 20


@pytest.mark.parametrize("path", REPORTED, ids=lambda p: p.stem)
def test_reported_scan_carries(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    bug = next(i for i, line in enumerate(source.splitlines(), 1) if "# bug:" in line)
    diags, _ = analyse_for_test(source, path.name)
    assert [(d.line, d.code) for d in diags] == [(bug, "NC408")]
    with pytest.raises(TypeError, match=JAX_SAYS):
        _load(path).run()


NESTED = """\
import jax.numpy as jnp
from jax import lax


def step(carry, x):
    n, state = carry
    return (n + 1, {"h": state["h"] @ x, "c": state["c"]}), None


init = (0, {"h": jnp.zeros((2, 4)), "c": jnp.zeros(4)})
lax.scan(step, init, jnp.ones((3, 4, 8)))
"""


def test_nested_carry_item_is_named_by_its_path() -> None:
    [d] = [d for d in analyse_for_test(NESTED, "m.py")[0] if d.code == "NC408"]
    assert d.line == 7 and d.message == (
        "lax.scan: carry item 1 ['h'] starts as f32[Array, Dims(2, 4)] but the body returns f32[Array, Dims(2, 8)]; "
        "a loop carry must keep its shape across iterations"
    )
    assert d.data["path"] == [1, "h"] and d.data["part"] == "shape"
    assert [(r.line, r.message) for r in d.related] == [
        (11, "carry item 1 ['h'] starts as f32[Array, Dims(2, 4)] here"),
        (10, "carry item 1 ['h'] gets its shape (2, 4) from jnp.zeros here"),
    ]
    with pytest.raises(TypeError, match=JAX_SAYS):
        exec(compile(NESTED, "m.py", "exec"), {})
