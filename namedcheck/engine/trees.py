"""Pytrees of engine values (`Seq` lists, tuples and dicts of leaves): their leaves, a function mapped over
them, and the union of their varying sets."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from namedcheck.engine.values import UNKNOWN, ArrayType, Const, Seq


def tree_leaves(v: Any) -> list[Any]:
    """Every leaf of a pytree of engine values (a dict's keys and values alike)."""
    if isinstance(v, Seq):
        return [x for item in v.items for x in tree_leaves(item)]
    return [v]


def map_leaves(v: Any, fn: Any) -> Any:
    """`fn` applied to every leaf of a pytree of engine values; dict keys are kept, not mapped."""
    if not isinstance(v, Seq):
        return fn(v)
    if v.kind == "dict":
        return Seq(
            tuple(
                Seq((p.items[0], map_leaves(p.items[1], fn)), p.kind)
                if isinstance(p, Seq) and len(p.items) == 2
                else UNKNOWN
                for p in v.items
            ),
            "dict",
        )
    return Seq(tuple(map_leaves(i, fn) for i in v.items), v.kind)


def dict_like(v: Any) -> bool:
    """A dict, or an instance of a pytree class (kind `class Name`): items are (key, value) pairs."""
    return isinstance(v, Seq) and (v.kind == "dict" or v.kind.startswith("class "))


def keyed(v: Seq) -> dict[Any, Any] | None:
    """A dict-like Seq's items by their (constant) keys; None where a key is not a known constant."""
    out: dict[Any, Any] = {}
    for p in v.items:
        if not (isinstance(p, Seq) and len(p.items) == 2 and isinstance(p.items[0], Const)):
            return None
        out[p.items[0].value] = p.items[1]
    return out


def paired(a: Any, b: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any, Any]]:
    """Corresponding parts of two pytrees, by path (per step: its text, `[1]`, `['h']` or `.h`, and the index or
    key): Seqs of one
    kind and size (dicts: the same keys, in any order) are walked into; every other pair is yielded as it is,
    for the caller to compare (two leaves, or two parts whose structure differs)."""
    if isinstance(a, Seq) and isinstance(b, Seq) and a.kind == b.kind:
        if dict_like(a):
            ka, kb = keyed(a), keyed(b)
            if ka is not None and kb is not None and set(ka) == set(kb):
                attr = a.kind != "dict"
                for k in ka:
                    yield from paired(ka[k], kb[k], (*path, (f".{k}" if attr else f"[{k!r}]", k)))
                return
        elif len(a.items) == len(b.items):
            for i, (x, y) in enumerate(zip(a.items, b.items)):
                yield from paired(x, y, (*path, (f"[{i}]", i)))
            return
    yield path, a, b


def union_varying(values: Sequence[Any]) -> frozenset[str]:
    out: frozenset[str] = frozenset()
    for v in values:
        for leaf in tree_leaves(v):
            if isinstance(leaf, ArrayType):
                out |= leaf.varying
    return out


__all__ = ["tree_leaves", "map_leaves", "union_varying", "dict_like", "keyed", "paired"]
