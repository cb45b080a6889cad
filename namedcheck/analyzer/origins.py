"""Where a value came from (`ArrayType.origin`, opaque to the engine): the placement that gave it its sharding,
where it started varying over each mesh axis, and the calls that passed it in as an argument. Diagnostics read
it back to name causes elsewhere (`RuleError.relate`). An origin never takes part in a value's equality, hash or
repr (memo keys and the result cache are unchanged), and pickles to None (a mypy worker's values hold no nodes)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import libcst as cst

from namedcheck.analyzer.parsing import child_nodes
from namedcheck.analyzer.refs import IterRef
from namedcheck.engine.algebra import fmt_shape
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import Spec, tree_leaves
from namedcheck.engine.values import ArrayType, Seq


def _none() -> None:
    return None


@dataclass(frozen=True, eq=False)
class Origin:
    # (node, sharding key, inherited) of the placement that gave the value its sharding; the key (`sharding`,
    # `spec`) tells whether the value still has that sharding; inherited: an op passed an operand's sharding on
    placed: tuple[cst.CSTNode, Any, bool] | None = None
    varying: tuple[tuple[str, cst.CSTNode, str], ...] = ()  # per mesh axis: where it started varying, and how
    # the calls that passed the value in, innermost first: (call node, argument node, message)
    calls: tuple[tuple[cst.CSTNode, cst.CSTNode, str], ...] = ()
    # the op that gave the value its shape (the last one that changed it), and that op's short name
    made: tuple[cst.CSTNode, str] | None = None
    # where the sharding of that placement was written (`NamedSharding(...)`, `P(...)`), when not inside it
    written: tuple[cst.CSTNode, ...] = ()

    def __reduce__(self) -> Any:
        return (_none, ())


EMPTY = Origin()


@dataclass(frozen=True, eq=False)
class Written:
    """Where a sharding value (`P(...)`, `NamedSharding(...)`) was written; pickles to None."""

    node: cst.CSTNode

    def __reduce__(self) -> Any:
        return (_none, ())


@dataclass(frozen=True, eq=False)
class Aside:
    """A related anchor shown only when no other related location of the diagnostic is on its line (the
    `P(...)` inside the `device_put(...)` that is already named)."""

    node: cst.CSTNode


def written(v: ArrayType, *where: Any) -> ArrayType:
    """`v` placed by a sharding written at `where` (`Written` values; None where not known)."""
    nodes = tuple(dict.fromkeys(w.node for w in where if isinstance(w, Written)))
    return _with(v, written=nodes) if nodes != of(v).written else v


def of(v: Any) -> Origin:
    o = v.origin if isinstance(v, ArrayType) else None
    return o if isinstance(o, Origin) else EMPTY


def _with(v: ArrayType, **changes: Any) -> ArrayType:
    return replace(v, origin=replace(of(v), **changes))


def _key(v: ArrayType) -> Any:
    return (v.sharding, v.spec)


def _leaves(v: Any, fn: Any) -> Any:
    if isinstance(v, ArrayType):
        return fn(v)
    if isinstance(v, Seq):
        return Seq(tuple(_leaves(i, fn) for i in v.items), v.kind)
    if isinstance(v, IterRef):  # a generator's items
        return IterRef(_leaves(v.item, fn), _leaves(v.head, fn) if v.head is not None else None)
    return v


def placed(v: Any, node: cst.CSTNode, keep_written: bool = True) -> Any:
    """Every array of `v` placed at `node` (device_put, reshard, creation with out_sharding=, ...); where its
    sharding was written is kept (`written`, set per leaf by the placement) unless `keep_written` is false."""

    def one(a: ArrayType) -> ArrayType:
        if a.sharding is None and not a.spec:
            return a
        return _with(a, placed=(node, _key(a), False), **({} if keep_written else {"written": ()}))

    return _leaves(v, one)


def placement(v: Any) -> cst.CSTNode | None:
    """The node that placed `v` with the sharding it still has."""
    p = of(v).placed
    return p[0] if p is not None and isinstance(v, ArrayType) and p[1] == _key(v) else None


def spec_text(v: ArrayType) -> str:
    """The PartitionSpec a value was placed with, as written: `P('data', None)`."""
    if v.sharding is not None and len(v.sharding) == len(v.shape):
        return repr(Spec(tuple(e or None for e in v.sharding), v.unreduced, v.reduced))
    return repr(Spec(tuple(v.spec or ()), v.unreduced, v.reduced))


def relate_placements(err: RuleError, operands: list[tuple[str | None, Any]]) -> RuleError:
    """`b` was placed with P('data') here: for each operand (label, value; the leaves of a tree) whose sharding
    a placement gave."""
    for lab, v in operands:
        if isinstance(v, Seq):
            relate_placements(err, [(None, x) for x in tree_leaves(v)])
            continue
        node = placement(v)
        if node is None:
            continue
        who = (lab if lab.startswith(("branch ", "argument ")) else f"`{lab}`") if lab else "an operand"
        if of(v).placed[2]:  # type: ignore[index]
            err.relate(node, f"{who} has its sharding {spec_text(v)} from this placement")
        else:
            err.relate(node, f"{who} was placed with {spec_text(v)} here")
        for w in of(v).written:
            err.relate(Aside(w), f"the sharding of {who} is written here")
    return err


def varying_from(v: Any, node: cst.CSTNode, message: str) -> Any:
    """`v` (a tree) varying over its axes from `node` (a shard_map parameter) where no origin says otherwise;
    `message` names the axis as `{axis}`."""

    def one(a: ArrayType) -> ArrayType:
        known = {ax for ax, _, _ in of(a).varying}
        extra = tuple((ax, node, message.format(axis=repr(ax))) for ax in sorted(a.varying) if ax not in known)
        return _with(a, varying=of(a).varying + extra) if extra else a

    return _leaves(v, one)


def started_varying(v: ArrayType, axis: str) -> tuple[cst.CSTNode, str] | None:
    return next(((n, m) for ax, n, m in of(v).varying if ax == axis), None)


def op_result(result: Any, inputs: list[Any], node: cst.CSTNode, short: str, placing: bool = False) -> Any:
    """An op's result: placed here (`placing`: the op was given out_sharding=), or the placement of an operand
    whose sharding it has; the calls its operands came in by; where it varies over each axis from (an input's
    origin, or this op where no input varies over it)."""
    if isinstance(result, Seq):  # `jnp.split(y, 3)`: each part gets its shape here
        return Seq(tuple(op_result(i, inputs, node, short, placing) for i in result.items), result.kind)
    if not isinstance(result, ArrayType):
        return result
    arrays = [a for a in inputs if isinstance(a, ArrayType)]
    changes: dict[str, Any] = {}
    if placing and result.sharding is not None:
        changes["placed"] = (node, _key(result), False)
        changes["written"] = ()
    elif result.sharding is not None and placement(result) is None:
        src = next((a for a in arrays if a.sharding == result.sharding and placement(a) is not None), None)
        if src is not None:
            changes["placed"] = (of(src).placed[0], _key(result), True)  # type: ignore[index]
            changes["written"] = of(src).written
    calls = tuple(dict.fromkeys(c for a in arrays for c in of(a).calls))[:4]
    if calls and calls != of(result).calls:
        changes["calls"] = calls
    same_shape = next((a for a in arrays if a.shape == result.shape), None)
    made = of(same_shape).made if same_shape is not None else (node, short)
    if made != of(result).made:
        changes["made"] = made
    if changes:
        result = replace(result, origin=replace(of(result), **changes))
    if not result.varying:
        return result
    per_axis: list[tuple[str, cst.CSTNode, str]] = []
    for ax in sorted(result.varying):
        found = next((s for a in arrays if ax in a.varying and (s := started_varying(a, ax)) is not None), None)
        if found is not None:
            per_axis.append((ax, *found))
        elif not any(ax in a.varying for a in arrays):
            per_axis.append((ax, node, f"the value starts varying over {ax!r} here ({short})"))
    if not per_axis:
        return result
    if tuple(per_axis) == of(result).varying:
        return result
    return replace(result, origin=replace(of(result), varying=tuple(per_axis)))


def made_at(v: ArrayType, node: cst.CSTNode, short: str) -> ArrayType:
    """`v` with its shape given at `node` (a layer's construction, not where it is applied)."""
    return _with(v, made=(node, short))


def passed(v: Any, call: cst.CSTNode, arg: cst.CSTNode | None, param: str) -> Any:
    """An argument bound to parameter `param` at `call` (a function analysed for this call)."""
    if arg is None:
        return v
    return _leaves(v, lambda a: _with(a, calls=((call, arg, _called(a, param)), *of(a).calls)))


def _called(a: ArrayType, param: str) -> str:
    dims = ", ".join("?" if d is None else "..." if d is ... else str(d) for d in a.shape)
    shape = f"({dims},)" if len(a.shape) == 1 else f"({dims})"
    return f"called here with `{param}` of shape {shape}"


def returned(v: Any, call: cst.CSTNode) -> Any:
    """A call's result back in the caller: the arguments of that call are no longer causes."""

    def one(a: ArrayType) -> ArrayType:
        calls = of(a).calls
        if not any(c is call for c, _, _ in calls):
            return a
        return _with(a, calls=tuple(c for c in calls if c[0] is not call))

    return _leaves(v, one)


def forget(v: Any) -> Any:
    """A value without origins (a memoised analysis's result, found for another call)."""
    return _leaves(v, lambda a: replace(a, origin=None) if a.origin is not None else a)


def relate_shapes(err: RuleError, operands: list[tuple[str | None, Any]], at: cst.CSTNode) -> RuleError:
    """`y` has shape (4, 9) from `nn.Dense(...)` here: for each labelled operand whose shape an op outside the
    failing expression `at` gave it (where a wrong size is usually written)."""
    inside = {id(n) for n in _subtree(at)}
    for lab, v in operands:
        made = of(v).made if isinstance(v, ArrayType) and lab else None
        if made is not None and id(made[0]) not in inside:
            err.relate(made[0], f"`{lab}` gets its shape {fmt_shape(v.shape)} from {made[1]} here")
    return err


def _subtree(node: cst.CSTNode) -> list[cst.CSTNode]:
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        out.append(n)
        todo.extend(child_nodes(n))
    return out


def relate_calls(err: RuleError, operands: list[Any]) -> RuleError:
    """called here with `x` of shape (5, 3): the call sites whose arguments the operands are."""
    for v in operands:
        for _, arg, message in of(v).calls:
            err.relate(arg, message)
    return err


__all__ = [
    "Origin",
    "of",
    "placed",
    "placement",
    "relate_placements",
    "varying_from",
    "started_varying",
    "op_result",
    "passed",
    "returned",
    "forget",
    "relate_calls",
    "relate_shapes",
    "made_at",
    "spec_text",
    "Written",
    "Aside",
    "written",
]
