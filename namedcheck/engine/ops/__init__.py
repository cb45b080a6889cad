"""The op table: every op keyed by its public name, with its signature and its shape rule.

Two tiers, as in JAX: declarative signatures live in `stubs/*.pyi`; ops whose result depends on
argument values (axis=, shapes, specs) have a procedural rule registered here by name, or a rule
family (elementwise, ...) named by a decorator in the stub.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from namedcheck.engine.errors import RuleError
from namedcheck.engine.signature import Param, Signature, apply, as_array, bind
from namedcheck.engine.values import UNKNOWN, ArrayType, NotLiteral

MISSING = object()


class Unprovable(Exception):
    """Raised inside a rule when an input is Unknown: the result is Unknown, silently."""


@dataclass
class Call:
    """A call with its arguments bound to the op's parameter names."""

    op: str
    args: dict[str, Any]
    extra: tuple[Any, ...] = ()
    labels: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)  # the stub decorator's keyword options

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
        lab = self.labels.get(name)
        return f"`{lab}`" if lab else f"argument {name!r}"

    @property
    def short(self) -> str:
        return self.op.replace("jax.numpy.", "jnp.").replace("jax.lax.", "lax.")


Rule = Callable[[Call], Any]
RULES: dict[str, Rule] = {}
FAMILIES: dict[str, Rule] = {}


def rule(*names: str) -> Callable[[Rule], Rule]:
    """Register a procedural shape rule under one or more public op names."""
    def deco(fn: Rule) -> Rule:
        for n in names:
            RULES[n] = fn
        return fn
    return deco


def family(name: str) -> Callable[[Rule], Rule]:
    """Register a rule family that stubs name with a decorator (`@elementwise`)."""
    def deco(fn: Rule) -> Rule:
        FAMILIES[name] = fn
        return fn
    return deco


@dataclass(frozen=True)
class Op:
    name: str
    signature: Signature
    rule: Rule | None  # None: declarative (the signature alone gives the result)
    options: tuple[tuple[str, Any], ...] = ()


def run(op: Op, args: tuple[Any, ...] | list[Any], kwargs: dict[str, Any],
        labels: tuple[str, ...] = (), kwlabels: dict[str, str] | None = None) -> Any:
    """Infer an op call's result. Raises RuleError for a provable violation; Unknown otherwise."""
    bound = bind(op.signature.params, args, kwargs)
    if bound is None:
        return UNKNOWN
    values, extra = bound
    names = [p.name for p in op.signature.params]
    lab = {names[i]: labels[i] for i in range(min(len(names), len(labels))) if labels[i]}
    lab.update(kwlabels or {})
    if op.rule is None:
        return apply(op.signature, values, code="NC203", labels=lab)
    call = Call(op.name, values, extra, lab, dict(op.options))
    try:
        return op.rule(call)
    except (Unprovable, NotLiteral):
        return UNKNOWN
    except RuleError:
        raise
    except (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError):
        # Arguments of a kind the rule does not model: stay silent.
        return UNKNOWN


def _load_rules() -> None:
    from namedcheck.engine.ops import (  # noqa: F401
        creation,
        einsum,
        elementwise,
        indexing,
        linalg,
        nn,
        reductions,
        shaping,
        transforms,
    )


_load_rules()

__all__ = ["Call", "Op", "Param", "RULES", "FAMILIES", "rule", "family", "run", "Unprovable", "MISSING"]
