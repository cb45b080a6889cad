"""Loop carries that change their type (NC408): the analyzer's side of `engine/maps.check_carry_type`.

Instances of pytree classes (NamedTuples, dataclasses) become engine containers for the comparison; a
mismatch is reported at the body's return (the carry output), with the carry's initial value as a related
location, and a while_loop's cond_fun at its return."""

from __future__ import annotations

from typing import Any

import libcst as cst

from namedcheck.analyzer import origins
from namedcheck.analyzer.parsing import OwnScope
from namedcheck.analyzer.refs import FuncRef, InstanceRef, PartialRef, QualRef
from namedcheck.analyzer.scope import FrameState as Frame
from namedcheck.engine import dtypes, maps
from namedcheck.engine.algebra import fmt_shape
from namedcheck.engine.errors import RuleError
from namedcheck.engine.names import canonical_name
from namedcheck.engine.trees import dict_like, keyed
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, DtypeRef, Seq

# where each loop takes its initial carry: (position, keyword)
INIT = {"lax.scan": (1, "init"), "lax.fori_loop": (3, "init_val"), "lax.while_loop": (2, "init_val")}


def as_tree(v: Any) -> Any:
    """A carry as an engine pytree: a built instance of a field class (NamedTuple, dataclass, flax struct) as a
    container of its fields (kind `class Name`); an instance whose fields are not known, or a linen module, is
    Unknown."""
    if isinstance(v, InstanceRef):
        info = v.cls
        if v.values is None or info.kind != "fields" or any(b.startswith("flax.linen") for b in info.bases):
            return UNKNOWN
        if info.mutated:
            return UNKNOWN
        return Seq(tuple(Seq((Const(k), as_tree(x))) for k, x in v.values), f"class {info.name}")
    if isinstance(v, Seq):
        return Seq(tuple(as_tree(i) for i in v.items), v.kind)
    return v


# creation functions (jax.numpy / numpy) whose result is strongly typed: the position of their dtype parameter, and
# whether they give a strong float32 without one
_CREATION = {
    "zeros": (1, True),
    "ones": (1, True),
    "empty": (1, True),
    "eye": (3, True),
    "identity": (1, True),
    "full": (2, False),
    "array": (1, False),
    "asarray": (1, False),
    "zeros_like": (1, False),
    "ones_like": (1, False),
    "full_like": (2, False),
}


def _proven_strong(f: Frame, v: Any) -> bool:
    """An array known not to be weakly typed: its shape comes from a creation call with an explicit dtype (or one
    that is float32 by default) and it still has that dtype. A later op that keeps the shape but takes a weak
    operand's dtype (`zeros(3, int32) + 0.5`, weak float32) changes the dtype, so it proves nothing."""
    made = origins.of(v).made if isinstance(v, ArrayType) else None
    call = made[0] if made is not None else None
    if not isinstance(call, cst.Call) or not isinstance(v, ArrayType) or v.dtype_code is None:
        return False
    func = f.ev(call.func)
    if not isinstance(func, QualRef):
        return False
    module, _, name = canonical_name(func.name).rpartition(".")
    if module not in ("jax.numpy", "numpy") or name not in _CREATION:
        return False
    at, float_default = _CREATION[name]
    arg = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "dtype"), None)
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if arg is None and at < len(positional):
        arg = positional[at].value
    if arg is not None:
        dt = f.ev(arg) if isinstance(arg, cst.Attribute | cst.SimpleString | cst.Name) else None
        if isinstance(dt, Const) and isinstance(dt.value, str):
            dt = DtypeRef(dtypes.canonical_dtype(dt.value))
        code = dt.code if isinstance(dt, DtypeRef) else None
    else:
        code = "f32" if float_default else None
    have = dtypes.materialize(v.dtype_code)
    return code is not None and have is not None and (code == have or frozenset({code, have}) in dtypes.X64_PAIRS)


def _strong_paths(f: Frame, v: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths (as `trees.paired` walks them) of the leaves of an initial carry proven strongly typed."""
    if isinstance(v, Seq) and dict_like(v):
        keys = keyed(v)
        return [p for k, x in (keys or {}).items() for p in _strong_paths(f, x, (*path, k))]
    if isinstance(v, Seq):
        return [p for i, x in enumerate(v.items) for p in _strong_paths(f, x, (*path, i))]
    return [path] if _proven_strong(f, v) else []


def _cast_paths(node: cst.BaseExpression | None, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of an initial carry written out (literal tuples, lists and dicts) whose item is a `.astype(...)`
    call: a cast is strongly typed whatever it casts."""
    if isinstance(node, cst.Tuple | cst.List):
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return []
        return [p for i, e in enumerate(node.elements) for p in _cast_paths(e.value, (*path, i))]
    if isinstance(node, cst.Dict):
        if not all(isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString) for e in node.elements):
            return []
        return [
            p
            for e in node.elements
            if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
            for p in _cast_paths(e.value, (*path, e.key.evaluated_value))
        ]
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "astype":
        return [path]
    return []


