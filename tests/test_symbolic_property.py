"""Property test of symbolic sizes: random chains of 2-5 ops (broadcasting arithmetic, reshape with -1, transpose,
expand_dims, sum over an axis, concatenate, matmul, einsum) over arrays whose shapes mix ints and the symbols
`n`, `m` (`n+1`, `2*n`), analysed once and run under JAX (`jax.eval_shape`) for three stand-ins of n, m.

A diagnostic on a step means JAX raises at that step or earlier under every stand-in; a revealed shape agrees
with JAX's at every step JAX reaches (a symbolic dim evaluated with `symbolic.evaluate_size`, `?` anything).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402
from namedcheck.engine import symbolic  # noqa: E402

STAND_INS = [(1, 1), (2, 3), (3, 1)]  # 1 stretches under broadcasting; n == m once, n != m twice
DIMS = ["1", "2", "3", "n", "m", "n+1", "2*n"]  # each is a Python expression in n, m and a size annotation
FIRST_LINE = 6  # the line of the first step in the program

dims = st.sampled_from(DIMS)


def _shape_code(shape: list[str]) -> str:
    return "(" + "".join(f"{d}, " for d in shape) + ")"


def _annotation(shape: list[str]) -> str:
    return repr(tuple(int(d) if d.isdigit() else d for d in shape))


@st.composite
def _step(draw: Any, x: str, shape: list[str]) -> tuple[str, list[str]]:
    """One op on the value `x` of (believed) shape `shape`: its code and the shape it should have. The belief
    only steers the draw towards programs JAX accepts; sometimes an operand is drawn at random instead."""
    r = len(shape)

    def like(s: list[str]) -> list[str]:  # the intended size, or now and then any size
        return [draw(dims) if draw(st.integers(0, 7)) == 0 else d for d in s]

    kinds = ["add", "reshape", "transpose", "expand_dims", "concatenate", "matmul"]
    kinds += ["sum", "einsum"] if r else []
    kind = draw(st.sampled_from(kinds))
    if kind == "add":  # broadcasting: drop leading dims, set some to 1
        other = [d if draw(st.booleans()) else "1" for d in like(shape)[draw(st.integers(0, r)) :]]
        op = draw(st.sampled_from(["+", "*", "-"]))
        return f"{x} {op} jnp.ones({_shape_code(other)})", shape
    if kind == "reshape":
        if r and draw(st.booleans()):
            return f"{x}.reshape({shape[0]}, -1)", [shape[0], "?"]
        return f"{x}.reshape(-1)", ["?"]
    if kind == "transpose":
        perm = draw(st.permutations(range(r)))
        return f"jnp.transpose({x}, {tuple(perm)!r})", [shape[i] for i in perm]
    if kind == "expand_dims":
        axis = draw(st.integers(-r - 1, r))
        at = axis % (r + 1)
        return f"jnp.expand_dims({x}, {axis})", shape[:at] + ["1"] + shape[at:]
    if kind == "sum":
        axis = draw(st.integers(-r, r - 1))
        return f"jnp.sum({x}, axis={axis})", shape[: axis % r] + shape[axis % r + 1 :]
    if kind == "concatenate":
        if not r:
            return f"jnp.concatenate([{x}, jnp.ones(())])", shape
        axis = draw(st.integers(0, r - 1))
        other = like(shape)
        other[axis] = draw(dims)
        return f"jnp.concatenate([{x}, jnp.ones({_shape_code(other)})], axis={axis})", shape[:axis] + ["?"] + shape[
            axis + 1 :
        ]
    k, new = like(shape[-1:] or ["3"]), draw(dims)
    if kind == "einsum" and r == 2:
        return f"jnp.einsum('ij,jk->ik', {x}, jnp.ones(({k[0]}, {new})))", [shape[0], new]
    if kind == "einsum":
        return f"jnp.einsum('...i,i->...', {x}, jnp.ones(({k[0]},)))", shape[:-1]
    return f"{x} @ jnp.ones(({k[0]}, {new}))", shape[:-1] + [new]


@st.composite
def _program(draw: Any) -> tuple[str, list[str], list[list[str]]]:
    """A program (typed arguments `a`, `b`, the ints `n`, `m`), its steps' code, the arguments' shapes."""
    args = [draw(st.lists(dims, min_size=0, max_size=3)) for _ in "ab"]
    x = draw(st.sampled_from(["a", "b"]))
    shape = args["ab".index(x)]
    steps = []
    for i in range(draw(st.integers(2, 5))):
        code, shape = draw(_step(x, [d if d != "?" else draw(dims) for d in shape]))
        steps.append(code)
        x = f"x{i}"
    params = "".join(f"{v}: f32[{_annotation(s)}], " for v, s in zip("ab", args))
    body = "".join(f"    x{i} = {code}\n" for i, code in enumerate(steps))
    src = f"import jax\nimport jax.numpy as jnp\nfrom namedcheck import f32\n\ndef f({params}n: int, m: int) -> None:\n{body}"
    return src, steps, args


def _run_jax(steps: list[str], args: list[list[str]], n: int, m: int) -> tuple[list[Any], int]:
    """The shapes JAX gives each step, and the step it first raises at (len(steps) when none)."""
    env: dict[str, Any] = {"jnp": jnp, "jax": jax, "n": n, "m": m}
    failed = [len(steps)]

    def fn(a: Any, b: Any) -> list[Any]:
        scope = {"a": a, "b": b}
        out = []
        for i, code in enumerate(steps):
            try:
                scope[f"x{i}"] = eval(code, env, scope)
            except Exception:  # noqa: BLE001 - any JAX error is a rejection
                failed[0] = i
                break
            out.append(scope[f"x{i}"])
        return out

    sizes = [tuple(symbolic.evaluate_size(d, {"n": n, "m": m}) for d in s) for s in args]
    shapes = jax.eval_shape(fn, *(jax.ShapeDtypeStruct(s, jnp.float32) for s in sizes))
    return shapes, failed[0]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_program())
def test_random_symbolic_chains_agree_with_jax(program: tuple[str, list[str], list[list[str]]]) -> None:
    src, steps, args = program
    diags, revealed = analyse_for_test(src)
    reported = sorted({d.line - FIRST_LINE for d in diags})
    for n, m in STAND_INS:
        shapes, failed = _run_jax(steps, args, n, m)
        where = f"n={n}, m={m}:\n{src}"
        # a diagnostic on step k: JAX raised at step k or before
        assert all(failed <= k for k in reported), (where, [(d.line, d.message) for d in diags], failed)
        for i, real in enumerate(shapes):
            ours = revealed.get(FIRST_LINE + i)
            if not hasattr(ours, "shape"):
                continue
            assert len(ours.shape) == len(real.shape), (where, i, ours, real.shape)
            for d, r in zip(ours.shape, real.shape):
                value = symbolic.evaluate_size(d, {"n": n, "m": m}) if isinstance(d, str) else d
                assert d is None or value == r, (where, i, ours, real.shape)
