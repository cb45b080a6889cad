"""Function transformations whose result types the engine owns: jax.grad / value_and_grad."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from namedcheck.engine.signature import as_array
from namedcheck.engine.values import UNKNOWN, ArrayType, Seq


def grad_type(args: Sequence[Any], argnums: int | tuple[int, ...]) -> Any:
    """The gradient of a function called with `args`, w.r.t. `argnums`.

    Each gradient has its primal's dtype and positional shape; its named axes are the union of the
    arguments' named axes (one gradient per instance of every named axis in scope).
    """
    types = [as_array(a) for a in args]
    named: dict[str, Any] = {}
    for t in types:
        if isinstance(t, ArrayType):
            named.update(t.named)
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    out = []
    for n in nums:
        t = types[n] if -len(types) <= n < len(types) else UNKNOWN
        if not isinstance(t, ArrayType) or any(not isinstance(a, ArrayType) for a in types):
            out.append(UNKNOWN if not isinstance(t, ArrayType) else t)
        else:
            out.append(t.with_named(named))
    return out[0] if isinstance(argnums, int) else Seq(tuple(out))
