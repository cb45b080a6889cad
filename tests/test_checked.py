"""@namedcheck.checked: right and wrong calls, symbols across parameters and the result, named shapes
inside xmap, trace-time-only checking under jit."""

from __future__ import annotations

from typing import Annotated

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import PartitionSpec as P

from namedcheck import Array, Dims, ShapeError, checked, f32, i32, xmap


@checked
def matmul(a: f32[("B", "K")], b: f32[("K", "N")]) -> f32[("B", "N")]:
    return a @ b


@checked
def bad_result(a: f32[("B", 3)]) -> f32[("B", 4)]:
    return a


@checked
def per_example(x: f32[(3,), {"batch": "N"}]) -> f32[(), {"batch": "N"}]:
    return x.sum()


def test_right_call_passes_and_returns_the_value():
    out = matmul(jnp.ones((2, 3)), jnp.ones((3, 5)))
    assert out.shape == (2, 5)


def test_symbol_bound_to_two_sizes():
    with pytest.raises(ShapeError) as info:
        matmul(jnp.ones((2, 3)), jnp.ones((4, 5)))
    assert info.value.code == "NC303"
    assert "'K'" in str(info.value) and "3" in str(info.value) and "4" in str(info.value)


def test_rank_mismatch_names_parameter_expected_and_actual():
    with pytest.raises(ShapeError) as info:
        matmul(jnp.ones((2, 3, 1)), jnp.ones((3, 5)))
    msg = str(info.value)
    assert info.value.code == "NC302"
    assert "'a'" in msg and "f32[('B', 'K')]" in msg and "f32[(2, 3, 1)]" in msg


def test_dtype_mismatch():
    with pytest.raises(ShapeError) as info:
        matmul(jnp.ones((2, 3), jnp.int32), jnp.ones((3, 5)))
    assert info.value.code == "NC304"


def test_result_checked_against_bound_symbols():
    with pytest.raises(ShapeError) as info:
        bad_result(jnp.ones((2, 3)))
    assert info.value.code == "NC301" and "result" in str(info.value)


def test_is_a_type_error():
    assert issubclass(ShapeError, TypeError)


def test_annotated_spelling_and_string_annotations():
    @checked
    def f(x: Annotated[jax.Array, f32[(2,)]]) -> "f32[(2,)]":
        return x * 2

    f(jnp.ones(2))
    with pytest.raises(ShapeError):
        f(jnp.ones(3))


def test_named_shapes_inside_xmap():
    got = xmap(per_example, in_axes=["batch", ...], out_axes=["batch", ...])(jnp.ones((4, 3)))
    np.testing.assert_allclose(got, jnp.full(4, 3.0))
    with pytest.raises(ShapeError) as info:
        xmap(per_example, in_axes=["rows", ...], out_axes=["rows", ...])(jnp.ones((4, 3)))
    assert "'batch'" in str(info.value)


def test_under_jit_checks_at_trace_time_only():
    calls = []

    @checked
    def g(x: f32[(2,)]) -> f32[(2,)]:
        calls.append(1)
        return x + 1

    jg = jax.jit(g)
    jg(jnp.ones(2))
    jg(jnp.ones(2))
    assert len(calls) == 1
    with pytest.raises(ShapeError):
        jg(jnp.ones(3))


def test_python_scalars_are_weak():
    @checked
    def h(x: f32[()], n: i32[()]) -> f32[()]:
        return x * n

    assert float(h(2.0, 3)) == 6.0


def test_stated_shardings_are_compared_with_jax_typeof():
    """`Dims('8@data', 16)` states the sharding of `jax.typeof(x)` (8 CPU devices, an Explicit mesh)."""

    @checked
    def wrong_result(x: f32[Array, Dims("8@data", 16)]) -> f32[Array, Dims(8, "16@data")]:
        return x * 2

    @checked
    def moved(x: f32[Array, Dims("8@data", 16)]) -> f32[Array, Dims(8, "16@data")]:
        return jax.sharding.reshard(x, P(None, "data"))

    mesh = jax.make_mesh((4, 2), ("data", "model"))
    with jax.set_mesh(mesh):
        x = jax.device_put(jnp.ones((8, 16)), P("data"))
        assert moved(x).shape == (8, 16) and jax.jit(moved)(x).shape == (8, 16)
        for fn in (wrong_result, jax.jit(wrong_result)):
            with pytest.raises(ShapeError, match=r"result is sharded P\('data', None\)") as e:
                fn(x)
            assert e.value.code == "NC811"
        with pytest.raises(ShapeError, match="NC811"):
            moved(jnp.ones((8, 16)))  # made by jnp under set_mesh: committed replicated
        with pytest.raises(ShapeError, match="NC811"):
            moved(x)  # checked again on every call: the sharding is not part of the cache key
            moved(jnp.ones((8, 16)))
    # no Explicit mesh: the sharding is not part of the type, nothing is said
    auto = jax.make_mesh((8,), ("data",), axis_types=(jax.sharding.AxisType.Auto,))
    with jax.set_mesh(auto):
        y = jax.device_put(jnp.ones((8, 16)), P("data"))
        assert wrong_result(y).shape == (8, 16)
