"""jax.nn ops whose result depends on argument values: softmax family and one_hot.
Their sharding rules over Explicit mesh axes (`@sharding_rule`) follow the shape rules."""

from __future__ import annotations

from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.algebra import norm_axis
from namedcheck.engine.ops.core import Call, Shd, Unprovable, rule, sharding_rule
from namedcheck.engine.ops.elementwise import dtype_from_value
from namedcheck.engine.ops.sharding_common import known_sharding
from namedcheck.engine.placement import of
from namedcheck.engine.values import ArrayType, Const, dim_of, literal


@rule("jax.nn.softmax", "jax.nn.log_softmax", "jax.nn.standardize")
def softmax_rule(call: Call) -> Any:
    x = call.array("x")
    axis = literal(call.get("axis", Const(-1)))
    items = axis if isinstance(axis, tuple) else (axis,)
    for a in items:
        if isinstance(a, int) and not x.has_ellipsis:
            norm_axis(a, len(x.shape), call.op)
        elif a is not None and not isinstance(a, (int, str)):
            raise Unprovable
    return x.with_dtype(dtypes.materialize(dtypes.to_inexact(x.dtype_code)))


@rule("jax.nn.one_hot")
def one_hot_rule(call: Call) -> Any:
    x = call.array("x")
    n = dim_of(call.get("num_classes"))
    axis = literal(call.get("axis", Const(-1)))
    dt = dtype_from_value(call.get("dtype")) if "dtype" in call.args else "f32"
    if isinstance(axis, str):
        if axis in x.named_shape:
            raise Unprovable
        return ArrayType.make(dt, x.shape, {**x.named_shape, axis: n})
    if not isinstance(axis, int) or x.has_ellipsis:
        raise Unprovable
    nd = len(x.shape) + 1
    pos = norm_axis(axis, nd, call.op)
    shape = x.shape[:pos] + (n,) + x.shape[pos:]
    return ArrayType.make(dt, shape, x.named_shape)


# ---- sharding over Explicit mesh axes (JAX's sharding rules: the result's sharding, NC8xx) ----------------


@sharding_rule("jax.nn.softmax", "jax.nn.log_softmax")
def normalise_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A normalisation along an axis keeps its input's sharding (the reduction is broadcast back)."""
    return of(call.array("x"))


@sharding_rule("jax.nn.one_hot")
def one_hot_sharding(call: Call, result: ArrayType) -> Shd | None:
    """The class dimension is new and unsharded; the others keep the indices' mesh axes."""
    _, s = known_sharding(call, "x")
    i = norm_axis(literal(call.get("axis", Const(-1))), len(s) + 1, call.short)
    return s[:i] + ((),) + s[i:]
