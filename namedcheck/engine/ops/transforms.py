"""Function transformations whose result types the engine owns: jax.grad / value_and_grad."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.maps import map_leaves
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import UNKNOWN, ArrayType, Seq


def grad_type(args: Sequence[Any], argnums: int | tuple[int, ...]) -> Any:
    """The gradient of a function called with `args`, w.r.t. `argnums`.

    Each gradient has its primal's structure (a dict / list / tuple of parameters gives the same tree), and
    each leaf its primal's dtype and positional shape; its named axes are the union of the arguments' named
    axes (one gradient per instance of every named axis in scope). Integer or unknown leaves are Unknown.
    """
    leaves: list[Any] = []
    for a in args:
        map_leaves(a, lambda leaf: leaves.append(as_array(leaf)))
    named: dict[str, Any] | None = {}
    for t in leaves:
        if isinstance(t, ArrayType) and named is not None:
            named.update(t.named)
        elif not isinstance(t, ArrayType):
            named = None  # an argument of unknown type may carry named axes: the union is not known
    nums = (argnums,) if isinstance(argnums, int) else argnums
    if not isinstance(nums, tuple) or not all(isinstance(n, int) and not isinstance(n, bool) for n in nums):
        return UNKNOWN  # not an int or a tuple of ints: JAX rejects it
    out = [
        map_leaves(args[n], lambda leaf: _grad_leaf(leaf, named)) if -len(args) <= n < len(args) else UNKNOWN
        for n in nums
    ]
    return out[0] if isinstance(argnums, int) else Seq(tuple(out))


def _grad_leaf(v: Any, named: dict[str, Any] | None) -> Any:
    """The cotangent of one differentiated leaf."""
    t = as_array(v)
    if not isinstance(t, ArrayType) or dtypes.kind(t.dtype_code) in ("i", "u", "b", None):
        return UNKNOWN
    # the type's sharding (Explicit axes) is the primal's; where the program placed the primal is not the cotangent's
    t = replace(t, spec=None) if t.spec is not None else t
    return t.with_named(named) if named is not None else t
