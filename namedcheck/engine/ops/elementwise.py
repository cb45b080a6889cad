"""Elementwise ops: broadcasting by position and by name, and the result dtype."""

from __future__ import annotations

from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.algebra import broadcast_types
from namedcheck.engine.ops.core import Call, Unprovable, family, rule
from namedcheck.engine.values import ArrayType, Const, DtypeRef


def _result_dtype(types: list[ArrayType], mode: str) -> str | None:
    dt = dtypes.promote(*[t.dtype_code for t in types])
    if mode == "bool":
        return "bool_"
    if mode == "float":
        dt = dtypes.to_inexact(dt)
    if mode == "int":
        return "i32"
    if any(not dtypes.is_weak(t.dtype_code) for t in types):
        dt = dtypes.materialize(dt)
    return dt


def broadcast_values(call: Call, names: list[str], mode: str = "promote") -> ArrayType:
    """Broadcast the named arguments together (NC201 / NC202) and compute the result dtype."""
    types = [call.array(n) for n in names]
    shape, named = broadcast_types(types, [call.label(n) for n in names])
    return ArrayType.make(_result_dtype(types, mode), shape, named)


@family("elementwise")
def elementwise(call: Call) -> Any:
    """Every array argument broadcasts; options: dtype='bool'|'float'|'int'|'same', static=(names...)."""
    skip = {"dtype", "out", "where", "order", *call.options.get("static", ())}
    names = [n for n in call.args if n not in skip]
    if not names:
        raise Unprovable
    mode = call.options.get("dtype", "promote")
    out = broadcast_values(call, names, mode)
    if mode == "same":
        out = out.with_dtype(dtypes.materialize(call.array(names[0]).dtype_code))
    return out


@rule("jax.numpy.where")
def where_rule(call: Call) -> Any:
    names: list[str] = [n for n in ("condition", "x", "y") if n in call.args]
    if len(names) != 3:
        raise Unprovable  # one-argument where is nonzero(): data-dependent shape
    out = broadcast_values(call, names)
    types = [call.array("x"), call.array("y")]
    return out.with_dtype(_result_dtype(types, "promote"))


@rule("jax.numpy.clip")
def clip_rule(call: Call) -> Any:
    names: list[str] = [n for n in ("x", "a", "min", "a_min", "max", "a_max") if n in call.args
             and not (isinstance(call.args[n], Const) and call.args[n].value is None)]
    out = broadcast_values(call, names)
    return out.with_dtype(call.array("x").dtype_code)


@rule("jax.numpy.astype")
def astype_rule(call: Call) -> Any:
    x = call.array("x")
    code = dtype_from_value(call.get("dtype"))
    if code is None:
        raise Unprovable  # astype(object) and friends
    return x.with_dtype(code)


def dtype_from_value(v: Any) -> str | None:
    """A dtype argument (`jnp.float32`, `'float32'`, `float`) as a short code, or None."""
    if isinstance(v, Const) and isinstance(v.value, str):
        return dtypes.canonical_dtype(v.value)
    if isinstance(v, DtypeRef):
        return v.code
    return None


__all__ = ["broadcast_values", "elementwise", "dtype_from_value"]
