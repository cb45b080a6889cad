"""Property test: random chains of elementwise / matmul / batched matmul / reduce / transpose / cumsum / sort / pad /
tile / slicing ops over arrays placed with random PartitionSpecs on an Explicit mesh (module-level code: eager). The checker reports an NC8xx error on exactly the line where JAX raises
its sharding type error, and every value it knows the sharding of has `jax.typeof`'s (derandomised in conftest)."""

from __future__ import annotations

from typing import Any

import pytest

jax = pytest.importorskip("jax")
hypothesis = pytest.importorskip("hypothesis")
import jax.numpy as jnp  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402

HEADER = (
    "import jax\nimport jax.numpy as jnp\nfrom jax.sharding import PartitionSpec as P\n"
    "mesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(mesh)\n"
)
SIZES = (8, 16)
ENTRIES = (None, "'data'", "'model'")
OPS = ("add", "matmul", "sum", "transpose", "tanh", "cumsum", "sort", "pad", "tile", "slice", "bmm")
MESH_SIZES = {"'data'": 4, "'model'": 2}


@st.composite
def spec(draw: Any, shape: tuple[int, ...]) -> str:
    entries = [draw(st.sampled_from(ENTRIES)) for _ in shape]
    for i, d in enumerate(shape):  # a mesh axis splits one dimension at most, and divides it
        if entries[i] is not None and (entries[i] in entries[:i] or d % MESH_SIZES[entries[i]]):
            entries[i] = None
    return "P(" + ", ".join("None" if e is None else e for e in entries) + ")"


@st.composite
def leaf(draw: Any, shape: tuple[int, ...]) -> str:
    return f"jax.device_put(jnp.ones({shape!r}), {draw(spec(shape))})"


@st.composite
def program(draw: Any) -> list[str]:
    """Lines `v0 = ...`, `v1 = f(v0, leaf)`, ...: each op applies to the previous value and a fresh leaf."""
    shape: tuple[int, ...] = tuple(draw(st.sampled_from(SIZES)) for _ in range(draw(st.integers(1, 2))))
    lines = [f"v0 = {draw(leaf(shape))}"]
    for i in range(1, draw(st.integers(2, 5))):
        op = draw(st.sampled_from(OPS))
        prev = f"v{i - 1}"
        if op == "add":
            # broadcasting: the other operand may drop the leading dim
            other = shape[1:] if len(shape) == 2 and draw(st.booleans()) else shape
            expr = f"{prev} + {draw(leaf(other))}"
        elif op == "matmul":
            n = draw(st.sampled_from(SIZES))
            expr = f"{prev} @ {draw(leaf((shape[-1], n)))}"
            shape = shape[:-1] + (n,)
        elif op == "sum":
            axis = draw(st.integers(0, len(shape) - 1))
            expr = f"{prev}.sum(axis={axis})"
            shape = shape[:axis] + shape[axis + 1 :]
        elif op == "transpose":
            expr = f"{prev}.T"
            shape = shape[::-1]
        elif op in ("cumsum", "sort"):
            expr = f"jnp.{op}({prev}, axis={draw(st.integers(0, len(shape) - 1))})"
        elif op == "pad":
            d = draw(st.integers(0, len(shape) - 1))
            lo, hi = draw(st.sampled_from(((1, 1), (0, 1), (2, 2), (4, 0), (0, 0))))
            widths = tuple((lo, hi) if i == d else (0, 0) for i in range(len(shape)))
            expr = f"jnp.pad({prev}, {widths!r})"
            shape = shape[:d] + (shape[d] + lo + hi,) + shape[d + 1 :]
        elif op == "tile":
            reps = tuple(draw(st.sampled_from((1, 2))) for _ in shape)
            expr = f"jnp.tile({prev}, {reps!r})"
            shape = tuple(n * r for n, r in zip(shape, reps))
        elif op == "slice":
            d = draw(st.integers(0, len(shape) - 1))
            stop = draw(st.integers(1, shape[d]))
            expr = f"{prev}[{':, ' * d}:{stop}]"
            shape = shape[:d] + (stop,) + shape[d + 1 :]
        elif op == "bmm" and len(shape) == 2:
            b, n = draw(st.sampled_from((2, 4))), draw(st.sampled_from(SIZES))
            expr = f"{prev} @ {draw(leaf((b, shape[-1], n)))}"
            shape = (b, shape[0], n)
        else:
            expr = f"jnp.tanh({prev})"
        lines.append(f"v{i} = {expr}")
        if not shape:
            break
    return lines


def under_jax(lines: list[str]) -> tuple[int | None, dict[int, str]]:
    """(the line JAX first raises on, or None; line -> str(jax.typeof(value)) for the lines before it)."""
    ns: dict[str, Any] = {"jax": jax, "jnp": jnp, "P": P}
    first = HEADER.count("\n") + 1
    types: dict[int, str] = {}
    for k, line in enumerate(lines):
        try:
            exec(line, ns)
        except Exception as e:  # noqa: BLE001
            # sharding type errors; batched matmul's batch-sharding mismatch is a ValueError
            assert type(e).__name__ in ("ShardingTypeError", "ValueError"), (line, e)
            return first + k, types
        types[first + k] = str(jax.typeof(ns[f"v{k}"]))
    return None, types


def dims(t: str) -> list[str]:
    """Both printed forms (`f32[(8@data, 16)]`, `float32[8@data,16]`) as ['8@data', '16']."""
    inner = t[t.index("[") + 1 : t.rindex("]")].strip("()")
    return [d.strip() for d in inner.replace(", ", ",").split(",") if d.strip()]


@settings(max_examples=60, deadline=None)
@given(program())
def test_random_chains_agree_with_jax(lines: list[str]) -> None:
    source = HEADER + "\n".join(lines) + "\n"
    diags, revealed = analyse_for_test(source, "prop.py")
    mesh = jax.make_mesh((4, 2), ("data", "model"))
    with jax.set_mesh(mesh):
        raised, types = under_jax(lines)
    reported = sorted(d.line for d in diags if d.code.startswith("NC8"))
    assert [d for d in diags if not d.code.startswith("NC8")] == [], source
    assert reported == ([raised] if raised else []), (source, diags, raised)
    for line, t in types.items():
        ours = revealed.get(line)
        assert ours is not None and ours.sharding is not None, (source, line, ours)
        assert dims(repr(ours)) == dims(t), (source, line, repr(ours), t)
