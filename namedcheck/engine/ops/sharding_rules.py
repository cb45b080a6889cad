"""JAX's sharding rules over Explicit mesh axes (the `sharding_rule`s of its primitives), one per op family.

A value's type-level sharding (`ArrayType.sharding`) lists, per positional dim, the Explicit mesh axes that
split it (`()`: none); None where it is not known, and then nothing is said. A rule gets the call and the
result the shape rule computed, and returns the result's sharding (None: not known) or raises the NC8xx
error JAX raises when tracing (`ShardingTypeError`). Ops without a rule here give an unknown sharding.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

from namedcheck.engine.algebra import all_int, is_int, norm_axis
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import Spec
from namedcheck.engine.ops.core import Call, Unprovable
from namedcheck.engine.ops.registry import family_key, register
from namedcheck.engine.sharding import fmt_type, from_spec, of, spec_json
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import ArrayType, Const, Seq, literal

Shd = tuple[tuple[str, ...], ...]
ShardingRule = Callable[[Call, ArrayType], Shd | None]
ELEMENTWISE = family_key("elementwise")  # the record of the elementwise family


def sharding_rule(*names: str) -> Callable[[ShardingRule], ShardingRule]:
    """Register how an op's result is sharded (and when JAX rejects its operands' shardings): the records'
    `sharding`."""
    return register("sharding", *names)


# ---- reading shardings -------------------------------------------------------------------------------

def fmt_spec(shd: Shd) -> str:
    """A sharding as the PartitionSpec that states it: `P('data', None)`."""
    return repr(Spec(tuple(e or None for e in shd)))


def _axes_desc(e: tuple[str, ...]) -> str:
    return "mesh axis " + repr(e[0]) if len(e) == 1 else "mesh axes " + repr(e)


def out_sharding(call: Call, rank: int) -> Shd | None:
    """The `out_sharding=` argument as a sharding (a P or a NamedSharding-like value with `.spec`)."""
    v = call.args.get("out_sharding")
    spec = v if isinstance(v, Spec) else getattr(v, "spec", None)
    return from_spec(spec.entries, rank) if isinstance(spec, Spec) else None


def has_out_sharding(call: Call) -> bool:
    v = call.args.get("out_sharding")
    return v is not None and not (isinstance(v, Const) and v.value is None)


def check_distinct(call: Call, shd: Shd, inputs: str) -> Shd:
    """NC804: a result whose sharding would split two dimensions over one mesh axis."""
    seen: dict[str, int] = {}
    for i, e in enumerate(shd):
        for a in e:
            if a in seen:
                raise RuleError("NC804", f"{call.short} of {inputs} produces an illegally sharded result: dimensions "
                                         f"{seen[a]} and {i} would both be split over mesh axis {a!r} "
                                         f"({fmt_spec(shd)})",
                                hint="pass out_sharding= to the op, or jax.sharding.reshard an operand first")
            seen[a] = i
    return shd


# ---- elementwise and broadcasting ---------------------------------------------------------------------

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
                raise RuleError("NC801", f"{call.short} got incompatible shardings for broadcasting: dimension {i} "
                                         f"of {src[i]} is split over {_axes_desc(out[i])} and of {call.label(n)} "
                                         f"over {_axes_desc(e)}",
                                hint=f"jax.sharding.reshard one operand to the other's sharding first, e.g. "
                                     f"reshard({call.label(n).strip('`')}, {fmt_spec(_put(s, j, out[i]))})")
            out[i], src[i] = e, src[i] or call.label(n)
    shd = tuple(out)
    if any(shd):
        check_distinct(call, shd, " and ".join(call.label(n) for n in names))
    return shd if known else None


def _put(s: Shd, j: int, e: tuple[str, ...]) -> Shd:
    return s[:j] + (e,) + s[j + 1:]


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


@sharding_rule(*[f"jax.numpy.{n}_like" for n in ("zeros", "ones", "empty", "full")])
def like_sharding(call: Call, result: ArrayType) -> Shd | None:
    """`zeros_like(x)` takes x's sharding (its shape and out_sharding= left out)."""
    if any(k in call.args for k in ("shape", "device", "out_sharding")):
        return None
    return of(call.array("a"))


