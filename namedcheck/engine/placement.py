"""Placement: what a sharding placed on an array must satisfy, and how shardings flow through control flow.

The one rule for a PartitionSpec placed on an array (NC501, NC504, NC604), used by every API that states a
sharding: shard_map's in_specs / out_specs (engine/maps.py), and `NamedSharding`, `device_put`,
`jit(in_shardings=, out_shardings=)`, `with_sharding_constraint`, `reshard` and creation ops' `device=` /
`out_sharding=` (analyzer/placements.py); the placement-side checks (NC807-NC809, NC811, NC812); and scan's
xs and outputs and cond / switch branches over Explicit mesh axes (NC821, NC823: JAX compares full types).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from namedcheck.engine.algebra import fmt_shape, is_int
from namedcheck.engine.codes import (
    NC501,
    NC504,
    NC604,
    NC807,
    NC808,
    NC809,
    NC810,
    NC811,
    NC812,
    NC821,
    NC823,
    NC824,
    NC825,
    NC826,
)
from namedcheck.engine.errors import RuleError
from namedcheck.engine.mesh import MeshInfo, Spec
from namedcheck.engine.trees import tree_leaves
from namedcheck.engine.values import ArrayType, Dim


def from_spec(entries: tuple[tuple[str, ...] | None, ...], rank: int) -> tuple[tuple[str, ...], ...] | None:
    """PartitionSpec entries as a type-level sharding of `rank` dims (trailing dims unsharded)."""
    if len(entries) > rank:
        if any(entries[rank:]):
            return None
        entries = entries[:rank]
    return tuple(e or () for e in entries) + ((),) * (rank - len(entries))


def of(t: Any) -> tuple[tuple[str, ...], ...] | None:
    """An array's type-level sharding if known (a 0-d array has the empty one)."""
    if not isinstance(t, ArrayType) or t.has_ellipsis:
        return None
    if not t.shape:
        return ()
    return t.sharding if t.sharding is not None and len(t.sharding) == len(t.shape) else None


def fmt_type(t: ArrayType) -> str:
    """A type as JAX prints it in sharding errors: `f32[8@data,16]`."""
    s = of(t) or ((),) * len(t.shape)
    dims = [
        ("?" if d is None else str(d)) + ("" if not e else "@" + (e[0] if len(e) == 1 else "(" + ",".join(e) + ")"))
        for d, e in zip(t.shape, s)
    ]
    return f"{t.dtype_code or 'Array'}[{','.join(dims)}]"


def _mesh_desc(mesh: MeshInfo) -> str:
    return "{" + ", ".join(f"{n!r}: {'?' if s is None else s}" for n, s in mesh.axes) + "}"


def check_rank(spec: Spec, shape: tuple[Dim, ...] | None, what: str, trailing_none_ok: bool = False) -> None:
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
        raise RuleError(
            NC604,
            f"{what}: {spec!r} has {len(spec.entries)} entries but the array has rank {rank}{known}",
            hint="a PartitionSpec has at most one entry per positional dimension",
        )


def check_mesh_axes(spec: Spec, mesh: MeshInfo | None, what: str) -> None:
    """NC501: a spec names a mesh axis the mesh does not have."""
    if mesh is None or mesh.open:  # an open mesh may have any axis
        return
    for a in spec.axes():
        if a not in mesh.names:
            raise RuleError(
                NC501,
                f"{what}: {spec!r} names mesh axis {a!r}, but the mesh has axes {mesh.names!r}",
                hint=f"use one of {', '.join(map(repr, mesh.names))}",
                data={"axis": a, "known": list(mesh.names)},
            )


def check_repeats(spec: Spec, what: str) -> None:
    """NC504: one mesh axis used twice in one spec."""
    axes = spec.axes()
    dup = sorted({a for a in axes if axes.count(a) > 1})
    if dup:
        raise RuleError(
            NC504,
            f"{what}: {spec!r} uses mesh axis {dup[0]!r} more than once",
            hint="a mesh axis may split at most one dimension, once",
        )


