"""The one printer of types (engine/spelling.py): what it prints reads back through the one parser as the
same type, statically (the analyzer's reading of the syntax) and at run time (the annotation objects)."""

from __future__ import annotations

import libcst as cst
from hypothesis import given, settings
from hypothesis import strategies as st

import namedcheck.annotations as ann
from namedcheck.analyzer.literals import parse_annotation_subscript
from namedcheck.engine.dtypes import DTYPES
from namedcheck.engine.spelling import shown, spell, statable
from namedcheck.engine.syntax import parse_item
from namedcheck.engine.values import ArrayType, Seq

SYMBOLS = st.sampled_from(["B", "T", "N", "d_model", "N+1", "2*D", "D//H", "B*T"])
SIZES = st.one_of(st.integers(0, 4096), SYMBOLS)
NAMES = st.sampled_from(["batch", "heads", "seq", "my-axis", "class", "x y"])
MESH = st.sampled_from(["data", "model", "pod"])


@st.composite
def types(draw: st.DrawFn) -> ArrayType:
    head = draw(st.sampled_from([*DTYPES, "Float", "Int", "Num", "Complex", "Shaped"]))
    dims: list[object] = draw(st.lists(SIZES, max_size=4))
    named = draw(st.dictionaries(NAMES, SIZES, max_size=3))
    split = draw(st.booleans()) and dims
    if split:
        axes = draw(st.permutations(["data", "model", "pod"]))
        dims = [f"{d}@{axes[i]}" if i < 3 and draw(st.booleans()) else d for i, d in enumerate(dims)]
        if draw(st.booleans()) and isinstance(dims[0], int):
            dims[0] = f"{dims[0]}@()"
        named = {}  # a stated sharding is positional
    elif draw(st.booleans()):
        dims.insert(draw(st.integers(0, len(dims))), draw(st.sampled_from([..., "*batch", "*b"])))
    return parse_item(head, (tuple(dims), named))


def _static(text: str) -> ArrayType:
    node = cst.parse_expression(text)
    assert isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name)
    return parse_annotation_subscript(node.value.value, node)


def _runtime(text: str) -> ArrayType:
    scope = {n: getattr(ann, n) for n in ann.__all__}
    return eval(text, scope)  # the annotation objects' own __getitem__ (Array: namedcheck's leading type)


@settings(max_examples=300, deadline=None)
@given(types())
def test_printed_type_reads_back_as_the_same_type(t: ArrayType) -> None:
    text = spell(t)
    assert text.startswith(f"{t.family or t.dtype_code or 'Shaped'}[Array, Dims(")
    assert statable(t)
    assert _static(text) == t, text
    assert _runtime(text) == t, text
    assert _static(text).variadic == t.variadic and _static(text).family == t.family


def test_spellings_pinned() -> None:
    assert spell(ann.f32[(5, 7), {"batch": 20}]) == "f32[Array, Dims(5, 7, batch=20)]"
    assert spell(ann.f32[("B", "T")]) == "f32[Array, Dims('B', 'T')]"
    assert spell(ann.i32[()]) == "i32[Array, Dims()]"
    assert spell(ann.Float[("*b", 3)]) == "Float[Array, Dims('*b', 3)]"
    assert spell(ann.Shaped[(..., 3)]) == "Shaped[Array, Dims(..., 3)]"
    assert spell(ann.f32[("8@pod", "N@(data,model)", 4)]) == "f32[Array, Dims('8@pod', 'N@(data,model)', 4)]"
    assert spell(ann.f32[(2,), {"my-axis": 4, "b": 1}]) == "f32[Array, Dims(2, b=1, **{'my-axis': 4})]"
    assert spell(ann.f32[(2,)], base="jax.Array") == "f32[jax.Array, Dims(2)]"
    pair = Seq((ann.f32[(2,)], ann.i32[()]))
    assert spell(pair) == "tuple[f32[Array, Dims(2)], i32[Array, Dims()]]"


def test_shown_states_sets_beside_the_annotation() -> None:
    t = ArrayType.make("f32", (8,)).with_varying(frozenset({"data", "model"}))  # a type nobody wrote
    assert shown(t) == "f32[Array, Dims(8)] varying over {'data', 'model'}"
    # a type read from an annotation records how it was written, and messages print it so
    assert ann.f32[(8,)].spelling == "literal" and shown(ann.f32[(8,)]) == "f32[(8,)]"
    assert ann.f32[ann.Array, ann.Dims(8)].spelling == "dims" and shown(ann.f32[ann.Array, ann.Dims(8)]) == spell(t)
    assert shown(ann.f32[(8, 4), {"b": 2}], "literal") == "f32[(8, 4), {'b': 2}]"
    assert not statable(ArrayType.make("f32", (None, 4)))
    assert spell(ArrayType.make("f32", (None, 4))) == "f32[Array, Dims(?, 4)]"
