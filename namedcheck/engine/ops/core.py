"""The registration API the rule families import: `Call` (a call bound to an op's parameters), `Op` (an op of the
table), the rule types and the decorators that fill the op records (`rule`, `vma_rule`, `family`,
`sharding_rule`), and `Unprovable`. The package (`engine/ops/__init__.py`) imports the family modules to register
their rules and runs them (`run`); no family imports the package.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from namedcheck.engine.errors import RuleError, Unprovable
from namedcheck.engine.maps import EMPTY_ENV, AxisEnv
from namedcheck.engine.ops.registry import OpRecord, family_key, lookup, register
from namedcheck.engine.signature import Param, Signature, as_array
from namedcheck.engine.values import ArrayType, NotLiteral, Seq

MISSING = object()


# What a rule may raise to say an input is not known well enough: the result is Unknown (partial). Anything
# else but a RuleError is the rule's bug (`errors.rule_bug`).
UNKNOWN_INPUT = (Unprovable, NotLiteral)


@dataclass
class Call:
    """A call with its arguments bound to the op's parameter names."""

    op: str
    args: dict[str, Any]
    extra: tuple[Any, ...] = ()
    labels: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)  # the stub decorator's keyword options
    env: AxisEnv = EMPTY_ENV  # the named axes, mesh and manual axes in scope
    exact: bool = True  # every input's varying set is known exactly (none is opaque)

    def get(self, name: str, default: Any = MISSING) -> Any:
        if name in self.args:
            return self.args[name]
        if default is MISSING:
            raise Unprovable
        return default

    def array(self, name: str) -> ArrayType:
        """The named argument as an ArrayType (Python scalars are weak 0-d arrays), or Unprovable."""
        v = as_array(self.get(name))
        if not isinstance(v, ArrayType):
            raise Unprovable
        return v

    def label(self, name: str) -> str:
        """How messages name an argument: its source (`x`), a description, or its parameter name."""
        lab = self.labels.get(name)
        if not lab:
            return f"argument {name!r}"
        return lab if lab.startswith("the ") else f"`{lab}`"

    @property
    def short(self) -> str:
        return self.op.replace("jax.numpy.", "jnp.").replace("jax.lax.", "lax.")


Rule = Callable[[Call], Any]
VmaRule = Callable[[Call, frozenset, Any], frozenset]


def rule(*names: str) -> Callable[[Rule], Rule]:
    """Register a procedural shape rule under one or more public op names (the records' `shape`)."""
    return register("shape", *names)


def vma_rule(*names: str) -> Callable[[VmaRule], VmaRule]:
    """Register how an op changes the varying set (the records' `vma`); ops without one take the union of their
    inputs' (JAX's standard_vma_rule)."""
    return register("vma", *names)


def with_varying(v: Any, varying: frozenset[str]) -> Any:
    if isinstance(v, ArrayType):
        return v.with_varying(varying) if v.varying != varying else v
    if isinstance(v, Seq):
        return Seq(tuple(with_varying(i, varying) for i in v.items), v.kind)
    return v


def family(name: str) -> Callable[[Rule], Rule]:
    """Register a rule family that stubs name with a decorator (`@elementwise`): the `shape` of its record."""
    return register("shape", family_key(name))


@dataclass(frozen=True)
class Op:
    """An op of the op table: its stub signature and how the stub binds it to rules."""

    name: str
    signature: Signature
    family: str | None = None  # None: declarative (the signature alone gives the result); RULE: the op's own rule
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def record(self) -> OpRecord:
        return lookup(self.name)

    @property
    def rule(self) -> Rule | None:
        """The shape rule: the op's own (`@rule`) or its family's; None for a declarative op."""
        if self.family is None:
            return None
        return lookup(self.name).shape if self.family == RULE else lookup(family_key(self.family)).shape

    @property
    def sharding_rule(self) -> Any:
        """The op's sharding rule, or its family's."""
        own = lookup(self.name).sharding
        if own is not None or self.family in (None, RULE):
            return own
        return lookup(family_key(self.family)).sharding


RULE = "rule"  # the stub decorator binding an op's own procedural rule


Shd = tuple[tuple[str, ...], ...]  # a sharding over Explicit mesh axes: per positional dim, the axes splitting it
ShardingRule = Callable[[Call, ArrayType], Shd | None]


def sharding_rule(*names: str) -> Callable[[ShardingRule], ShardingRule]:
    """Register how an op's result is sharded (and when JAX rejects its operands' shardings): the records'
    `sharding`."""
    return register("sharding", *names)


__all__ = [
    "MISSING",
    "UNKNOWN_INPUT",
    "Call",
    "Rule",
    "VmaRule",
    "Shd",
    "ShardingRule",
    "rule",
    "vma_rule",
    "family",
    "sharding_rule",
    "with_varying",
    "Op",
    "RULE",
    "OpRecord",
    "Param",
    "RuleError",
    "Unprovable",
]