def split_size(entry: tuple[str, ...] | None, mesh: MeshInfo) -> int | None:
    """How many pieces one spec entry splits its dimension into (None when a size is not static)."""
    total: int | None = 1
    for a in entry or ():
        s = mesh.size(a)
        total = total * s if is_int(s) and is_int(total) else None
    return total


def check_divisible(spec: Spec, mesh: MeshInfo | None, shape: tuple[Dim, ...] | None, what: str) -> None:
    """NC604: a dimension split over mesh axes whose total size does not divide it (known ints only)."""
    if mesh is None or shape is None or any(d is ... for d in shape):
        return
    for i, e in enumerate(spec.entries[: len(shape)]):
        k, d = split_size(e, mesh), shape[i]
        if e and is_int(k) and k and is_int(d) and d % k:
            raise RuleError(
                NC604,
                f"{what}: dimension {i} has size {shape[i]}, not divisible by the {k} "
                f"devices of mesh axes {e!r} ({spec!r}, mesh {_mesh_desc(mesh)})",
                hint=f"make dimension {i} a multiple of {k}, or split it over fewer mesh axes",
            )


def check_spec(
    spec: Spec,
    mesh: MeshInfo | None,
    shape: tuple[Dim, ...] | None,
    what: str,
    *,
    divisible: bool = True,
    trailing_none_ok: bool = False,
) -> None:
    """A spec placed on an array of `shape` (None: rank unknown) over `mesh` (None: unknown): its axes
    exist (NC501) and are used once (NC504), it fits the rank, and it divides the dimensions (NC604)."""
    check_mesh_axes(spec, mesh, what)
    check_repeats(spec, what)
    check_rank(spec, shape, what, trailing_none_ok)
    if divisible:
        check_divisible(spec, mesh, shape, what)


def placed_entries(spec: Spec, shape: tuple[Dim, ...] | None) -> tuple[tuple[str, ...] | None, ...]:
    """The spec entries a value placed with `spec` carries (extra trailing None entries dropped)."""
    entries = spec.entries
    if shape is not None and not any(d is ... for d in shape):
        while len(entries) > len(shape) and entries and entries[-1] is None:
            entries = entries[:-1]
    return entries


# ---- the sharding in the type over Explicit axes (rules per op: `@sharding_rule`s in engine/ops/) ---------


def type_sharding(spec: Spec, mesh: MeshInfo | None, v: ArrayType) -> tuple[tuple[str, ...], ...] | None:
    """The type-level sharding of `v` placed with `spec` over `mesh`: known only over an all-Explicit mesh."""
    if mesh is None or not mesh.explicit or v.has_ellipsis:
        return None
    return from_spec(spec.entries, len(v.shape))


def placed_sharding(spec: Spec, mesh: MeshInfo | None, v: ArrayType) -> tuple[tuple[str, ...], ...] | None:
    """The type-level sharding of `v` placed with `spec` over `mesh`: the spec over an all-Explicit mesh;
    over a fully known all-Auto mesh no axis is in the type (`jax.typeof` shows none), but the array carries
    that mesh, which JAX checks against the context mesh (NC812)."""
    if (
        known_mesh(mesh) is not None
        and mesh is not None
        and mesh.types
        and all(t == "auto" for t in mesh.types)
        and not v.has_ellipsis
    ):
        return ((),) * len(v.shape)
    return type_sharding(spec, mesh, v)


def _spec_of(shd: tuple[tuple[str, ...], ...]) -> str:
    """A sharding as the PartitionSpec that states it: `P('data', None)`."""
    return repr(Spec(tuple(e or None for e in shd)))


def spec_json(shd: tuple[tuple[str, ...], ...]) -> list[list[str] | None]:
    """A sharding as JSON, for `RuleError.data`: one entry per dim, its mesh axes or None."""
    return [list(e) if e else None for e in shd]


def _differs(v: ArrayType, spec: Spec, mesh: MeshInfo | None) -> tuple[str, str] | None:
    """(wanted, had) as PartitionSpecs when `spec` over `mesh` states a type sharding other than `v`'s known one."""
    want, have = type_sharding(spec, mesh, v), of(v)
    return (_spec_of(want), _spec_of(have)) if want is not None and have is not None and want != have else None


