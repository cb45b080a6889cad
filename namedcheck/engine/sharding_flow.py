"""Control flow over Explicit mesh axes: what lax.scan / cond / switch require of shardings (JAX compares
the branches' and the carry's full types, sharding included; scan slices its xs along dimension 0).
Loop carries: `sharding.check_carry_sharding` (NC809)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from namedcheck.engine.errors import RuleError
from namedcheck.engine.sharding import fmt_type, of
from namedcheck.engine.trees import tree_leaves
from namedcheck.engine.values import ArrayType


def _leaves(v: Any) -> list[Any]:
    return tree_leaves(v)


def check_branch_shardings(outs: Sequence[Any], what: str) -> None:
    """NC823: lax.cond / switch branches must return outputs of equal types, shardings included."""
    per_out = [_leaves(o) for o in outs]
    for i, group in enumerate(zip(*per_out)):
        known = [(b, a, of(a)) for b, a in enumerate(group) if isinstance(a, ArrayType) and of(a) is not None]
        for b, a, s in known[1:]:
            b0, a0, s0 = known[0]
            if s != s0 and a.shape == a0.shape:
                raise RuleError("NC823", f"{what}: output {i} of branch {b0} is {fmt_type(a0)} but of branch {b} "
                                         f"{fmt_type(a)}: branches must return outputs of equal types, sharding "
                                         f"included",
                                hint=f"jax.sharding.reshard branch {b}'s output to branch {b0}'s sharding",
                                data={"output": i, "branches": [b0, b]})


def check_scan_xs(xs: Any, what: str) -> None:
    """NC821: scan slices its xs along dimension 0, which must be unsharded (replicated)."""
    for i, leaf in enumerate(_leaves(xs)):
        s = of(leaf)
        if s and s[0]:
            axes = f"mesh axis {s[0][0]!r}" if len(s[0]) == 1 else f"mesh axes {s[0]!r}"
            raise RuleError("NC821", f"{what}: xs leaf {i} ({fmt_type(leaf)}) is split over {axes} along "
                                     f"dimension 0, which scan runs along: it must be replicated there",
                            hint="reshard xs so that dimension 0 is unsharded, or move the sharded axis off dimension 0",
                            data={"leaf": i})


def sliced(v: ArrayType, out: ArrayType) -> ArrayType:
    """`out` (v without its leading dim) with v's sharding of the remaining dims."""
    s = of(v)
    return out.with_sharding(s[1:]) if s else out


def stacked(v: ArrayType, out: ArrayType) -> ArrayType:
    """`out` (v with a new leading dim) with an unsharded leading dim before v's sharding."""
    s = of(v)
    return out.with_sharding(((),) + s) if s is not None else out


__all__ = ["check_branch_shardings", "check_scan_xs", "sliced", "stacked"]
