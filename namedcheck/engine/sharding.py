"""The one rule for a PartitionSpec placed on an array (NC501, NC504, NC604).

Used by every API that states a sharding: shard_map's in_specs / out_specs (engine/maps.py), and
`NamedSharding`, `device_put`, `jit(in_shardings=, out_shardings=)`, `with_sharding_constraint`,
`reshard` and creation ops' `device=` / `out_sharding=` (the analyzer's shardings module).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from namedcheck.engine.algebra import fmt_shape, is_int
from namedcheck.engine.errors import RuleError

if TYPE_CHECKING:  # maps.py imports this module
    from namedcheck.engine.maps import MeshInfo, Spec


def _mesh_desc(mesh: MeshInfo) -> str:
    return "{" + ", ".join(f"{n!r}: {'?' if s is None else s}" for n, s in mesh.axes) + "}"


def check_rank(spec: Spec, shape: tuple[Any, ...] | None, what: str, trailing_none_ok: bool = False) -> None:
    """NC604: a spec with more entries than the array has dimensions (`trailing_none_ok`: APIs that
    accept extra trailing None entries, such as `reshard` and creation ops)."""
    if shape is None or any(d is ... for d in shape):
        return
    entries = spec.entries
    if trailing_none_ok:
        while entries and entries[-1] is None:
            entries = entries[:-1]
    if len(entries) > len(shape):
        rank = len(shape)
        known = f" (shape {fmt_shape(shape)})" if any(d is not None for d in shape) else ""
        raise RuleError("NC604", f"{what}: {spec!r} has {len(spec.entries)} entries but the array has rank {rank}"
                                 f"{known}",
                        hint="a PartitionSpec has at most one entry per positional dimension")


def check_mesh_axes(spec: Spec, mesh: MeshInfo | None, what: str) -> None:
    """NC501: a spec names a mesh axis the mesh does not have."""
    if mesh is None or mesh.open:  # an open mesh may have any axis
        return
    for a in spec.axes():
        if a not in mesh.names:
            raise RuleError("NC501", f"{what}: {spec!r} names mesh axis {a!r}, but the mesh has axes {mesh.names!r}",
                            hint=f"use one of {', '.join(map(repr, mesh.names))}")


def check_repeats(spec: Spec, what: str) -> None:
    """NC504: one mesh axis used twice in one spec."""
    axes = spec.axes()
    dup = sorted({a for a in axes if axes.count(a) > 1})
    if dup:
        raise RuleError("NC504", f"{what}: {spec!r} uses mesh axis {dup[0]!r} more than once",
                        hint="a mesh axis may split at most one dimension, once")


def split_size(entry: tuple[str, ...] | None, mesh: MeshInfo) -> Any:
    """How many pieces one spec entry splits its dimension into (None when a size is not static)."""
    total: Any = 1
    for a in entry or ():
        s = mesh.size(a)
        total = total * s if is_int(s) and is_int(total) else None
    return total


def check_divisible(spec: Spec, mesh: MeshInfo | None, shape: tuple[Any, ...] | None, what: str) -> None:
    """NC604: a dimension split over mesh axes whose total size does not divide it (known ints only)."""
    if mesh is None or shape is None or any(d is ... for d in shape):
        return
    for i, e in enumerate(spec.entries[:len(shape)]):
        k = split_size(e, mesh)
        if e and is_int(k) and k and is_int(shape[i]) and shape[i] % k:
            raise RuleError("NC604", f"{what}: dimension {i} has size {shape[i]}, not divisible by the {k} "
                                     f"devices of mesh axes {e!r} ({spec!r}, mesh {_mesh_desc(mesh)})",
                            hint=f"make dimension {i} a multiple of {k}, or split it over fewer mesh axes")


def check_spec(spec: Spec, mesh: MeshInfo | None, shape: tuple[Any, ...] | None, what: str, *,
               divisible: bool = True, trailing_none_ok: bool = False) -> None:
    """A spec placed on an array of `shape` (None: rank unknown) over `mesh` (None: unknown): its axes
    exist (NC501) and are used once (NC504), it fits the rank, and it divides the dimensions (NC604)."""
    check_mesh_axes(spec, mesh, what)
    check_repeats(spec, what)
    check_rank(spec, shape, what, trailing_none_ok)
    if divisible:
        check_divisible(spec, mesh, shape, what)


def placed_entries(spec: Spec, shape: tuple[Any, ...] | None) -> tuple[tuple[str, ...] | None, ...]:
    """The spec entries a value placed with `spec` carries (extra trailing None entries dropped)."""
    entries = spec.entries
    if shape is not None and not any(d is ... for d in shape):
        while len(entries) > len(shape) and entries and entries[-1] is None:
            entries = entries[:-1]
    return entries


__all__ = ["check_spec", "check_rank", "check_mesh_axes", "check_repeats", "check_divisible", "split_size",
           "placed_entries"]
