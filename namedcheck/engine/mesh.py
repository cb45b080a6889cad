"""Meshes and partition specs as the engine sees them: a mesh's axes with their sizes and types, and a
PartitionSpec's per-dimension mesh axes (with its unreduced / reduced sets)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from namedcheck.engine.values import Dim


@dataclass(frozen=True, slots=True)
class MeshInfo:
    """A device mesh: axis names with sizes (None where the device count is not static)."""

    axes: tuple[tuple[str, Dim], ...]
    # A mesh known only by the axes the code names (`mesh=self.mesh`): it may have other axes too.
    open: bool = False
    # Per axis its type ('explicit', 'auto', 'manual') from `axis_types=`; None where not known.
    types: tuple[str, ...] | None = None

    @property
    def explicit(self) -> bool:
        """Every axis is Explicit: an array's sharding over this mesh is part of its type."""
        return self.types is not None and not self.open and all(t == "explicit" for t in self.types)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.axes)

    def size(self, name: str) -> Dim:
        return dict(self.axes).get(name)


@dataclass(frozen=True, slots=True)
class Spec:
    """A PartitionSpec: per positional dim, the mesh axes it is split over (None: not split)."""

    entries: tuple[tuple[str, ...] | None, ...]
    # `P(..., unreduced={'x'}, reduced={'y'})`: mesh axes over which the value is a partial sum / known reduced
    unreduced: frozenset[str] = frozenset()
    reduced: frozenset[str] = frozenset()
    # where the program wrote it (the analyzer's `origins.Written`, opaque here): never compared or hashed
    origin: Any = field(default=None, compare=False)

    def axes(self) -> list[str]:
        return [a for e in self.entries if e for a in e]

    def __repr__(self) -> str:
        parts = ["None" if e is None else repr(e[0]) if len(e) == 1 else repr(e) for e in self.entries]
        parts += [
            f"{k}={{{', '.join(map(repr, sorted(v)))}}}"
            for k, v in (("unreduced", self.unreduced), ("reduced", self.reduced))
            if v
        ]
        return f"P({', '.join(parts)})"


__all__ = ["MeshInfo", "Spec"]
