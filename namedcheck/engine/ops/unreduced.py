"""Unreduced and reduced mesh axes over Explicit meshes, as the installed JAX (0.10) treats them.

A contraction given `out_sharding=P(..., unreduced={'x'})` over its contracting axis 'x' leaves a partial sum on
each device (`jax.typeof` prints `{U:x}`); `reshard` reduces it (to a plain sharding, or one `reduced={'x'}`:
`{R:x}`); `device_put` / `reshard` with `unreduced=` / `reduced=` state the sets. Only what JAX was seen to do is
modelled (see tests/cases/shd_unreduced.py); any other op on such a value gives an unknown sharding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from namedcheck.engine.codes import NC813
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import Spec
from namedcheck.engine.ops.core import UNKNOWN_INPUT, Call, Op, Unprovable
from namedcheck.engine.ops.registry import UNREDUCED_KINDS, record
from namedcheck.engine.placement import fmt_type, of
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import ArrayType, Const, literal

Shd = tuple[tuple[str, ...], ...]


def unreduced_rule(kind: str, *names: str) -> None:
    """Say how each named op treats unreduced operands (the records' `unreduced`, one of UNREDUCED_KINDS)."""
    if kind not in UNREDUCED_KINDS:
        raise ValueError(f"unknown unreduced kind {kind!r}")
    for n in names:
        record(n).unreduced = kind


unreduced_rule("contraction", "jax.numpy.matmul", "jax.numpy.dot", "jax.numpy.einsum", "jax.lax.dot_general")
unreduced_rule("add", "jax.numpy.add")
unreduced_rule("multiply", "jax.numpy.multiply")
# ops that keep an unreduced operand unreduced (their sharding rule gives the rest of the type)
unreduced_rule(
    "keep",
    "jax.numpy.sum",
    "jax.numpy.reshape",
    "jax.numpy.transpose",
    "jax.numpy.expand_dims",
    "jax.numpy.astype",
    "jax.numpy.concatenate",
)
# ops JAX has no unreduced rule for (NotImplementedError / ValueError when tracing); `true_divide` is `divide`'s
# alias (names.canonical_name)
unreduced_rule(
    "unsupported",
    *(
        f"jax.numpy.{n}"
        for n in ("subtract", "divide", "negative", "exp", "tanh", "abs", "square", "sqrt", "log", "sin", "mean", "max")
    ),
)
_HINT = "jax.sharding.reshard the value (to a spec without unreduced=) first: that sums the partial results"


def _sets(s: frozenset[str]) -> str:
    return "{" + ", ".join(map(repr, sorted(s))) + "}"


def _operands(call: Call) -> list[tuple[str, ArrayType]]:
    skip = {
        "dtype",
        "out",
        "where",
        "order",
        "out_sharding",
        "axis",
        "keepdims",
        "shape",
        "new_sizes",
        "newshape",
        "axes",
        "precision",
        "preferred_element_type",
        *call.options.get("static", ()),
    }
    out = []
    for n, v in call.args.items():
        if n in skip:
            continue
        leaves = v.items if hasattr(v, "items") and not isinstance(v, (ArrayType, Const)) else (v,)
        for leaf in leaves:
            t = as_array(leaf)
            if isinstance(t, ArrayType):
                out.append((call.label(n), t))
    return out


def _plain(t: ArrayType) -> bool:
    """Known to be neither unreduced nor reduced: a Python scalar, or an array of known sharding without them."""
    return (t.weak and not t.shape) or (of(t) is not None and not t.unreduced and not t.reduced)


def through(op: Op, call: Call, result: ArrayType, rule: Callable[[], Shd | None]) -> ArrayType:
    """The result of an op some of whose operands are unreduced or reduced (NC813 where JAX rejects it);
    `rule` computes the sharding of the result's dimensions."""
    kind = op.record.unreduced
    ops = _operands(call)
    unreduced = [(n, t) for n, t in ops if t.unreduced]
    bare = result.with_sharding(None)
    if not unreduced:
        return bare  # reduced operands only: not modelled
    name, first = unreduced[0]
    what = f"{call.short}: {name} ({fmt_type(first)}) is unreduced over {_sets(first.unreduced)}"
    if kind == "contraction":
        raise RuleError(NC813, f"{what}; the operands of a contraction cannot be unreduced", hint=_HINT)
    if kind == "unsupported":
        raise RuleError(NC813, f"{what}, and JAX has no unreduced rule for {call.short}", hint=_HINT)
    same_shape = all(not t.weak and t.shape == first.shape for _, t in ops)
    if kind == "add":
        for n, t in ops:
            if t.unreduced and t.unreduced != first.unreduced:
                raise RuleError(
                    NC813,
                    f"{what} and {n} over {_sets(t.unreduced)}: an add needs both unreduced over the same mesh axes",
                    hint=_HINT,
                )
            if _plain(t) or (of(t) is not None and not t.unreduced):
                raise RuleError(
                    NC813, f"{what} while {n} is not: the add would need implicit communication", hint=_HINT
                )
        return _keep(bare, rule, first.unreduced) if same_shape and len(unreduced) == len(ops) else bare
    if kind == "multiply":
        if len(unreduced) > 1:
            raise RuleError(
                NC813,
                f"{what} and so is {unreduced[1][0]}: a product is bilinear, at most one factor may be unreduced",
                hint=_HINT,
            )
        for n, t in ops:
            if t is not first and (_plain(t) or (of(t) is not None and not first.unreduced <= t.reduced)):
                raise RuleError(
                    NC813,
                    f"{what}, so {n} must be reduced over the same axes "
                    f"(reshard it with reduced={_sets(first.unreduced)})",
                    hint=_HINT,
                )
        ok = same_shape and all(first.unreduced <= t.reduced for n, t in ops if t is not first)
        return _keep(bare, rule, first.unreduced) if ok else bare
    if kind == "keep" and len(ops) == len(unreduced) and all(t.unreduced == first.unreduced for _, t in ops):
        return _keep(bare, rule, first.unreduced)
    return bare


def _keep(result: ArrayType, rule: Callable[[], Shd | None], unreduced: frozenset[str]) -> ArrayType:
    shd = rule()
    if shd is None or len(shd) != len(result.shape):
        return result
    return replace(result.with_sharding(shd), unreduced=unreduced)


def _contracting(op_name: str, call: Call) -> list[tuple[tuple[str, ...], tuple[str, ...]]] | None:
    """The mesh axes of each pair of contracted dimensions (lhs, rhs), where the operands' shardings are known."""
    if op_name in ("jax.numpy.matmul", "jax.numpy.dot"):
        sa, sb = of(call.array("a")), of(call.array("b"))
        if sa is None or sb is None or not sa or not sb or len(sb) > 2:
            return None
        return [(sa[-1], sb[0] if len(sb) == 1 else sb[-2])]
    if op_name == "jax.lax.dot_general":
        sa, sb = of(call.array("lhs")), of(call.array("rhs"))
        dn = literal(call.get("dimension_numbers"))
        if not (
            isinstance(dn, tuple)
            and len(dn) == 2
            and isinstance(dn[0], tuple)
            and len(dn[0]) == 2
            and all(isinstance(d, tuple) and all(isinstance(i, int) for i in d) for d in dn[0])
        ):
            raise Unprovable  # not JAX's ((lhs_contracting, rhs_contracting), batch) spelling
        lc, rc = dn[0]
        if (
            sa is None
            or sb is None
            or not all(-len(sa) <= i < len(sa) for i in lc)
            or not all(-len(sb) <= j < len(sb) for j in rc)
        ):
            return None
        return [(sa[i], sb[j]) for i, j in zip(lc, rc)]
    return None


def contraction_out(op_name: str, call: Call, result: ArrayType) -> ArrayType:
    """An op with `out_sharding=P(..., unreduced=U)`: for a contraction, U must be the mesh axes of its
    contracting dimensions, sharded alike on both sides, and the result is unreduced over U (elsewhere, or
    where that is not known, the result's sharding is unknown)."""
    v = call.args.get("out_sharding")
    spec = v if isinstance(v, Spec) else getattr(v, "spec", None)
    if not isinstance(spec, Spec) or not (spec.unreduced or spec.reduced) or result.sharding is None:
        return result
    try:
        contracting = _contracting(op_name, call) if not spec.reduced else None
    except UNKNOWN_INPUT:
        contracting = None
    if contracting is None:
        return result.with_sharding(None)
    axes = frozenset(a for lhs, _ in contracting for a in lhs)
    for lhs, rhs in contracting:
        if lhs != rhs:
            raise RuleError(
                NC813,
                f"{call.short}: out_sharding is unreduced over {_sets(spec.unreduced)}, so the "
                f"contracting dimensions must be sharded alike on both operands; they are "
                f"split over {lhs or 'no axis'} and {rhs or 'no axis'}",
                hint="reshard the operands so their contracting dimensions share the mesh axes",
            )
    if axes != spec.unreduced:
        raise RuleError(
            NC813,
            f"{call.short}: out_sharding's unreduced axes {_sets(spec.unreduced)} must be the "
            f"mesh axes of the contracting dimensions ({_sets(axes) if axes else 'none'})",
            hint=f"write unreduced={_sets(axes)}" if axes else "drop unreduced=",
        )
    return replace(result, unreduced=spec.unreduced)


__all__ = ["through", "contraction_out", "unreduced_rule"]