def check_constraint(v: ArrayType, spec: Spec, mesh: MeshInfo | None, what: str) -> None:
    """NC807: `with_sharding_constraint` over an all-Explicit mesh asserts the value's sharding."""
    if (d := _differs(v, spec, mesh)) is not None:
        want, have = d
        raise RuleError(
            NC807,
            f"{what}: with all mesh axes Explicit, with_sharding_constraint is an assertion, and "
            f"the value's sharding {have} ({fmt_type(v)}) is not {want}",
            hint=f"use jax.sharding.reshard(x, {want}) to change the sharding",
            data={"spec": spec_json(type_sharding(spec, mesh, v) or ())},
        )


def axis_type(mesh: MeshInfo | None, name: str) -> str | None:
    """The type ('explicit', 'auto', 'manual') of a mesh axis, where the mesh is fully known."""
    if mesh is None or mesh.open or mesh.types is None or name not in mesh.names:
        return None
    return mesh.types[mesh.names.index(name)]


def _named_axes(spec: Spec) -> list[str]:
    return [*spec.axes(), *sorted(spec.unreduced), *sorted(spec.reduced)]


def check_explicit_target(spec: Spec, mesh: MeshInfo | None, what: str) -> None:
    """NC824: `reshard` and an op's `out_sharding=` take a spec naming only Explicit axes of its mesh
    (jax/_src/sharding_impls.py `canonicalize_sharding`)."""
    for a in _named_axes(spec):
        t = axis_type(mesh, a)
        if t in ("auto", "manual") and mesh is not None:
            raise RuleError(
                NC824,
                f"{what}: {spec!r} names mesh axis {a!r}, which is {t.capitalize()} in mesh "
                f"{_mesh_text(mesh)}: a target sharding may name only Explicit axes",
                hint=f"leave {a!r} out of the spec (the compiler places Auto axes), or make it Explicit "
                "(jax.sharding.explicit_axes, or axis_types= of the mesh)",
                data={"axis": a, "type": t},
            )


def check_auto_constraint(spec: Spec, mesh: MeshInfo | None, what: str, reshard_ok: bool) -> None:
    """NC825: outside an all-Explicit context mesh, `with_sharding_constraint` takes a sharding naming only
    Auto axes of its mesh (jax/_src/pjit.py `check_shardings_are_auto`)."""
    for a in spec.axes():
        t = axis_type(mesh, a)
        if t in ("explicit", "manual") and mesh is not None:
            raise RuleError(
                NC825,
                f"{what}: {spec!r} names mesh axis {a!r}, which is {t.capitalize()} in mesh "
                f"{_mesh_text(mesh)}: outside a context mesh whose axes are all Explicit, "
                f"with_sharding_constraint takes only Auto axes",
                hint="use jax.sharding.reshard to give the value an Explicit sharding, or make the axis Auto",
                data={"axis": a, "type": t, "reshard_ok": reshard_ok},
            )


def no_mesh_error(what: str, spec: Spec | None) -> RuleError:
    """NC826: a bare PartitionSpec where JAX needs a context mesh and none is set."""
    given = f"{spec!r} is a bare PartitionSpec" if spec is not None else "a bare PartitionSpec"
    return RuleError(
        NC826,
        f"{what}: {given}, which names axes of the context mesh, but no context mesh is set (this module "
        f"calls no jax.set_mesh)",
        hint="pass jax.NamedSharding(mesh, P(...)) instead, or run this under jax.set_mesh(mesh)",
    )


def check_committed(v: ArrayType, spec: Spec, mesh: MeshInfo | None, what: str) -> None:
    """NC808: jit's in_shardings must match the sharding of a committed argument (one placed with a sharding,
    or made by jnp under `jax.set_mesh`)."""
    if (d := _differs(v, spec, mesh)) is not None:
        want, have = d
        raise RuleError(
            NC808,
            f"{what}: the sharding passed to jit, {want}, does not match the "
            f"argument's committed sharding {have} ({fmt_type(v)})",
            hint=f"jax.device_put / reshard the argument to {want} before the call, or drop in_shardings",
        )


