"""Collectives: their shape rules over named (xmap) axes and their varying-set (VMA) rules over
shard_map's manual mesh axes, as the installed JAX applies them (tests/test_vma_rules.py checks
each against `jax.typeof(x).mat.varying`)."""

from __future__ import annotations

from typing import Any

from namedcheck.engine.algebra import fmt_shape, is_int, norm_axis
from namedcheck.engine.codes import NC203, NC603
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import AUTO_PCAST, size_one_axes
from namedcheck.engine.ops.core import Call, Unprovable, rule, vma_rule
from namedcheck.engine.ops.reductions import reduce_type
from namedcheck.engine.values import ArrayType, Const, DimVal, literal

# collectives JAX applies to every leaf of a pytree argument (front ends map them with `maps.map_leaves`)
LEAFWISE = frozenset({"jax.lax.psum", "jax.lax.pmean", "jax.lax.pmax", "jax.lax.pmin"})


def axis_names(call: Call, param: str = "axis_name") -> tuple[str, ...]:
    v = literal(call.get(param))
    names = v if isinstance(v, tuple) else (v,)
    if any(not isinstance(n, str) for n in names):
        raise Unprovable
    return names


@rule("jax.lax.psum", "jax.lax.pmean", "jax.lax.pmax", "jax.lax.pmin")
def reducing_collective_rule(call: Call) -> Any:
    """psum / pmean / pmax / pmin remove the named axes they reduce over (positional shape kept)."""
    names = axis_names(call)
    call.env.check_bound(names, call.short)
    x = call.get("x")
    if isinstance(x, Const) and isinstance(x.value, int) and call.op.endswith("psum"):
        total: Any = x.value
        for n in names:  # psum(1, 'n') is the (static) size of the axis
            s = call.env.size(n)
            total = total * s if is_int(total) and is_int(s) else None
        return DimVal(total)
    t = call.array("x")
    return reduce_type(t, names, False, call.short, "float" if call.op.endswith("pmean") else "same")


@vma_rule("jax.lax.psum", "jax.lax.pmean", "jax.lax.pmax", "jax.lax.pmin")
def reducing_collective_vma(call: Call, vin: frozenset[str], out: Any) -> frozenset[str]:
    names = axis_names(call)
    ign = size_one_axes(call.env)  # size-1 axes JAX may leave out of the type
    manual = [n for n in names if n in call.env.manual and n not in ign]
    varying_part = [n for n in manual if n in vin]
    if (
        call.op.endswith(("psum", "pmean"))
        and len(manual) > 1
        and varying_part
        and len(varying_part) < len(manual)
        and call.exact
    ):  # invariance over the other axes is proven only by an exact varying set
        invariant = tuple(n for n in manual if n not in vin)
        raise RuleError(
            NC603,
            f"{call.short} over {names!r} of a value varying over {tuple(varying_part)!r} "
            f"but invariant over {invariant!r}; JAX rejects a partly varying input",
            hint=f"apply lax.pcast(x, {invariant!r}, to='varying') first, or reduce over {tuple(varying_part)!r} only",
        )
    invariant = tuple(n for n in manual if n not in vin)
    if call.op.endswith(("psum", "pmean")) and invariant and call.exact and call.env.flag(AUTO_PCAST) is False:
        raise RuleError(
            NC603,
            f"{call.short} over {names!r} of a value invariant over {invariant!r}: with jax_auto_pcast off, "
            f"JAX does not cast it to varying and rejects it (psum reduces a varying value)",
            hint=f"apply lax.pcast(x, {invariant!r}, to='varying') first, or leave {invariant!r} out of the psum",
        )
    return vin - set(names)


@rule("jax.lax.pcast", "jax.lax.pvary", "namedcheck.lax.pvary")
def pcast_rule(call: Call) -> Any:
    names = axis_names(call)
    call.env.check_bound(names, call.short)
    return call.array("x")


@vma_rule("jax.lax.pcast", "jax.lax.pvary", "namedcheck.lax.pvary")
def pcast_vma(call: Call, vin: frozenset[str], out: Any) -> frozenset[str]:
    names = axis_names(call)
    to = literal(call.get("to", Const("varying")))
    if to != "varying":
        raise Unprovable
    already = tuple(n for n in names if n in vin and n not in size_one_axes(call.env))
    if already:
        raise RuleError(
            NC603,
            f"{call.short} to 'varying' over {names!r} of a value already varying over {already!r}; JAX rejects it",
            hint=f"cast only over axes the value is invariant over: drop {already!r}",
        )
    return vin | (set(names) & call.env.manual)


def _one_name(call: Call) -> str:
    """The op's one axis name (several, or none, are not modelled)."""
    names = axis_names(call)
    if len(names) != 1:
        raise Unprovable
    return names[0]


