"""The annotation objects users write are real, hashable and print in the written form."""

from __future__ import annotations

import subprocess
import sys

import pytest

from namedcheck import AnnotationError, Array, bool_, f32, i32


def test_introspection():
    t = f32[(5, 7), {"batch": 20, "seq": 30}]
    assert t.dtype == "float32"
    assert t.shape == (5, 7)
    assert t.named_shape == {"batch": 20, "seq": 30}
    assert repr(t) == "f32[(5, 7), {'batch': 20, 'seq': 30}]"


def test_named_order_has_no_meaning():
    a = f32[(5,), {"b": 2, "a": 3}]
    b = f32[(5,), {"a": 3, "b": 2}]
    assert a == b and hash(a) == hash(b)
    assert repr(a) == "f32[(5,), {'a': 3, 'b': 2}]"


def test_omitted_dict_means_no_named_axes():
    assert f32[(5,)] == f32[(5,), {}]
    assert f32[(5,)] != i32[(5,)]
    assert repr(f32[()]) == "f32[()]"
    assert repr(f32[(), {"x": 2}]) == "f32[(), {'x': 2}]"


def test_symbols_ellipsis_any_dtype():
    assert f32[("B", 784)].shape == ("B", 784)
    assert f32[(..., 3)].shape == (..., 3)
    assert f32[(), {"batch": "B"}].named_shape == {"batch": "B"}
    assert Array[(3,)].dtype is None
    assert repr(bool_[(2,)]) == "bool_[(2,)]"


@pytest.mark.parametrize(
    ("item", "code"),
    [
        ((-1, 7), "NC102"),
        (("not a name",), "NC102"),
        ((..., 3, ...), "NC104"),
        (5, "NC101"),
        (((5,), ["b"]), "NC101"),
        (((5,), {"b": -1}), "NC102"),
        ((1.5,), "NC102"),
    ],
)
def test_malformed_annotations_raise_clear_errors(item, code):
    with pytest.raises(AnnotationError) as e:
        f32[item]
    assert e.value.code == code
    assert code in str(e.value)


def test_import_is_light():
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, namedcheck; namedcheck.f32[(3,)]; "
            "print(sorted(m for m in ('jax', 'libcst', 'mypy') if m in sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "[]"


def test_sharded_dims_state_the_sharding_and_print_as_jax_does():
    from namedcheck import Array, Dims

    t = f32[Array, Dims("8@data", 4, "2@(data2,model)")]
    assert t.sharding == (("data",), (), ("data2", "model")) and t.shape == (8, 4, 2)
    assert repr(t) == "f32[(8@data, 4, 2@(data2,model))]"
    assert f32[("8@data", 4)] == f32[Array, Dims("8@data", 4)]
    assert f32[(8, 4)].sharding is None  # no '@': nothing stated
    assert f32[("8@()", 4)].sharding == ((), ())  # '@()': stated unsplit (replicated)
    sym = f32[Array, Dims("B@data", "T")]
    assert sym.shape == ("B", "T") and repr(sym) == "f32[('B@data', 'T')]"  # the repr is the annotation spelling


@pytest.mark.parametrize(
    "dims", [("8@", 4), ("8@data", "4@data"), ("*b", "4@data"), (..., "4@data"), ("-1@x",), ("8@da-ta",)]
)
def test_bad_sharded_dims_are_annotation_errors(dims):
    with pytest.raises(AnnotationError) as e:
        f32[dims]
    assert e.value.code in ("NC101", "NC102")
