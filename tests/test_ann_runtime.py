"""Runtime face of the annotation language: the short spelling, variadic dims, size arithmetic and
dtype families under @checked, and install_import_hook on a temporary package."""

from __future__ import annotations

import importlib
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import Array

from namedcheck import AnnotationError, Dims, Float, Int, ShapeError, checked, f32, install_import_hook


def test_short_spelling_reads_like_the_literal_one():
    assert f32[Array, Dims(5, 7, b=2)] == f32[(5, 7), {"b": 2}]
    assert f32[jax.Array, Dims("B", 784)] == f32[("B", 784)]
    assert f32[Array, Dims()] == f32[()]
    assert f32[Array, (5, 7)] == f32[(5, 7)]
    assert f32[Array, Dims(..., 3, **{"my-axis": 4})].named_shape == {"my-axis": 4}
    assert repr(Float[Array, Dims("*batch", "N+1")]) == "Float[('*batch', 'N+1')]"
    with pytest.raises(AnnotationError, match="NC101"):
        f32[Array, Dims(3), Dims(4)]
    with pytest.raises(AnnotationError, match="NC102"):
        f32[Array, Dims("N**2")]


@checked
def normalise(x: f32[Array, Dims("*batch", "D")], s: f32[Array, Dims("*batch", 1)]) -> f32[Array, Dims("*batch", "D")]:
    return x / s


@checked
def shift(x: f32[Array, Dims("N+1")]) -> f32[Array, Dims("N")]:
    return x[1:]


@checked
def wrong_shift(x: f32[Array, Dims("N+1")]) -> f32[Array, Dims("N")]:
    return x


@checked
def scale(x: Float[Array, Dims("N")], k: Int[Array, Dims()]) -> Float[Array, Dims("N")]:
    return x * k


def test_variadic_run_is_one_run_per_call():
    x, s = jnp.ones((2, 3, 4)), jnp.full((2, 3, 1), 2.0)
    np.testing.assert_allclose(normalise(x, s), x / s)
    with pytest.raises(ShapeError) as info:
        normalise(x, jnp.ones((2, 5, 1)))
    assert info.value.code == "NC303" and "*batch" in str(info.value)


def test_size_arithmetic_binds_and_checks():
    np.testing.assert_allclose(shift(jnp.arange(8.0)), jnp.arange(8.0)[1:])
    with pytest.raises(ShapeError) as info:
        wrong_shift(jnp.arange(8.0))
    assert info.value.code == "NC301"


def test_dtype_families():
    out = scale(jnp.ones(3, jnp.bfloat16), jnp.array(2))
    assert out.dtype == jnp.bfloat16
    with pytest.raises(ShapeError) as info:
        scale(jnp.arange(3), jnp.array(2))
    assert info.value.code == "NC304" and "Float" in str(info.value)
    with pytest.raises(ShapeError):
        scale(jnp.ones(3), jnp.array(2.0))


_PKG = {
    "__init__.py": "from .layers import dense, good_model\n",
    "layers.py": """
        from __future__ import annotations

        import jax.numpy as jnp
        from jax import Array

        from namedcheck import Dims, f32


        def dense(x: f32[Array, Dims('B', 'K')], w: f32[Array, Dims('K', 'N')]) -> f32[Array, Dims('B', 'N')]:
            return jnp.tanh(x @ w)


        def good_model(x, w1, w2):
            return dense(dense(x, w1), w2)


        def wrong_result(x: f32[Array, Dims('B', 'K')]) -> f32[Array, Dims('K', 'B')]:
            return x


        class Block:
            def __init__(self, w: f32[Array, Dims('K', 'N')]) -> None:
                self.w = w

            def __call__(self, x: f32[Array, Dims('B', 'K')]) -> f32[Array, Dims('B', 'N')]:
                return x @ self.w

            @staticmethod
            def unit(x: f32[Array, Dims(3)]) -> f32[Array, Dims(3)]:
                return x
    """,
}


@pytest.fixture
def package(tmp_path, monkeypatch):
    root = tmp_path / "nc_hooked_pkg"
    root.mkdir()
    for name, text in _PKG.items():
        (root / name).write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "nc_hooked_pkg"
    for mod in [m for m in sys.modules if m == "nc_hooked_pkg" or m.startswith("nc_hooked_pkg.")]:
        del sys.modules[mod]


def test_import_hook_checks_every_annotated_function(package):
    with install_import_hook(package):
        pkg = importlib.import_module(package)
        layers = importlib.import_module(package + ".layers")
    x, w1, w2 = jnp.ones((4, 3)), jnp.full((3, 5), 0.1), jnp.full((5, 2), 0.2)
    expected = jnp.tanh(jnp.tanh(x @ w1) @ w2)  # plain JAX
    np.testing.assert_allclose(pkg.good_model(x, w1, w2), expected, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(pkg.good_model)(x, w1, w2), expected, rtol=1e-6)
    with pytest.raises(ShapeError) as info:
        pkg.dense(x, w2)  # K bound to 3 by x and to 5 by w2
    assert info.value.code == "NC303"
    with pytest.raises(ShapeError) as info:
        layers.good_model(x, w2, w2)  # the module's own calls go through the checked function
    assert info.value.code == "NC303"
    with pytest.raises(ShapeError) as info:
        layers.wrong_result(x)
    assert info.value.code == "NC301"
    block = layers.Block(w1)
    np.testing.assert_allclose(block(x), x @ w1)
    with pytest.raises(ShapeError):
        block(jnp.ones((4, 3, 1)))
    with pytest.raises(ShapeError):
        layers.Block.unit(jnp.ones(4))


def test_import_hook_leaves_other_modules_and_uninstalls(package):
    hook = install_import_hook(package)
    hook.uninstall()
    layers = importlib.import_module(package + ".layers")
    assert layers.wrong_result(jnp.ones((2, 3))).shape == (2, 3)  # not checked: the hook was removed
    with pytest.raises(TypeError, match="package name"):
        install_import_hook([])


def test_corpus_wrong_calls_fail_under_plain_jax():
    """ann_variadic.py / ann_arith.py: the wrong calls whose bodies JAX itself rejects."""
    with pytest.raises((TypeError, ValueError)):
        jnp.ones((8, 16, 64)) / jnp.ones((8, 4, 1))  # normalise(x, (8, 4, 1)): '*batch' runs differ
    x, d = jnp.ones(5), jnp.ones(5)
    with pytest.raises((TypeError, ValueError)):
        x[1:] - x[:-1] + d  # diff(x, d) with d of size N, not N-1
