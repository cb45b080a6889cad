"""What the families' sharding rules share: reading a call's shardings over Explicit mesh axes and the checks
several families make.

A value's type-level sharding (`ArrayType.sharding`, a `core.Shd`) lists, per positional dim, the Explicit mesh
axes that split it (`()`: none); None where it is not known, and then nothing is said. A sharding rule
(`core.sharding_rule`, next to the op's shape rule in its family module) gets the call and the result the shape
rule computed, and returns the result's sharding (None: not known) or raises the NC8xx error JAX raises when
tracing (`ShardingTypeError`). Ops without a rule give an unknown sharding.
"""

from __future__ import annotations

from typing import Any

from namedcheck.engine.algebra import is_int
from namedcheck.engine.codes import NC804, NC821, NC822
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import Spec
from namedcheck.engine.ops.core import Call, Shd, Unprovable
from namedcheck.engine.placement import (
    check_explicit_target,
    check_target_mesh,
    fmt_type,
    from_spec,
    no_mesh_error,
    of,
    split_size,
)
from namedcheck.engine.values import ArrayType, Const, literal


def fmt_spec(shd: Shd) -> str:
    """A sharding as the PartitionSpec that states it: `P('data', None)`."""
    return repr(Spec(tuple(e or None for e in shd)))


def axes_desc(e: tuple[str, ...]) -> str:
    return "mesh axis " + repr(e[0]) if len(e) == 1 else "mesh axes " + repr(e)


def out_sharding(call: Call, rank: int) -> Shd | None:
    """The `out_sharding=` argument as a sharding (a P or a NamedSharding-like value with `.spec`)."""
    v = call.args.get("out_sharding")
    spec = v if isinstance(v, Spec) else getattr(v, "spec", None)
    return from_spec(spec.entries, rank) if isinstance(spec, Spec) else None


def check_out_sharding_axes(call: Call) -> None:
    """NC824: an `out_sharding=` naming an Auto or Manual axis: of its NamedSharding's mesh, or of the context
    mesh (`jax.set_mesh`, where `auto_axes` makes the axes Auto) for a bare spec."""
    v = call.args.get("out_sharding")
    if isinstance(v, Spec) and call.env.no_mesh:
        raise no_mesh_error(f"{call.short} out_sharding=", v)
    spec: Any = v
    if isinstance(v, Spec):
        env = call.env
        mesh = env.mesh if env.mesh_set and not env.manual else None
    else:
        spec, mesh = getattr(v, "spec", None), getattr(v, "mesh", None)
    if isinstance(spec, Spec) and mesh is not None:
        check_explicit_target(spec, mesh, f"{call.short} out_sharding=")
    if not isinstance(v, Spec) and call.env.mesh_set and not call.env.manual:
        # a NamedSharding over another mesh than the context one (jax/_src/sharding_impls.py
        # `canonicalize_sharding`; JAX lets two all-Auto meshes differ)
        check_target_mesh(mesh, call.env.mesh, f"{call.short} out_sharding=")


def has_out_sharding(call: Call) -> bool:
    v = call.args.get("out_sharding")
    return v is not None and not (isinstance(v, Const) and v.value is None)


def check_distinct(call: Call, shd: Shd, inputs: str) -> Shd:
    """NC804: a result whose sharding would split two dimensions over one mesh axis."""
    seen: dict[str, int] = {}
    for i, e in enumerate(shd):
        for a in e:
            if a in seen:
                raise RuleError(
                    NC804,
                    f"{call.short} of {inputs} produces an illegally sharded result: dimensions "
                    f"{seen[a]} and {i} would both be split over mesh axis {a!r} "
                    f"({fmt_spec(shd)})",
                    hint="pass out_sharding= to the op, or jax.sharding.reshard an operand first",
                )
            seen[a] = i
    return shd


_UNSHARD_HINT = "jax.sharding.reshard the operand so that dimension {i} is unsharded first: reshard({x}, {spec})"


def check_unsharded_along(call: Call, x: ArrayType, s: Shd, i: int, what: str) -> None:
    """NC821: an op that runs along dimension i needs it unsharded."""
    if s[i]:
        unsharded = s[:i] + ((),) + s[i + 1 :]
        raise RuleError(
            NC821,
            f"{call.short} {what} dimension {i} of {call.label(first_arg(call))}, which is split over "
            f"{axes_desc(s[i])} ({fmt_type(x)}): the operand must be unsharded along it",
            hint=_UNSHARD_HINT.format(i=i, x=call.label(first_arg(call)).strip("`"), spec=fmt_spec(unsharded)),
        )


def first_arg(call: Call) -> str:
    return next(iter(call.args))


def known_operand(call: Call) -> tuple[ArrayType, Shd]:
    x = call.array(first_arg(call))
    s = of(x)
    if s is None:
        raise Unprovable
    return x, s


def literal_arg(call: Call, name: str, default: Any) -> Any:
    return literal(call.get(name, Const(default)))


def check_divisible_out(
    call: Call, x: ArrayType, s: Shd, out_shape: tuple[Any, ...], what: str, op: str | None = None, note: str = ""
) -> None:
    """NC822: JAX keeps the operand's sharding when an op changes a dimension's size (pad, slice), and
    rejects a sharded dimension whose new size its mesh axes do not divide."""
    mesh = call.env.mesh
    if mesh is None:
        raise Unprovable
    for i, (d, o, e) in enumerate(zip(x.shape, out_shape, s)):
        if not e or d == o:
            continue
        k = split_size(e, mesh)
        if not (is_int(k) and is_int(o)):
            raise Unprovable
        if o % k:
            raise RuleError(
                NC822,
                f"{op or call.short}: {what} dimension {i} of {call.label(first_arg(call))} "
                f"({fmt_type(x)}) to size {o}, which its {k} devices of {axes_desc(e)} do "
                f"not divide: JAX keeps the operand's sharding and does not implement an "
                f"uneven one{note}",
                hint=f"keep dimension {i} a multiple of {k}, or reshard it unsharded first",
            )


def known_sharding(call: Call, name: str) -> tuple[ArrayType, Shd]:
    x = call.array(name)
    s = of(x)
    if s is None:
        raise Unprovable
    return x, s
