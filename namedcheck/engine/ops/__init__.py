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
from namedcheck.engine.maps import EMPTY_ENV, AxisEnv, check_cooccurrence, union_varying
from namedcheck.engine.signature import Param, Signature, apply, as_array, bind
from namedcheck.engine.values import UNKNOWN, ArrayType, NotLiteral, Seq

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
    env: AxisEnv = EMPTY_ENV  # the named axes, mesh and manual axes in scope

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
RULES: dict[str, Rule] = {}
FAMILIES: dict[str, Rule] = {}
VMA_RULES: dict[str, VmaRule] = {}


def rule(*names: str) -> Callable[[Rule], Rule]:
    """Register a procedural shape rule under one or more public op names."""
    def deco(fn: Rule) -> Rule:
        for n in names:
            RULES[n] = fn
        return fn
    return deco


def vma_rule(*names: str) -> Callable[[VmaRule], VmaRule]:
    """Register how an op changes the varying set; ops without one take the union of their inputs'
    (JAX's standard_vma_rule)."""
    def deco(fn: VmaRule) -> VmaRule:
        for n in names:
            VMA_RULES[n] = fn
        return fn
    return deco


def with_varying(v: Any, varying: frozenset[str]) -> Any:
    if isinstance(v, ArrayType):
        return v.with_varying(varying) if v.varying != varying else v
    if isinstance(v, Seq):
        return Seq(tuple(with_varying(i, varying) for i in v.items), v.kind)
    return v


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
        labels: tuple[str, ...] = (), kwlabels: dict[str, str] | None = None, env: AxisEnv = EMPTY_ENV) -> Any:
    """Infer an op call's result. Raises RuleError for a provable violation; Unknown otherwise."""
    bound = bind(op.signature.params, args, kwargs)
    if bound is None:
        return UNKNOWN
    values, extra = bound
    names = [p.name for p in op.signature.params]
    lab = {names[i]: labels[i] for i in range(min(len(names), len(labels))) if labels[i]}
    lab.update(kwlabels or {})
    call = Call(op.name, values, extra, lab, dict(op.options), env)
    try:
        if op.rule is None:
            result = apply(op.signature, values, code="NC203", labels=lab)
        else:
            result = op.rule(call)
        vin = union_varying([*args, *kwargs.values()])
        vma = VMA_RULES.get(op.name)
        if vma is not None:
            result = with_varying(result, vma(call, vin, result))
        elif vin:
            result = with_varying(result, vin)
    except (Unprovable, NotLiteral):
        return UNKNOWN
    except RuleError:
        raise
    except (TypeError, ValueError, IndexError, KeyError, ZeroDivisionError):
        # Arguments of a kind the rule does not model: stay silent.
        return UNKNOWN
    check_cooccurrence(result, env)
    return result


def _load_rules() -> None:
    from namedcheck.engine.ops import (  # noqa: F401
        collectives,
        comparisons,
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

__all__ = ["Call", "Op", "Param", "RULES", "FAMILIES", "VMA_RULES", "rule", "family", "vma_rule", "run",
           "Unprovable", "MISSING"]
