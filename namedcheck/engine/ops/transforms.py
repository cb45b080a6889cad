"""Function transformations whose result types the engine owns: jax.grad / value_and_grad."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import UNKNOWN, ArrayType, Seq


def grad_type(args: Sequence[Any], argnums: int | tuple[int, ...]) -> Any:
    """The gradient of a function called with `args`, w.r.t. `argnums`.

    Each gradient has its primal's structure (a dict / list / tuple of parameters gives the same tree), and
    each leaf its primal's dtype and positional shape; its named axes are the union of the arguments' named
    axes (one gradient per instance of every named axis in scope). Integer or unknown leaves are Unknown.
    """
    leaves = [leaf for a in args for leaf in _leaves(a)]
    named: dict[str, Any] | None = {}
    for t in leaves:
        if isinstance(t, ArrayType) and named is not None:
            named.update(t.named)
        elif not isinstance(t, ArrayType):
            named = None  # an argument of unknown type may carry named axes: the union is not known
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    out = [_grad_tree(args[n], named) if -len(args) <= n < len(args) else UNKNOWN for n in nums]
    return out[0] if isinstance(argnums, int) else Seq(tuple(out))


def _leaves(v: Any) -> list[Any]:
    if isinstance(v, Seq):
        if v.kind == "dict":
            return [leaf for pair in v.items for leaf in
                    (_leaves(pair.items[1]) if isinstance(pair, Seq) and len(pair.items) == 2 else [UNKNOWN])]
        return [leaf for item in v.items for leaf in _leaves(item)]
    return [as_array(v)]


def _grad_tree(v: Any, named: dict[str, Any] | None) -> Any:
    """The cotangent of one differentiated argument (a pytree of known structure, or one array)."""
    if isinstance(v, Seq) and v.kind in ("dict", "list", "tuple"):
        if v.kind == "dict":
            pairs = []
            for pair in v.items:
                if not (isinstance(pair, Seq) and len(pair.items) == 2):
                    return UNKNOWN
                pairs.append(Seq((pair.items[0], _grad_tree(pair.items[1], named)), pair.kind))
            return Seq(tuple(pairs), "dict")
        return Seq(tuple(_grad_tree(item, named) for item in v.items), v.kind)
    t = as_array(v)
    if not isinstance(t, ArrayType) or dtypes.kind(t.dtype_code) in ("i", "u", "b", None):
        return UNKNOWN
    # the type's sharding (Explicit axes) is the primal's; where the program placed the primal is not the cotangent's
    t = replace(t, spec=None) if t.spec is not None else t
    return t.with_named(named) if named is not None else t
