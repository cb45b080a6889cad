"""Property-based differential test: for random operand shapes, namedcheck reports a diagnostic
exactly when JAX rejects the op, and otherwise infers JAX's result shape."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402

shapes = st.lists(st.integers(min_value=1, max_value=4), min_size=0, max_size=3).map(tuple)
EXPRS = [
    "a + b",
    "a * b",
    "jnp.where(a > 0, a, b)",
    "a @ b",
    "jnp.dot(a, b)",
    "jnp.matmul(a, b)",
    "jnp.concatenate([a, b])",
    "jnp.stack([a, b], axis=-1)",
    "jnp.tensordot(a, b, axes=1)",
    "jnp.einsum('...i,...i->...', a, b)",
    "jnp.inner(a, b)",
]


def _program(expr: str, sa: tuple, sb: tuple) -> str:
    return (
        "import jax.numpy as jnp\nfrom namedcheck import f32\n\n"
        f"def f(a: f32[{sa!r}], b: f32[{sb!r}]) -> None:\n    out = {expr}\n"
    )


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(expr=st.sampled_from(EXPRS), sa=shapes, sb=shapes)
def test_random_shapes_agree_with_jax(expr: str, sa: tuple, sb: tuple) -> None:
    diags, revealed = analyse_for_test(_program(expr, sa, sb))
    try:
        real = jax.eval_shape(
            lambda a, b: eval(expr, {"jnp": jnp}, {"a": a, "b": b}),
            jax.ShapeDtypeStruct(sa, jnp.float32),
            jax.ShapeDtypeStruct(sb, jnp.float32),
        )
    except Exception:  # noqa: BLE001 - JAX rejects the op
        real = None
    if real is None:
        # JAX rejects: namedcheck must either report it or stay silent with Unknown (never infer a type)
        assert diags or not hasattr(revealed.get(5), "shape"), (expr, sa, sb, revealed.get(5))
    else:
        assert diags == [], (expr, sa, sb, [d.message for d in diags])
        ours = revealed.get(5)
        if hasattr(ours, "shape"):
            assert ours.shape == real.shape, (expr, sa, sb, ours, real.shape)


def _unary_expr(draw_int, sa: tuple, perm: tuple, target: tuple) -> list[str]:
    k, j, n = draw_int
    return [
        f"jnp.sum(a, axis={k})",
        f"jnp.mean(a, axis=({k}, {j}))",
        f"jnp.max(a, axis={k}, keepdims=True)",
        f"jnp.argmax(a, axis={k})",
        f"a.reshape({n}, -1)",
        f"a.reshape(({n}, 2))",
        f"jnp.transpose(a, {perm})",
        f"a[:, {k}:{j}]",
        "a[..., None, 0]",
        f"jnp.expand_dims(a, {k})",
        f"jnp.squeeze(a, axis={k})",
        f"jnp.swapaxes(a, {k}, {j})",
        f"jnp.moveaxis(a, {k}, {j})",
        f"jax.nn.softmax(a, axis={k})",
        f"jnp.cumsum(a, axis={k})",
        f"jnp.split(a, 2, axis={k})[0]",
        f"jnp.concatenate([a, a], axis={k})",
        f"jax.nn.one_hot(a.astype(jnp.int32), {n}, axis={k})",
        f"jnp.stack([a, a], axis={k})",
        f"jnp.broadcast_to(a, {target})",
        "a.T",
        "jnp.ravel(a)",
    ]


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    sa=shapes,
    ints=st.tuples(st.integers(-4, 3), st.integers(-3, 3), st.integers(1, 24)),
    perm_seed=st.randoms(use_true_random=False),
    target=shapes,
    pick=st.integers(0, 21),
)
def test_random_axis_arguments_agree_with_jax(sa, ints, perm_seed, target, pick) -> None:
    perm = tuple(perm_seed.sample(range(len(sa) + 1), len(sa)))
    expr = _unary_expr(ints, sa, perm, target)[pick]
    program = (
        f"import jax\nimport jax.numpy as jnp\nfrom namedcheck import f32\n\n"
        f"def f(a: f32[{sa!r}]) -> None:\n    out = {expr}\n"
    )
    diags, revealed = analyse_for_test(program)
    try:
        real = jax.eval_shape(
            lambda a: eval(expr, {"jnp": jnp, "jax": jax}, {"a": a}), jax.ShapeDtypeStruct(sa, jnp.float32)
        )
    except Exception:  # noqa: BLE001
        real = None
    if real is None:
        assert diags, (expr, sa)  # every rejection of these ops is provable from literal shapes
    else:
        assert diags == [], (expr, sa, [d.message for d in diags])
        ours = revealed.get(6)
        assert hasattr(ours, "shape") and ours.shape == real.shape, (expr, sa, ours, real.shape)
