"""One record per op: everything the engine knows about an op besides its stub signature.

The rule modules' decorators fill the fields of one `OpRecord` per public op name (`@rule`: `shape`, `@vma_rule`:
`vma`, `@sharding_rule`: `sharding`, `unreduced.unreduced_rule`: `unreduced`); a rule family (`@family`, named by
a stub decorator such as `@elementwise`) is a record too, keyed `@<family>`, whose rules apply to every op of the
family that has none of its own. `ops.run`, the stub loader and the tests read these records only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# How an op treats unreduced operands (engine/ops/unreduced.py): a contraction (its operands cannot be unreduced),
# an op JAX has no unreduced rule for, `add` / `multiply` (their own conditions), or one that keeps the set.
UNREDUCED_KINDS = ("contraction", "unsupported", "add", "multiply", "keep")


@dataclass(eq=False)
class OpRecord:
    name: str  # the op's public name (`jax.numpy.sum`), or `@<family>` for a rule family
    shape: Callable[..., Any] | None = None  # the procedural shape rule (Call -> value); None: declarative / family's
    vma: Callable[..., Any] | None = None  # how the varying set changes; None: the union of the inputs' (JAX's rule)
    sharding: Callable[..., Any] | None = None  # the result's sharding over Explicit axes (Call, result -> Shd | None)
    unreduced: str | None = None  # one of UNREDUCED_KINDS; None: an unreduced operand leaves the sharding unknown

    @property
    def is_family(self) -> bool:
        return self.name.startswith("@")

    def fields(self) -> list[str]:
        """The fields some registration filled."""
        return [f for f in ("shape", "vma", "sharding", "unreduced") if getattr(self, f) is not None]


OPS: dict[str, OpRecord] = {}
_NONE = OpRecord("")  # what an op without a record reads (never filled)


def family_key(family: str) -> str:
    """The record key of a rule family (`elementwise` -> `@elementwise`)."""
    return "@" + family


def record(name: str) -> OpRecord:
    """The op's record, created on first registration."""
    rec = OPS.get(name)
    if rec is None:
        rec = OPS[name] = OpRecord(name)
    return rec


def lookup(name: str) -> OpRecord:
    """The op's record, or an empty one (nothing registered: declarative, or a family's op)."""
    return OPS.get(name, _NONE)


def register(field: str, *names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator filling `field` of each named op's record with the decorated function."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        for n in names:
            setattr(record(n), field, fn)
        return fn

    return deco


__all__ = ["OpRecord", "OPS", "UNREDUCED_KINDS", "family_key", "record", "lookup", "register"]
