"""einops' patterns against the installed JAX and einops: every function of tests/cases/lib_einops.py with an
`expect` raises when run (einops' error, or JAX's where it concatenates), every function the checker is silent on
runs, and every `reveal` is the shape and dtype the value has when it runs (symbols bound to the arguments)."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import os
import re
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
pytest.importorskip("jax")
pytest.importorskip("einops")

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402
from namedcheck.engine.symbolic import evaluate_size  # noqa: E402
from namedcheck.engine.values import ArrayType, Const, Seq  # noqa: E402

CASE = Path(__file__).parent / "cases" / "lib_einops.py"
ARGS: dict[str, tuple[Any, ...]] = {"symbolic": (3,), "unknown_input": (__import__("numpy").zeros((2, 8)),)}
EXPECT = re.compile(r"#\s*expect:\s*([A-Z0-9_,\s]+?)\s*(?:#|$)")
RAISED = (RuntimeError, TypeError, ValueError)  # einops' EinopsError is a RuntimeError; jnp.concatenate's TypeError


def _functions(case: Path) -> dict[str, tuple[int, int]]:
    tree = ast.parse(case.read_text())
    return {
        n.name: (n.lineno, n.end_lineno or n.lineno)
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")  # `_helper`s are called by the others
    }


def _assigned(case: Path) -> dict[int, str]:
    """The name each single-target assignment binds, by line."""
    tree = ast.parse(case.read_text())
    return {
        n.lineno: n.targets[0].id
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
    }


def _run_recording(fn: Any, args: tuple[Any, ...], names: dict[int, str]) -> dict[int, Any]:
    """Run `fn`, recording the value each assignment of its body bound, by the assignment's line."""
    seen: dict[int, Any] = {}
    pending: list[int] = []
    code = fn.__code__

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        if frame.f_code is not code:
            return None
        if event in ("line", "return"):
            for line in pending:
                if names[line] in frame.f_locals:
                    seen[line] = frame.f_locals[names[line]]
            pending.clear()
            if event == "line" and frame.f_lineno in names:
                pending.append(frame.f_lineno)
        return tracer

    sys.settrace(tracer)
    try:
        fn(*args)
    finally:
        sys.settrace(None)
    return seen


def _agrees(inferred: Any, value: Any, env: dict[str, int]) -> bool:
    """An inferred type and a run value agree: each array leaf's shape (symbols bound by `env`) and dtype."""
    if isinstance(inferred, Seq) and isinstance(value, dict) and inferred.kind == "dict":
        pairs = {k.items[0].value: k.items[1] for k in inferred.items}
        return pairs.keys() == value.keys() and all(_agrees(pairs[k], value[k], env) for k in value)
    if isinstance(inferred, Seq) and isinstance(value, list | tuple):
        return len(inferred.items) == len(value) and all(_agrees(i, v, env) for i, v in zip(inferred.items, value))
    if isinstance(inferred, Const):
        return bool(inferred.value == value)
    if not isinstance(inferred, ArrayType):
        return False
    shape = tuple(evaluate_size(d, env) for d in inferred.shape)
    return shape == tuple(value.shape) and (inferred.dtype is None or inferred.dtype == str(value.dtype))


def check_case_under_jax(case: Path, args: dict[str, tuple[Any, ...]]) -> int:
    """Run every top-level function of a case file: those with an `expect` raise, the others run and every
    `reveal` in them is the value bound there. The number of reveals checked."""
    diags, revealed = analyse_for_test(case.read_text(), case.name)
    spec = importlib.util.spec_from_file_location(case.stem + "_case", case)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # the module's own calls run: the silent functions pass
    lines = case.read_text().splitlines()
    reveals = {i for i, line in enumerate(lines, 1) if "# reveal:" in line}
    names = _assigned(case)
    checked = 0
    for name, (first, last) in _functions(case).items():
        codes = {d.code for d in diags if first <= d.line <= last}
        written = {
            c.strip() for line in lines[first - 1 : last] if (m := EXPECT.search(line)) for c in m.group(1).split(",")
        }
        assert codes == written, name
        fn = getattr(module, name)
        given = args.get(name, ())
        assert len(given) == len(inspect.signature(fn).parameters), name
        if codes:
            with pytest.raises(RAISED):
                fn(*given)
            continue
        values = _run_recording(fn, given, names)
        env = {p: a for p, a in zip(inspect.signature(fn).parameters, given) if isinstance(a, int)}
        for line in sorted(r for r in reveals if first <= r <= last):
            assert line in values, f"{case.name}:{line}: nothing bound"
            assert _agrees(revealed[line], values[line], env), (
                f"{case.name}:{line}: {revealed[line]!r} vs {values[line]}"
            )
            checked += 1
    assert checked == len(reveals)
    return checked