def _one_axis_operand(call: Call) -> tuple[str, ArrayType]:
    """The single bound axis name and the operand of all_gather / psum_scatter / all_to_all."""
    name = _one_name(call)
    call.env.check_bound((name,), call.short)
    x = call.array("x")
    if x.has_ellipsis:
        raise Unprovable
    return name, x


def _gather_size(call: Call, x: ArrayType, name: str) -> Any:
    named = x.named_shape
    return named[name] if name in named else call.env.size(name)


@rule("jax.lax.all_gather")
def all_gather_rule(call: Call) -> Any:
    """Remove the named axis (xmap) and insert its size as positional dim `axis` (tiled: multiply it)."""
    name, x = _one_axis_operand(call)
    size = _gather_size(call, x, name)
    axis = literal(call.get("axis", Const(0)))
    tiled = bool(literal(call.get("tiled", Const(False))))
    named = {n: s for n, s in x.named if n != name}
    if tiled:
        i = norm_axis(axis, len(x.shape), call.short)
        d = x.shape[i]
        shape = x.shape[:i] + (d * size if is_int(d) and is_int(size) else None,) + x.shape[i + 1 :]
    else:
        i = norm_axis(axis, len(x.shape) + 1, call.short)
        shape = x.shape[:i] + (size,) + x.shape[i:]
    return ArrayType.make(x.dtype_code, shape, named)


@rule("jax.lax.psum_scatter")
def psum_scatter_rule(call: Call) -> Any:
    name, x = _one_axis_operand(call)
    size = call.env.size(name)
    dim = literal(call.get("scatter_dimension", Const(0)))
    i = norm_axis(dim, len(x.shape), call.short)
    d = x.shape[i]
    if bool(literal(call.get("tiled", Const(False)))):
        if is_int(d) and is_int(size) and d % size:
            raise RuleError(
                NC203,
                f"{call.short} (tiled) scatters dimension {i} of size {d} over {name!r} of "
                f"size {size}; it must divide evenly",
            )
        new = x.shape[:i] + (d // size if is_int(d) and is_int(size) else None,) + x.shape[i + 1 :]
    else:
        if is_int(d) and is_int(size) and d != size:
            raise RuleError(
                NC203,
                f"{call.short} scatters dimension {i} of size {d} over {name!r} of size "
                f"{size}; untiled, they must be equal (shape {fmt_shape(x.shape)})",
            )
        new = x.shape[:i] + x.shape[i + 1 :]
    return x.with_shape(new)


@rule("jax.lax.all_to_all")
def all_to_all_rule(call: Call) -> Any:
    name, x = _one_axis_operand(call)
    if not bool(literal(call.get("tiled", Const(False)))):
        raise Unprovable
    size = call.env.size(name)
    s = norm_axis(literal(call.get("split_axis")), len(x.shape), call.short)
    c = norm_axis(literal(call.get("concat_axis")), len(x.shape), call.short)
    shape = list(x.shape)
    if is_int(shape[s]) and is_int(size) and shape[s] % size:  # type: ignore[operator]  # is_int(shape[s])
        raise RuleError(
            NC203,
            f"{call.short} splits dimension {s} of size {shape[s]} over {name!r} of size {size}; it must divide evenly",
        )
    shape[s] = shape[s] // size if is_int(shape[s]) and is_int(size) else None  # type: ignore[operator]  # int
    shape[c] = shape[c] * size if is_int(shape[c]) and is_int(size) else None  # type: ignore[operator]  # int
    return x.with_shape(tuple(shape))


@rule("jax.lax.ppermute", "jax.lax.pshuffle")
def permute_rule(call: Call) -> Any:
    call.env.check_bound(axis_names(call), call.short)
    return call.array("x")


@rule("jax.lax.axis_index")
def axis_index_rule(call: Call) -> Any:
    """An int32 scalar; inside xmap it carries the named axis it indexes."""
    name = _one_name(call)
    call.env.check_bound((name,), call.short)
    named = {name: call.env.size(name)} if name in dict(call.env.named) else {}
    if not named and name in call.env.declared and name not in call.env.manual:
        # a function analysed on its own whose parameters declare the named axis: it runs under a map
        # binding that name (xmap / vmap), whose size the annotations state but the environment does not
        named = {name: None}
    return ArrayType.make("i32", (), named)


@rule("jax.lax.axis_size")
def axis_size_rule(call: Call) -> Any:
    """The size of a bound axis as a Python int (a mesh axis: the mesh's size for it)."""
    name = _one_name(call)
    call.env.check_bound((name,), call.short)
    return DimVal(call.env.size(name))


@vma_rule(
    "jax.lax.all_gather",
    "jax.lax.psum_scatter",
    "jax.lax.all_to_all",
    "jax.lax.ppermute",
    "jax.lax.pshuffle",
    "jax.lax.axis_index",
)
def varies_over_axis_vma(call: Call, vin: frozenset[str], out: Any) -> frozenset[str]:
    """The result varies over the collective's axis (an invariant input is accepted: auto pcast)."""
    return vin | (set(axis_names(call)) & call.env.manual)