@sharding_rule("jax.nn.softmax", "jax.nn.log_softmax")
def normalise_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A normalisation along an axis keeps its input's sharding (the reduction is broadcast back)."""
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
        raise RuleError("NC801", f"jnp.where: select cases must have the same shardings, got {call.label('x')}: "
                                 f"{fmt_type(ts['x'])} and {call.label('y')}: {fmt_type(ts['y'])}",
                        hint=f"operands of one shape are not broadcast: reshard {call.label('y')} to "
                             f"{fmt_spec(x[1])} first")
    if len(cases) == 3 and cases[0][1] is not None and x[1] is not None and cases[0][1] != x[1] \
            and ts["condition"].shape:
        raise RuleError("NC801", f"jnp.where: the condition {call.label('condition')} must be a scalar or have the "
                                 f"same sharding as the cases, got {fmt_type(ts['condition'])} and "
                                 f"{fmt_type(ts['x'])}",
                        hint=f"reshard the condition to {fmt_spec(x[1])} first")
    return x[1] if x[1] is not None and y[1] is not None else None


# ---- contractions ------------------------------------------------------------------------------------

def _contract(call: Call, a: str, b: str, pairs: list[tuple[int, int]], out: list[tuple[str, ...]],
              ta: ArrayType, tb: ArrayType, rank: int) -> Shd | None:
    """dot_general: NC802 when a contracting dim is sharded on both sides (without out_sharding=), then
    the result's sharding `out` checked for repeated axes (NC804)."""
    if has_out_sharding(call):
        return out_sharding(call, rank)
    sa, sb = of(ta), of(tb)
    if sa is None or sb is None:
        return None
    for i, j in pairs:
        if sa[i] and sb[j]:
            flat = [x for e in out for x in e]  # the free dims' sharding, when it uses each axis once
            spec = fmt_spec(tuple(out)) if len(flat) == len(set(flat)) else "P(...)"
            raise RuleError("NC802", f"{call.short}: contracting dimension {i} of {call.label(a)} is split over "
                                     f"{_axes_desc(sa[i])} and dimension {j} of {call.label(b)} over "
                                     f"{_axes_desc(sb[j])}: it is ambiguous how the output should be sharded "
                                     f"({fmt_type(ta)} x {fmt_type(tb)})",
                            hint=f"pass out_sharding={spec} to {call.short}, or reshard one operand so that its "
                                 f"contracting dimension is unsharded",
                            data={"op": call.short, "out_sharding": spec_json(tuple(out)) if spec != "P(...)" else None})
    return check_distinct(call, tuple(out), f"{fmt_type(ta)} and {fmt_type(tb)}")


@sharding_rule("jax.lax.dot_general")
def dot_general_sharding(call: Call, result: ArrayType) -> Shd | None:
    """lax.dot_general: batch dims first (the lhs's entries; NC803 when both sides are sharded differently),
    then the lhs's and the rhs's free dims."""
    ta, tb = call.array("lhs"), call.array("rhs")
    (lc, rc), (lb, rb) = (tuple(tuple(d) for d in pair) for pair in literal(call.get("dimension_numbers")))
    sa, sb = of(ta), of(tb)
    if sa is None or sb is None:
        return out_sharding(call, len(result.shape)) if has_out_sharding(call) else None
    if not has_out_sharding(call):
        for i, j in zip(lb, rb):
            if sa[i] and sb[j] and sa[i] != sb[j]:
                raise RuleError("NC803", f"{call.short}: batch dimension {i} of {call.label('lhs')} is split over "
                                         f"{_axes_desc(sa[i])} and dimension {j} of {call.label('rhs')} over "
                                         f"{_axes_desc(sb[j])}", hint="reshard one operand so the batch dims agree")
    out = [sa[i] for i in lb] + [e for i, e in enumerate(sa) if i not in lc + lb] + \
        [e for j, e in enumerate(sb) if j not in rc + rb]
    return _contract(call, "lhs", "rhs", list(zip(lc, rc)), out, ta, tb, len(result.shape))