def check_shard_map_arg(v: ArrayType, spec: Spec, mesh: MeshInfo, what: str) -> None:
    """NC810: over an Explicit mesh, shard_map's in_specs must state the argument's own sharding."""
    if (d := _differs(v, spec, mesh)) is not None:
        want, have = d
        raise RuleError(
            NC810,
            f"{what}: in_specs {want} does not match the argument's sharding {have} ({fmt_type(v)})",
            hint=f"leave in_specs out (shard_map takes the arguments' shardings), or reshard the argument "
            f"to {want} first",
        )


def known_mesh(mesh: MeshInfo | None) -> MeshInfo | None:
    """`mesh` when it is fully known (every axis's size and type, no axis beyond those listed): JAX's
    abstract mesh, which arrays sharded over it carry (`ArrayType.mesh`); else None."""
    if mesh is None or mesh.open or mesh.types is None or not all(is_int(s) for _, s in mesh.axes):
        return None
    return mesh


def _mesh_text(mesh: MeshInfo) -> str:
    types = mesh.types or ()
    kinds = sorted(set(types))
    return _mesh_desc(mesh) + (f" ({kinds[0].capitalize()})" if len(kinds) == 1 else f" (types {types!r})")


def _all_auto(mesh: MeshInfo) -> bool:
    return bool(mesh.types) and all(t == "auto" for t in mesh.types or ())


def check_meshes(arrays: list[tuple[str, ArrayType]], context: MeshInfo | None, what: str) -> MeshInfo | None:
    """NC812: JAX binds a primitive only on arrays of one mesh, and under `jax.set_mesh` only on arrays of the
    context mesh (`context`; None: no set_mesh, or not known). Returns the operands' common mesh, if known."""
    ctx = known_mesh(context)
    common: tuple[str, ArrayType, MeshInfo] | None = None
    for name, t in arrays:
        m = t.mesh
        if m is None:
            continue
        if _all_auto(m) and (ctx is None or _all_auto(ctx)) and (common is None or _all_auto(common[2])):
            continue  # JAX lets arrays of different all-Auto meshes meet (and an all-Auto context)
        if ctx is not None and m != ctx:
            raise RuleError(
                NC812,
                f"{what}: {name} ({fmt_type(t)}) is sharded over mesh {_mesh_text(m)}, but the "
                f"context mesh set by jax.set_mesh is {_mesh_text(ctx)}; JAX requires the "
                f"two to match",
                hint="jax.sharding.reshard (or device_put) it onto the context mesh first, or run "
                "this under jax.set_mesh of its own mesh",
            )
        if common is not None and m != common[2]:
            raise RuleError(
                NC812,
                f"{what}: {common[0]} ({fmt_type(common[1])}) is sharded over mesh "
                f"{_mesh_text(common[2])} and {name} ({fmt_type(t)}) over mesh "
                f"{_mesh_text(m)}; JAX requires the operands of one op to share a mesh",
                hint="jax.device_put one operand onto the other's mesh first",
            )
        common = common or (name, t, m)
    return common[2] if common else None


def check_target_mesh(mesh: MeshInfo | None, context: MeshInfo | None, what: str) -> None:
    """NC812: an op's `out_sharding=` NamedSharding over another mesh than `jax.set_mesh`'s (two all-Auto
    meshes may differ)."""
    m, ctx = known_mesh(mesh), known_mesh(context)
    if m is None or ctx is None or m == ctx or (_all_auto(m) and _all_auto(ctx)):
        return
    raise RuleError(
        NC812,
        f"{what}: the NamedSharding is over mesh {_mesh_text(m)}, but the context mesh set by jax.set_mesh is "
        f"{_mesh_text(ctx)}; JAX requires the two to match",
        hint="state the sharding over the context mesh (a bare P(...) takes it), or run this under jax.set_mesh "
        "of the sharding's mesh",
    )


