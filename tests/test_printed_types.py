"""The printed form of an array type is read back exactly (`engine/syntax.parse_printed`): the mypy plugin
carries every inferred type through mypy as this text, so a type that did not survive the round trip would
silently lose its shape (or sharding, or unreduced set) at the next call."""

from __future__ import annotations

from pathlib import Path

import pytest

from namedcheck.analyzer.check import analyse_for_test
from namedcheck.engine.syntax import parse_printed
from namedcheck.engine.values import ArrayType

CASES = Path(__file__).parent / "cases"


def _stated(v: ArrayType) -> ArrayType:
    """What the plugin states of a value: dtype, shape, named axes, sharding, unreduced and reduced sets. A
    sharding that splits no dimension prints as none (as `jax.typeof` prints a replicated array), so it reads
    back as unknown: silent, never another sharding."""
    t = ArrayType.make(v.dtype_code, v.shape, dict(v.named))
    if v.sharding is not None and any(v.sharding):
        t = t.with_sharding(v.sharding)
    return ArrayType(
        **{**{f: getattr(t, f) for f in t.__dataclass_fields__}, "unreduced": v.unreduced, "reduced": v.reduced}
    )


def _concrete(v: ArrayType) -> bool:
    return all(isinstance(d, int) for d in v.shape) and all(isinstance(n, int) for _, n in v.named)


@pytest.mark.parametrize("case", sorted(CASES.glob("*.py")), ids=lambda p: p.name)
def test_every_inferred_type_of_the_corpus_round_trips(case: Path) -> None:
    _, revealed = analyse_for_test(case.read_text(encoding="utf-8"), case.name)
    for line, v in revealed.items():
        if not isinstance(v, ArrayType) or v.dtype_code is None or not _concrete(v):
            continue  # the plugin carries concrete types only (others are `Shaped[Any]`)
        t = _stated(v)
        assert parse_printed(repr(t)) == t, f"line {line}: {t!r}"


@pytest.mark.parametrize(
    "text",
    [
        "f32[(5, 3)]",
        "f32[(8@data, 4@model)]",
        "f32[(8@(data,model), 4)]{U:x}",
        "bf16[()]",
        "i32[(5,), {'b': 2}]",
        "f32[(2,)]{V:data}",
        "f32[('B', 3)]",
        "Array[(2,)]",
        "Float[(2, 3)]",
    ],
)
def test_printed_forms_read_back(text: str) -> None:
    t = parse_printed(text)
    assert t is not None and repr(t) == text


@pytest.mark.parametrize("text", ["nonsense", "f32[(2,)]{V:data,...}", "f32[(2,", "f32[(-1,)]", "f32[(2,)]{V:a}{V:b}"])
def test_what_is_not_a_type_is_none(text: str) -> None:
    assert parse_printed(text) is None