def _function(fn: Any) -> cst.FunctionDef | cst.Lambda | None:
    while isinstance(fn, PartialRef):
        fn = fn.func
    return fn.node if isinstance(fn, FuncRef) else None


class _Returns(OwnScope):
    """The return statements of one function body, not of the functions defined inside it."""

    def __init__(self) -> None:
        self.found: list[cst.Return] = []

    def visit_Return(self, node: cst.Return) -> None:
        self.found.append(node)


def returned(fn: Any) -> cst.BaseExpression | None:
    """The expression a function value returns: a lambda's body, or the value of a def's one return (the last,
    where there are several); None when not known."""
    node = _function(fn)
    if isinstance(node, cst.Lambda):
        return node.body
    if node is None:
        return None
    finder = _Returns()
    node.body.visit(finder)
    values = [r.value for r in finder.found if r.value is not None]
    return values[-1] if values else None


def _drill(node: cst.BaseExpression | None, path: list[Any]) -> cst.BaseExpression | None:
    """The part of a literal tuple / list / dict a carry path names, as far as the syntax spells it out."""
    for step in path:
        if isinstance(node, cst.Tuple | cst.List) and isinstance(step, int):
            elems = node.elements
            if any(isinstance(e, cst.StarredElement) for e in elems) or step >= len(elems):
                break
            node = elems[step].value
        elif isinstance(node, cst.Dict) and isinstance(step, str):
            hit = next(
                (
                    e.value
                    for e in node.elements
                    if isinstance(e, cst.DictElement)
                    and isinstance(e.key, cst.SimpleString)
                    and e.key.evaluated_value == step
                ),
                None,
            )
            if hit is None:
                break
            node = hit
        else:
            break
    return node


def _init_node(node: cst.CSTNode, op: str, n_pos: int) -> cst.BaseExpression | None:
    """The initial carry's argument at the loop's call (`n_pos`: the positional values the loop received,
    more than written when a functools.partial supplied the first ones)."""
    where = INIT.get(op)
    if where is None or not isinstance(node, cst.Call):
        return None
    kw = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == where[1]), None)
    if kw is not None:
        return kw
    if any(a.star for a in node.args):
        return None
    positional = [a for a in node.args if a.keyword is None]
    i = where[0] - (n_pos - len(positional))
    return positional[i].value if 0 <= i < len(positional) else None


def check(f: Frame, op: str, init: Any, out: Any, body: Any, node: cst.CSTNode, n_pos: int) -> bool:
    """NC408 for one loop: reported at the body's carry output (its return; for scan the return's first item),
    else at the loop's call. Whether it was reported (then the carry's other checks are skipped)."""
    try:
        tree = as_tree(init)
        strong = [*_strong_paths(f, tree), *_cast_paths(_init_node(node, op, n_pos))]
        maps.check_carry_type(tree, as_tree(out), op, frozenset(strong))
    except RuleError as e:
        path = list(e.data.get("path", []))
        ret = returned(body)
        if op == "lax.scan":
            ret = _drill(ret, [0]) if isinstance(ret, cst.Tuple) and len(ret.elements) == 2 else None
        start = _init_node(node, op, n_pos)
        where = e.data.get("where", "the carry")
        if start is not None:
            start = _drill(start, path)
            e.relate(start, f"{where} starts as {e.data.get('init')} here")
        leaf = _at_path(tree, path)
        made = origins.of(leaf).made if isinstance(leaf, ArrayType) and e.data.get("part") == "shape" else None
        if made is not None and made[0] is not start:
            e.relate(made[0], f"{where} gets its shape {fmt_shape(leaf.shape)} from {made[1]} here")
        target = _drill(ret, path)
        f.report(target if target is not None else node, e)
        return True
    return False


def _at_path(tree: Any, path: list[Any]) -> Any:
    """The part of an engine pytree at a path of indices and keys (Unknown where it has none)."""
    for step in path:
        if isinstance(tree, Seq) and dict_like(tree):
            tree = (keyed(tree) or {}).get(step, UNKNOWN)
        elif isinstance(tree, Seq) and isinstance(step, int) and step < len(tree.items):
            tree = tree.items[step]
        else:
            return UNKNOWN
    return tree


def check_cond(f: Frame, op: str, out: Any, cond: Any, node: cst.CSTNode) -> None:
    """NC408 for a while_loop's cond_fun, at its return."""
    try:
        maps.check_loop_cond(out, op)
    except RuleError as e:
        ret = returned(cond)
        f.report(ret if ret is not None else node, e)


__all__ = ["as_tree", "returned", "check", "check_cond", "INIT"]
