"""The type algebra: broadcasting properties (hypothesis), promotion, declared-vs-inferred."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from namedcheck.engine import dtypes, symbolic
from namedcheck.engine.algebra import broadcast_shapes, union_named
from namedcheck.engine.errors import RuleError
from namedcheck.engine.signature import compare_declared
from namedcheck.engine.values import ArrayType

dims = st.integers(min_value=1, max_value=4)
shapes = st.lists(dims, max_size=4).map(tuple)


def _bcast(a, b):
    try:
        return broadcast_shapes(a, b)
    except RuleError as e:
        assert e.code == "NC201"
        return "error"


@given(shapes, shapes)
def test_broadcast_is_commutative(a, b):
    assert _bcast(a, b) == _bcast(b, a)


@given(shapes, shapes)
def test_broadcast_matches_numpy(a, b):
    try:
        expected = np.broadcast_shapes(a, b)
    except ValueError:
        expected = "error"
    assert _bcast(a, b) == expected


@given(shapes, shapes, shapes)
def test_broadcast_is_associative_when_defined(a, b, c):
    ab = _bcast(a, b)
    bc = _bcast(b, c)
    left = "error" if ab == "error" else _bcast(ab, c)
    right = "error" if bc == "error" else _bcast(a, bc)
    assert left == right


def test_symbols_are_never_provably_wrong():
    assert broadcast_shapes(("B", 3), (5, 3)) == (5, 3)
    assert broadcast_shapes(("B",), ("N",)) == (None,)
    assert broadcast_shapes(("B",), ("B",)) == ("B",)
    assert broadcast_shapes((None, 4), (7, 4)) == (7, 4)


def test_ellipsis_keeps_a_variadic_prefix():
    assert broadcast_shapes((..., 3), (4, 3)) == (..., 3)
    with pytest.raises(RuleError):
        broadcast_shapes((..., 3), (4, 5))


names = st.dictionaries(st.sampled_from("abcd"), st.integers(1, 3), max_size=3)


@given(names, names)
def test_named_union_is_commutative(a, b):
    ta, tb = ArrayType.make("f32", (), a), ArrayType.make("f32", (), b)
    try:
        ab = union_named([ta, tb])
    except RuleError:
        ab = "error"
    try:
        ba = union_named([tb, ta])
    except RuleError:
        ba = "error"
    assert ab == ba
    conflict = any(a[k] != b[k] for k in a.keys() & b.keys())
    assert (ab == "error") == conflict
    if not conflict:
        assert ab == {**a, **b}


def test_named_axes_never_stretch():
    with pytest.raises(RuleError) as e:
        union_named([ArrayType.make("f32", (), {"b": 1}), ArrayType.make("f32", (), {"b": 5})])
    assert e.value.code == "NC202"


@pytest.mark.parametrize(
    ("a", "b", "out"),
    [
        ("i32", "f*", "f*"),
        ("u8", "i*", "u8"),
        ("u8", "i8", "i16"),
        ("bf16", "f16", "f32"),
        ("f32", "c*", "c64"),
        ("bool_", "i32", "i32"),
        ("u32", "i32", "i64"),
        ("f16", "f32", "f32"),
        ("i*", "f*", "f*"),
        ("bf16", "f*", "bf16"),
    ],
)
def test_promotion_matches_jax_lattice(a, b, out):
    assert dtypes.promote(a, b) == out
    assert dtypes.promote(b, a) == out


X64_OFF = {"int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64"}


def test_promotion_agrees_with_jax():
    jnp = pytest.importorskip("jax.numpy")
    codes = ["bool_", "u8", "u32", "i8", "i16", "i32", "bf16", "f16", "f32", "c64"]
    for a in codes:
        for b in codes:
            want = str(jnp.promote_types(dtypes.numpy_name(a), dtypes.numpy_name(b)))
            got = dtypes.numpy_name(dtypes.promote(a, b))
            got = X64_OFF.get(got, got)  # JAX runs with x64 disabled: 64-bit results are 32-bit
            assert got == want, (a, b)


def test_declared_against_inferred():
    compare_declared(ArrayType.make("f32", ("B", 3)), ArrayType.make("f32", (7, 3)), "x")
    compare_declared(ArrayType.make("f32", (..., 3)), ArrayType.make("f32", (2, 7, 3)), "x")
    compare_declared(ArrayType.make("f64", (3,)), ArrayType.make("f32", (3,)), "x")  # x64 pair
    for declared, inferred, code in [
        (ArrayType.make("f32", (4,)), ArrayType.make("f32", (3,)), "NC301"),
        (ArrayType.make("f32", (3,)), ArrayType.make("f32", (3, 1)), "NC301"),
        (ArrayType.make("f32", (3,), {"a": 2}), ArrayType.make("f32", (3,)), "NC301"),
        (ArrayType.make("f32", (3,), {"a": 2}), ArrayType.make("f32", (3,), {"a": 3}), "NC301"),
        (ArrayType.make("i32", (3,)), ArrayType.make("f32", (3,)), "NC304"),
    ]:
        with pytest.raises(RuleError) as e:
            compare_declared(declared, inferred, "x")
        assert e.value.code == code


size_texts = st.sampled_from(["n", "m", "n+1", "2*n", "2*n+1", "3*n+1", "m*n", "m*n+n", "(n//2)", "(n//2)+1", 4, 1])


@given(size_texts, size_texts, st.integers(1, 6), st.integers(1, 6))
def test_exceeds_holds_under_every_substitution(a, b, n, m):
    """`symbolic.exceeds(a, b)` (used for slices larger than their operand) is never wrong."""
    if symbolic.exceeds(a, b):
        env = {"n": n, "m": m}
        assert symbolic.evaluate_size(a, env) > symbolic.evaluate_size(b, env)


@given(size_texts, st.integers(1, 4), st.integers(1, 6), st.integers(1, 6))
def test_remainder_holds_under_every_substitution(a, k, n, m):
    """`symbolic.remainder(a, k)` (split into k sections, reshape by known sizes) is the value's remainder."""
    r = symbolic.remainder(a, k)
    if r is not None:
        assert symbolic.evaluate_size(a, {"n": n, "m": m}) % k == r


def test_exceeds_and_remainder_examples():
    assert symbolic.exceeds("n+1", "n") and symbolic.exceeds("2*n", "n") and symbolic.exceeds(5, 4)
    assert not symbolic.exceeds("n", 4) and not symbolic.exceeds("n", "m") and not symbolic.exceeds("n", "n")
    assert symbolic.remainder("3*n+1", 3) == 1 and symbolic.remainder("2*n", 2) == 0
    assert symbolic.remainder("n", 2) is None and symbolic.remainder(None, 2) is None