def test_the_checkers_verdicts_are_what_jax_and_einops_do() -> None:
    assert check_case_under_jax(CASE, ARGS) >= 20


AXES = ["a", "b", "c", "(a b)", "(b a)", "(a c)", "1", "()", "...", "(...)", "2", "3", "(a 2)", "h_", "a,"]


def _side(rng: Any, names: list[str]) -> str:
    """The names grouped at random into composites, with unit axes and an ellipsis here and there."""
    out, i = [], 0
    while i < len(names):
        k = int(rng.integers(1, 3))
        group = names[i : i + k]
        out.append(group[0] if len(group) == 1 and rng.random() < 0.7 else "(" + " ".join(group) + ")")
        i += k
    if rng.random() < 0.15:
        out.insert(int(rng.integers(0, len(out) + 1)), str(rng.choice(["1", "()", "2"])))
    return " ".join(out)


def _groups(side: str) -> list[list[str]]:
    return [g.split() for g in re.findall(r"\(([^)]*)\)|(\S+)", side) for g in [g[0] or g[1]]]


def _size(group: list[str], true: dict[str, int]) -> int:
    n = 1
    for a in group:
        n *= int(a) if a.isdecimal() else true[a]
    return n


def _patterns(rng: Any) -> list[tuple[str, str, dict[str, int], tuple[int, ...]]]:
    """Random (operation, pattern, sizes, shape) draws: half from a random alphabet (mostly rejected), half a
    left side regrouped and reordered on the right, then changed a little."""
    out = []
    for i in range(1500):
        op = str(rng.choice(["rearrange", "reduce", "repeat"]))
        if i % 2:
            left = " ".join(rng.choice(AXES, size=rng.integers(0, 4)))
            right = " ".join(rng.choice(AXES, size=rng.integers(0, 4)))
        else:
            names = [str(n) for n in rng.permutation(["a", "b", "c", "d"])[: rng.integers(1, 5)]]
            left = _side(rng, names)
            moved = [str(n) for n in rng.permutation(names)]
            if rng.random() < 0.3:
                moved.pop(int(rng.integers(0, len(moved))))
            if rng.random() < 0.3:
                moved.append("e")
            right = _side(rng, moved)
            true = {n: int(rng.integers(1, 5)) for n in "abcde"}
            shape = tuple(_size(g, true) for g in _groups(left))
            if rng.random() < 0.2:
                left, right = "... " + left, "... " + right
                shape = tuple(int(d) for d in rng.integers(1, 4, size=rng.integers(0, 3))) + shape
            if shape and rng.random() < 0.2:
                j = int(rng.integers(0, len(shape)))
                shape = shape[:j] + (shape[j] + 1,) + shape[j + 1 :]
            keys = rng.choice(["a", "b", "c", "e"], size=rng.integers(0, 3))
            sizes = {str(k): true[str(k)] if rng.random() < 0.7 else int(rng.integers(1, 5)) for k in keys}
            out.append((op, f"{left} -> {right}", sizes, shape))
            continue
        sizes = {str(k): int(rng.integers(1, 5)) for k in rng.choice(["a", "b", "c", "e"], size=rng.integers(0, 3))}
        shape = tuple(int(d) for d in rng.choice([1, 2, 3, 4, 6, 12], size=rng.integers(0, 5)))
        out.append((op, f"{left} -> {right}", sizes, shape))
    return out