@sharding_rule("jax.numpy.einsum")
def einsum_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Plain-letter einsum of one or two operands (`'ij,jk->ik'`): letters in both operands and not in
    the output contract, letters in both and in the output are batch dims."""
    spec = literal(call.get("subscripts"))
    ops = [as_array(v) for v in call.extra] if call.extra else []
    if not ops and isinstance(call.args.get("operands"), Seq):
        ops = [as_array(v) for v in call.args["operands"].items]
    if not isinstance(spec, str) or "->" not in spec or "." in spec or not ops:
        raise Unprovable
    lhs, outs = spec.replace(" ", "").split("->")
    terms = lhs.split(",")
    if len(terms) != len(ops) or not all(isinstance(t, ArrayType) for t in ops):
        raise Unprovable
    if any(len(set(t)) != len(t) or not t.isalpha() for t in terms) or len(set(outs)) != len(outs):
        raise Unprovable
    shds = [of(t) for t in ops]
    if len(ops) > 2:
        return _einsum_many(terms, outs, shds, has_out_sharding(call))
    if any(s is None for s in shds) and not has_out_sharding(call):
        return None
    entry: dict[str, tuple[str, ...]] = {}
    for term, s in zip(terms, shds):
        for letter, e in zip(term, s or ()):
            if letter in entry and letter in outs and entry[letter] != e and entry[letter] and e:
                raise RuleError("NC803", f"{call.short}: batch dimension {letter!r} is split over "
                                         f"{_axes_desc(entry[letter])} in one operand and over {_axes_desc(e)} "
                                         f"in the other", hint="reshard one operand so the batch dims agree")
            entry.setdefault(letter, e)  # a batch dim sharded on one side: dot_general takes the first's
    out = [entry[letter] for letter in outs]
    if len(ops) == 1:
        return out_sharding(call, len(outs)) if has_out_sharding(call) else tuple(out)
    pairs = [(terms[0].index(c), terms[1].index(c)) for c in terms[0] if c in terms[1] and c not in outs]
    call.labels.setdefault("a", call.labels.get("operands", "") or "the first operand")
    call.labels.setdefault("b", "the second operand")
    return _contract(call, "a", "b", pairs, out, ops[0], ops[1], len(outs))


def _einsum_many(terms: list[str], outs: str, shds: list[Shd | None], given_out: bool) -> Shd:
    """einsum of three or more operands, contracted pairwise in opt_einsum's order. Known only where the
    order cannot matter: no contracted letter is sharded, every operand holding an output letter splits it
    alike (a batch dim sharded on one side takes the lhs's, so the order would decide), and the result uses
    each mesh axis once; the output letters keep that sharding."""
    if given_out or any(s is None for s in shds):
        raise Unprovable
    entry: dict[str, tuple[str, ...]] = {}
    for term, s in zip(terms, shds):
        assert s is not None
        for letter, e in zip(term, s):
            if letter not in outs and e or entry.setdefault(letter, e) != e:
                raise Unprovable
    out = tuple(entry[letter] for letter in outs)
    axes = [a for e in out for a in e]
    if len(axes) != len(set(axes)):
        raise Unprovable
    return out


# ---- reductions and permutations ---------------------------------------------------------------------

@sharding_rule(*[f"jax.numpy.{n}" for n in ("sum", "prod", "mean", "std", "var", "max", "min", "any", "all",
                                           "argmax", "argmin")])
def reduce_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Reduced dims drop their mesh axes (kept as unsharded size-1 dims under keepdims)."""
    s = of(call.array("a"))
    if s is None:
        return None
    axis = literal(call.get("axis", Const(None)))
    keep = bool(literal(call.get("keepdims", Const(False))))
    if axis is None:
        axes = set(range(len(s)))
    else:
        axes = {norm_axis(a, len(s), call.short) for a in (axis if isinstance(axis, tuple) else (axis,))}
    return tuple(() if i in axes else e for i, e in enumerate(s) if keep or i not in axes)


def _permute(s: Shd | None, perm: list[int]) -> Shd | None:
    return None if s is None else tuple(s[p] for p in perm)


@sharding_rule("jax.numpy.transpose", "jax.numpy.permute_dims")
def transpose_sharding(call: Call, result: ArrayType) -> Shd | None:
    s = of(call.array("a"))
    axes = literal(call.get("axes", Const(None)))
    if s is None:
        return None
    perm = list(reversed(range(len(s)))) if axes is None else [norm_axis(a, len(s), call.short) for a in axes]
    return _permute(s, perm)


@sharding_rule("jax.numpy.swapaxes")
def swapaxes_sharding(call: Call, result: ArrayType) -> Shd | None:
    s = of(call.array("a"))
    if s is None:
        return None
    perm = list(range(len(s)))
    i, j = (norm_axis(literal(call.get(k)), len(s), call.short) for k in ("axis1", "axis2"))
    perm[i], perm[j] = perm[j], perm[i]
    return _permute(s, perm)


@sharding_rule("jax.numpy.expand_dims", "jax.lax.expand_dims")
def expand_dims_sharding(call: Call, result: ArrayType) -> Shd | None:
    """New size-1 dims are unsharded; the others keep their mesh axes."""
    s = of(call.array("a" if "a" in call.args else "array"))
    if s is None:
        return None
    axis = literal(call.get("axis", None) or call.get("dimensions"))
    new = {norm_axis(a, len(result.shape), call.short) for a in ((axis,) if isinstance(axis, int) else axis)}
    it = iter(s)
    return tuple(() if i in new else next(it) for i in range(len(result.shape)))


@sharding_rule("jax.numpy.squeeze")
def squeeze_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Squeezed dims have size 1 and are unsharded: the remaining entries keep their order."""
    x = call.array("a")
    s = of(x)
    if s is None:
        return None
    kept = tuple(e for e, d in zip(s, x.shape) if not (d == 1 and not e))
    return kept if len(kept) == len(result.shape) else None


# ---- reshape -----------------------------------------------------------------------------------------

def _reshape_error(call: Call, x: ArrayType, new: tuple[Any, ...]) -> RuleError:
    return RuleError("NC805", f"{call.short} of {call.label('a')}: {fmt_type(x)} to {tuple(new)} is not supported "
                              f"for its sharding (the sharded dimension cannot be split or merged that way)",
                     hint="pass out_sharding=P(...) to the reshape, or reshard the operand first")


def _split_one(op: list[int], new: list[int]) -> list[Any] | None:
    """How `new` splits exactly one dim of `op` (per op dim: its size, or the list of sizes it splits
    into); None when it is not such a split; raises ValueError when more than one dim would split."""
    if len(new) <= len(op):
        return None
    ones = 0
    while op and new and op[-1] == 1 and new[-1] == 1:
        ones, op, new = ones + 1, op[:-1], new[:-1]
    i = j = count = 0
    out: list[Any] = []
    while j < len(new):
        if op[i] == new[j]:
            out.append(op[i])
        else:
            count += 1
            if count > 1:
                raise ValueError
            part = [new[j]]
            nj, ni = j + 1, i + 1
            while math.prod(part) != op[i] or (nj < len(new) and new[nj] == 1):
                if math.prod(part) > op[i]:
                    return None
                if math.prod(part) == op[i] and ni < len(op) and new[nj] == op[ni]:
                    break
                j += 1
                if j >= len(new):
                    return None
                part.append(new[j])
                nj += 1
            out.append(part)
        i += 1
        j += 1
    return out + [1] * ones


def _partitions(call: Call, axes: tuple[str, ...], sizes: list[int], fail: RuleError) -> list[tuple[str, ...]]:
    """Mesh axes handed out, major first, to the dims of `sizes` (each size divisible by its axes)."""
    mesh = call.env.mesh
    rest = list(axes)
    out = []
    for o in sizes:
        mine: list[str] = []
        while o > 1 and rest:
            k = mesh.size(rest[0]) if mesh is not None else None
            if not is_int(k):
                raise Unprovable
            o, r = divmod(o, k)
            if r:
                raise fail
            mine.append(rest.pop(0))
        out.append(tuple(mine))
    if rest:
        raise Unprovable
    return out


@sharding_rule("jax.numpy.reshape")
def reshape_sharding(call: Call, result: ArrayType) -> Shd | None:
    """JAX's reshape rule: unsharded operands and moved size-1 dims are free; otherwise one dim may split
    (its axes go to the major parts) or consecutive dims may merge (only the leading ones sharded)."""
    if has_out_sharding(call):
        return out_sharding(call, len(result.shape))
    x = call.array("a")
    s = of(x)
    if s is None:
        return None
    if not any(s):
        return ((),) * len(result.shape)
    op, new = list(x.shape), list(result.shape)
    if not (all_int(op) and all_int(new)):
        raise Unprovable
    fail = _reshape_error(call, x, tuple(new))
    if [d for d in op if d != 1] == [d for d in new if d != 1]:
        it: Iterator[tuple[str, ...]] = iter(e for e, d in zip(s, op) if d != 1)
        return tuple(() if d == 1 else next(it) for d in new)
    try:
        split = _split_one(op, new)
        merge = None if split is not None else _split_one(new, op) if len(new) < len(op) else None
    except ValueError:
        raise fail from None
    out: list[tuple[str, ...]] = []
    if split is not None:
        for part, e in zip(split, s):
            if isinstance(part, list):
                out.extend([()] * len(part) if not e else _partitions(call, e, part, fail))
            else:
                out.append(e)
        return tuple(out)
    if merge is None:
        raise fail
    it = iter(s)
    for n, part in zip(new, merge):
        if not isinstance(part, list):
            out.append(next(it))
            continue
        group = [a for _ in part for a in (next(it) or (None,))]
        while group and group[-1] is None:
            group.pop()
        if not group:
            out.append(())
        elif None in group:
            raise fail
        else:
            out.extend(_partitions(call, tuple(group), [n], fail))  # type: ignore[arg-type]  # no None: raised above
    return tuple(out)


# ---- concatenate, stack, take ------------------------------------------------------------------------

def _same_all(call: Call, name: str, what: str) -> Shd | None:
    items = call.get(name)
    if not isinstance(items, Seq):
        raise Unprovable
    ts = [as_array(v) for v in items.items]
    shds = [of(t) for t in ts]
    known = [(i, s) for i, s in enumerate(shds) if s is not None]
    for i, s in known[1:]:
        if s != known[0][1]:
            raise RuleError("NC801", f"{call.short}: all operands should have the same sharding, got {what} "
                                     f"{known[0][0]}: {fmt_type(ts[known[0][0]])} and {what} {i}: {fmt_type(ts[i])}",
                            hint=f"reshard {what} {i} to {fmt_spec(known[0][1])} first")
    return known[0][1] if known and len(known) == len(shds) else None


@sharding_rule("jax.numpy.concatenate")
def concatenate_sharding(call: Call, result: ArrayType) -> Shd | None:
    return _same_all(call, "arrays", "operand")


@sharding_rule("jax.numpy.stack")
def stack_sharding(call: Call, result: ArrayType) -> Shd | None:
    s = _same_all(call, "arrays", "operand")
    if s is None:
        return None
    axis = norm_axis(literal(call.get("axis", Const(0))), len(result.shape), call.short)
    return s[:axis] + ((),) + s[axis:]


@sharding_rule("jax.numpy.take")
def take_sharding(call: Call, result: ArrayType) -> Shd | None:
    """A gather whose indices are sharded, or that gathers along a sharded dim, needs an out sharding."""
    x, idx = call.array("a"), as_array(call.get("indices"))
    axis = literal(call.get("axis", Const(None)))
    sx, si = of(x), of(idx)
    if not isinstance(idx, ArrayType):
        return None
    if axis is None:  # the flattened array is gathered from: it must be replicated
        if sx is not None and any(sx):
            raise RuleError("NC806", f"{call.short} with axis=None gathers from {call.label('a')} flattened, which "
                                     f"is sharded ({fmt_type(x)}): the gather's out sharding cannot be resolved "
                                     f"unambiguously", hint="pass axis=, or reshard the array replicated first")
        x, axis = x.with_shape((None,)).with_sharding(((),)), 0
        sx = ((),) if sx is not None else None
    k = norm_axis(axis, len(x.shape), call.short)
    if (si is not None and any(si)) or (sx is not None and sx[k]):
        which = f"its indices {call.label('indices')} are sharded ({fmt_type(idx)})" if si and any(si) else \
            f"it gathers along dimension {k} of {call.label('a')}, split over {_axes_desc(sx[k] if sx else ())}"
        raise RuleError("NC806", f"{call.short}: the gather's out sharding cannot be resolved unambiguously: {which}",
                        hint="index with x.at[ids].get(out_sharding=P(...)), or reshard the indices / operand "
                             "to be unsharded there first")
    if sx is None or si is None:
        return None
    return sx[:k] + si + sx[k + 1:]


__all__ = ["ELEMENTWISE", "sharding_rule", "fmt_spec"]
