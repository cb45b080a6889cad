"""Elementwise ops: broadcasting by position and by name, and the result dtype.
Their sharding rules over Explicit mesh axes (`@sharding_rule`) follow the shape rules."""

from __future__ import annotations

from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.algebra import broadcast_types
from namedcheck.engine.codes import NC801
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Shd, Unprovable, family, rule, sharding_rule
from namedcheck.engine.ops.registry import family_key
from namedcheck.engine.ops.sharding_common import axes_desc, check_distinct, fmt_spec
from namedcheck.engine.placement import fmt_type, of
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import ArrayType, Const, DtypeRef


def _result_dtype(types: list[ArrayType], mode: str) -> str | None:
    dt = dtypes.promote(*[t.dtype_code for t in types])
    if mode == "bool":
        return "bool_"
    if mode == "float":
        dt = dtypes.to_inexact(dt)
    if mode == "int":
        return "i32"
    if mode == "real":  # `abs`, `real`, `imag`: a complex array's parts are real
        dt = dtypes.REAL_PART.get(dt, dt) if dt is not None else None
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
    """Every array argument broadcasts; options: dtype='bool'|'float'|'int'|'real'|'same', static=(names...)."""
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
    names: list[str] = [
        n
        for n in ("x", "a", "min", "a_min", "max", "a_max")
        if n in call.args and not (isinstance(call.args[n], Const) and call.args[n].value is None)
    ]
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


# ---- sharding over Explicit mesh axes (JAX's sharding rules: the result's sharding, NC8xx) ----------------

ELEMENTWISE = family_key("elementwise")  # the record of the elementwise family


def broadcast(call: Call, names: list[str], rank: int) -> Shd | None:
    """JAX's broadcasting rule: per result dim, the one mesh-axis entry of the operands that have one
    (operands align right; a missing or size-1 unsharded dim takes any); two different entries conflict."""
    out: list[tuple[str, ...]] = [()] * rank
    src: list[str] = [""] * rank
    known = True
    for n in names:
        t = as_array(call.args[n])
        s = of(t)
        if s is None:
            known = False
            continue
        off = rank - len(s)
        for j, e in enumerate(s):
            i = off + j
            if not e:
                continue
            if out[i] and out[i] != e:
                raise RuleError(
                    NC801,
                    f"{call.short} got incompatible shardings for broadcasting: dimension {i} "
                    f"of {src[i]} is split over {axes_desc(out[i])} and of {call.label(n)} "
                    f"over {axes_desc(e)}",
                    hint=f"jax.sharding.reshard one operand to the other's sharding first, e.g. "
                    f"reshard({call.label(n).strip('`')}, {fmt_spec(_put(s, j, out[i]))})",
                )
            out[i], src[i] = e, src[i] or call.label(n)
    shd = tuple(out)
    if any(shd):
        check_distinct(call, shd, " and ".join(call.label(n) for n in names))
    return shd if known else None


def _put(s: Shd, j: int, e: tuple[str, ...]) -> Shd:
    return s[:j] + (e,) + s[j + 1 :]


def _operand_names(call: Call) -> list[str]:
    skip = {"dtype", "out", "where", "order", *call.options.get("static", ())}
    return [n for n in call.args if n not in skip]


@sharding_rule(ELEMENTWISE, "jax.numpy.clip")
def elementwise_sharding(call: Call, result: ArrayType) -> Shd | None:
    names = [n for n in _operand_names(call) if isinstance(as_array(call.args[n]), ArrayType)]
    return broadcast(call, names, len(result.shape))


@sharding_rule("jax.numpy.astype")
def same_sharding(call: Call, result: ArrayType) -> Shd | None:
    return of(call.array("x"))


@sharding_rule("jax.numpy.where")
def where_sharding(call: Call, result: ArrayType) -> Shd | None:
    """jnp.where: operands of one shape go to `select`, which needs equal shardings; otherwise they are
    broadcast to the merged sharding first (a scalar condition takes no part)."""
    names: list[str] = [n for n in ("condition", "x", "y") if n in call.args]
    if len(names) != 3:
        raise Unprovable
    ts = {n: as_array(call.args[n]) for n in names}
    if not all(isinstance(t, ArrayType) and not t.has_ellipsis for t in ts.values()):
        raise Unprovable
    if not ts["condition"].shape:
        names = ["x", "y"]
    shapes = {ts[n].shape for n in names}
    if len(shapes) > 1:
        return broadcast(call, names, len(result.shape))
    if None in next(iter(shapes)):
        raise Unprovable  # equal only if the unknown sizes are
    cases = [(n, of(ts[n])) for n in names]
    x, y = cases[-2], cases[-1]
    if x[1] is not None and y[1] is not None and x[1] != y[1]:
        raise RuleError(
            NC801,
            f"jnp.where: select cases must have the same shardings, got {call.label('x')}: "
            f"{fmt_type(ts['x'])} and {call.label('y')}: {fmt_type(ts['y'])}",
            hint=f"operands of one shape are not broadcast: reshard {call.label('y')} to {fmt_spec(x[1])} first",
        )
    if (
        len(cases) == 3
        and cases[0][1] is not None
        and x[1] is not None
        and cases[0][1] != x[1]
        and ts["condition"].shape
    ):
        raise RuleError(
            NC801,
            f"jnp.where: the condition {call.label('condition')} must be a scalar or have the "
            f"same sharding as the cases, got {fmt_type(ts['condition'])} and "
            f"{fmt_type(ts['x'])}",
            hint=f"reshard the condition to {fmt_spec(x[1])} first",
        )
    return x[1] if x[1] is not None and y[1] is not None else None


__all__ = ["broadcast_values", "elementwise", "dtype_from_value"]