def test_random_patterns_agree_with_einops() -> None:
    """The engine's rules on random patterns and shapes: where they report, einops raises; where they give a
    shape, einops gives that shape."""
    import einops
    import numpy as np

    from namedcheck.engine.errors import RuleError
    from namedcheck.engine.ops import run
    from namedcheck.engine.stubs import op_table
    from namedcheck.engine.values import Const

    ops = op_table()
    rng = np.random.default_rng(0)
    reported = shaped = 0
    for op, pattern, sizes, shape in _patterns(rng):
        x = np.zeros(shape, dtype=np.float32)
        args = [ArrayType.make("f32", shape), Const(pattern)] + ([Const("sum")] if op == "reduce" else [])
        try:
            got = run(ops[f"einops.{op}"], args, {k: Const(v) for k, v in sizes.items()})
        except RuleError as e:
            reported += 1
            with pytest.raises(Exception):  # noqa: B017 - einops' error or numpy's
                getattr(einops, op)(x, pattern, *(["sum"] if op == "reduce" else []), **sizes)
            assert e.code in ("NC702", "NC203"), pattern
            continue
        if isinstance(got, ArrayType) and not got.has_ellipsis:
            out = getattr(einops, op)(x, pattern, *(["sum"] if op == "reduce" else []), **sizes)
            assert tuple(out.shape) == got.shape, (op, pattern, sizes, shape)
            shaped += 1
    assert reported > 500 and shaped > 100, (reported, shaped)


def test_random_einsums_and_packs_agree_with_einops() -> None:
    """einops.einsum, pack and unpack on random patterns and shapes: where the rules report, einops (or JAX)
    raises; where they give a shape, einops gives it."""
    import einops
    import jax.numpy as jnp
    import numpy as np

    from namedcheck.engine.errors import RuleError
    from namedcheck.engine.ops import run
    from namedcheck.engine.stubs import op_table
    from namedcheck.engine.values import Const

    ops = op_table()
    rng = np.random.default_rng(1)
    reported = shaped = 0
    for _ in range(400):
        n = int(rng.integers(1, 3))
        terms = [[str(a) for a in rng.permutation(["bb", "i", "j", "k"])[: rng.integers(0, 4)]] for _ in range(n)]
        shapes = [tuple(int(rng.choice([2, 3])) for _ in t) for t in terms]
        if rng.random() < 0.2:  # a rank the pattern does not have
            shapes[0] = shapes[0] + (2,)
        seen = sorted({a for t in terms for a in t})
        out = [str(a) for a in rng.permutation(seen + (["z"] if rng.random() < 0.2 else []))[: rng.integers(0, 4)]]
        pattern = ", ".join(" ".join(t) for t in terms) + " -> " + " ".join(out)
        xs = [jnp.zeros(s) for s in shapes]
        args = [ArrayType.make("f32", s) for s in shapes] + [Const(pattern)]
        try:
            got = run(ops["einops.einsum"], args, {})
        except RuleError:
            reported += 1
            with pytest.raises(Exception):  # noqa: B017 - einops' error or JAX's
                einops.einsum(*xs, pattern)
            continue
        if isinstance(got, ArrayType):
            assert tuple(einops.einsum(*xs, pattern).shape) == got.shape, (pattern, shapes)
            shaped += 1
    for _ in range(300):
        pattern = str(rng.choice(["b * n", "* n", "b *", "b * n n", "b n"]))
        shapes = [tuple(int(d) for d in rng.integers(1, 4, size=rng.integers(0, 4))) for _ in range(rng.integers(1, 3))]
        xs = [jnp.zeros(s) for s in shapes]
        try:
            got = run(
                ops["einops.pack"], [Seq(tuple(ArrayType.make("f32", s) for s in shapes), "list"), Const(pattern)], {}
            )
        except RuleError:
            reported += 1
            with pytest.raises(Exception):  # noqa: B017
                einops.pack(xs, pattern)
            continue
        packed, sizes = einops.pack(xs, pattern)
        assert isinstance(got, Seq) and isinstance(got.items[0], ArrayType), pattern
        assert tuple(packed.shape) == got.items[0].shape, (pattern, shapes)
        back = run(ops["einops.unpack"], [got.items[0], got.items[1], Const(pattern)], {})
        assert [tuple(a.shape) for a in einops.unpack(packed, sizes, pattern)] == [b.shape for b in back.items]
        shaped += 1
    assert reported > 100 and shaped > 100, (reported, shaped)
