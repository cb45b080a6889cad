"""Pytrees of engine values (`Seq` lists, tuples and dicts of leaves): their leaves, a function mapped over
them, and the union of their varying sets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from namedcheck.engine.values import UNKNOWN, ArrayType, Seq


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


def union_varying(values: Sequence[Any]) -> frozenset[str]:
    out: frozenset[str] = frozenset()
    for v in values:
        for leaf in tree_leaves(v):
            if isinstance(leaf, ArrayType):
                out |= leaf.varying
    return out


__all__ = ["tree_leaves", "map_leaves", "union_varying"]
