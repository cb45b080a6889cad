"""What every map boundary needs from the syntax: literal arguments, failures located at the map's
own argument (the `out_specs=` keyword, not the decorator line), per-instance argument rebuilding."""

from __future__ import annotations

from typing import Any

import libcst as cst

from namedcheck.engine import maps
from namedcheck.engine.errors import RuleError
from namedcheck.engine.values import NotLiteral, literal

# parameters each map takes positionally after the function (shard_map: the experimental form)
POSITIONAL_PARAMS = {
    "xmap": ("in_axes", "out_axes"),
    "vmap": ("in_axes", "out_axes"),
    "pmap": ("axis_name",),
    "shard_map": ("mesh", "in_specs", "out_specs"),
}


def lit(v: Any, default: Any = None) -> Any:
    try:
        return literal(v)
    except NotLiteral:
        return default


class Fail(Exception):
    """A rule failure with the node to report it at."""

    def __init__(self, node: cst.CSTNode, err: RuleError) -> None:
        self.node, self.err = node, err


def at(node: cst.CSTNode, fn: Any, *args: Any) -> Any:
    """Call an engine rule; its failure is reported at `node`."""
    try:
        return fn(*args)
    except RuleError as e:
        raise Fail(node, e) from None


def keyword_arg(node: cst.CSTNode, key: str) -> cst.Arg | None:
    """The `key=` argument written at a call or decorator (`@partial(jax.jit, key=...)`, or a call of
    such a call), None when it is not written there."""
    stack: list[Any] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Decorator):
            stack.append(n.decorator)
        elif isinstance(n, cst.Call):
            for a in n.args:
                if a.keyword is not None and a.keyword.value == key:
                    return a
            stack.append(n.func)
    return None


def param_node(ref: Any, name: str) -> cst.CSTNode:
    """Where a map's argument `name` is written (its keyword's value, or the positional argument),
    in `jax.shard_map(f, ..., out_specs=...)` or `@partial(jax.shard_map, ..., out_specs=...)`;
    the map's own node when it is not written there."""
    node = ref.node
    call = node.decorator if isinstance(node, cst.Decorator) else node
    if not isinstance(call, cst.Call):
        return node
    arg = keyword_arg(call, name)
    if arg is not None:
        return arg.value
    names = POSITIONAL_PARAMS.get(ref.kind, ())
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if name in names and isinstance(node, cst.Call):  # the call form: f comes first
        i = names.index(name) + 1
        if i < len(positional):
            return positional[i].value
    return node


def rebuild(pos: list[Any], locals_: list[Any]) -> list[Any]:
    """Per-instance argument values, in the arguments' own structure (flat leaves -> args)."""
    it = iter(locals_)
    return [maps.seq_rebuild(p, it) for p in pos]


def required_positional(func: Any) -> int | None:
    """How many positional arguments a map hands a plain function of the module (its parameters without
    defaults); None for lambdas, methods (`self` is no argument of the map) and `*args` functions."""
    fn = getattr(func, "node", None)
    if (
        not isinstance(fn, cst.FunctionDef)
        or getattr(func, "owner", None) is not None
        or isinstance(fn.params.star_arg, cst.Param)
    ):
        return None
    return len(fn.params.posonly_params) + len([p for p in fn.params.params if p.default is None])


def return_nodes(fn: Any) -> list[cst.Return]:
    """The return statements of a function body (not of functions nested in it)."""
    out: list[cst.Return] = []

    class _Returns(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is fn

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

        def visit_Return(self, node: cst.Return) -> None:
            out.append(node)

    if isinstance(fn, cst.FunctionDef):
        fn.visit(_Returns())
    return out


def source(node: cst.CSTNode, limit: int = 60) -> str:
    """A short rendering of a node's source for messages."""
    text = " ".join(cst.Module([]).code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