def check_declared(declared: Any, actual: Any, what: str) -> None:
    """NC811: a value whose known sharding differs from the one its annotation states (`f32[('8@data', 4)]`)."""
    want, have = of(declared), of(actual)
    if want is None or have is None or len(want) != len(have) or want == have or not declared.shape:
        return
    raise RuleError(
        NC811,
        f"{what[0].upper()}{what[1:]} is sharded {_spec_of(have)} ({fmt_type(actual)}) but its "
        f"annotation states {_spec_of(want)} ({fmt_type(declared)})",
        hint=f"jax.sharding.reshard the value to {_spec_of(want)}, or correct the annotation",
        data={"spec": spec_json(want), "had": spec_json(have), "what": what},
    )


def check_carry_sharding(init: Any, out: Any, what: str) -> None:
    """NC809: a loop carry whose sharding changes across the body (JAX: the carry types differ)."""
    a, b = of(init), of(out)
    if a is not None and b is not None and a != b:
        raise RuleError(
            NC809,
            f"{what}: the carry enters as {fmt_type(init)} and leaves the body as "
            f"{fmt_type(out)}: its sharding changes ({_spec_of(a)} -> {_spec_of(b)})",
            hint=f"jax.sharding.reshard the body's carry output back to {_spec_of(a)}",
            data={"spec": spec_json(a), "had": spec_json(b)},
        )


# ---- control flow: scan's xs and outputs, cond / switch branches (JAX compares full types) ----------------


def check_branch_shardings(outs: Sequence[Any], what: str) -> None:
    """NC823: lax.cond / switch branches must return outputs of equal types, shardings included."""
    per_out = [tree_leaves(o) for o in outs]
    for i, group in enumerate(zip(*per_out)):
        known = [(b, a, of(a)) for b, a in enumerate(group) if isinstance(a, ArrayType) and of(a) is not None]
        for b, a, s in known[1:]:
            b0, a0, s0 = known[0]
            if s != s0 and a.shape == a0.shape:
                raise RuleError(
                    NC823,
                    f"{what}: output {i} of branch {b0} is {fmt_type(a0)} but of branch {b} "
                    f"{fmt_type(a)}: branches must return outputs of equal types, sharding "
                    f"included",
                    hint=f"jax.sharding.reshard branch {b}'s output to branch {b0}'s sharding",
                    data={"output": i, "branches": [b0, b]},
                )


def check_scan_xs(xs: Any, what: str) -> None:
    """NC821: scan slices its xs along dimension 0, which must be unsharded (replicated)."""
    for i, leaf in enumerate(tree_leaves(xs)):
        s = of(leaf)
        if s and s[0]:
            axes = f"mesh axis {s[0][0]!r}" if len(s[0]) == 1 else f"mesh axes {s[0]!r}"
            raise RuleError(
                NC821,
                f"{what}: xs leaf {i} ({fmt_type(leaf)}) is split over {axes} along "
                f"dimension 0, which scan runs along: it must be replicated there",
                hint="reshard xs so that dimension 0 is unsharded, or move the sharded axis off dimension 0",
                data={"leaf": i},
            )


def sliced(v: ArrayType, out: ArrayType) -> ArrayType:
    """`out` (v without its leading dim) with v's sharding of the remaining dims."""
    s = of(v)
    return out.with_sharding(s[1:]) if s else out


def stacked(v: ArrayType, out: ArrayType) -> ArrayType:
    """`out` (v with a new leading dim) with an unsharded leading dim before v's sharding."""
    s = of(v)
    return out.with_sharding(((),) + s) if s is not None else out


__all__ = [
    "type_sharding",
    "placed_sharding",
    "check_declared",
    "check_meshes",
    "check_target_mesh",
    "known_mesh",
    "check_constraint",
    "check_committed",
    "axis_type",
    "check_explicit_target",
    "check_auto_constraint",
    "no_mesh_error",
    "check_carry_sharding",
    "check_shard_map_arg",
    "check_spec",
    "check_rank",
    "check_mesh_axes",
    "check_repeats",
    "check_divisible",
    "split_size",
    "placed_entries",
    "spec_json",
    "check_branch_shardings",
    "check_scan_xs",
    "sliced",
    "stacked",
]
