"""What every map boundary needs from the syntax: literal arguments, failures located at the map's
own argument (the `out_specs=` keyword, not the decorator line), per-instance argument rebuilding."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import libcst as cst

from namedcheck.analyzer.refs import InstanceRef
from namedcheck.engine import maps
from namedcheck.engine.codes import NC402
from namedcheck.engine.errors import RuleError
from namedcheck.engine.values import ArrayType, NotLiteral, Seq, literal

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


# ---- vmap / pmap arguments ------------------------------------------------------------------------


def static_positions(ref: Any, n_args: int) -> frozenset[int] | None:
    """pmap's `static_broadcasted_argnums` as positions of the call's arguments (empty when not given);
    None when it is not a literal."""
    if ref.kind != "pmap" or "static_broadcasted_argnums" not in ref.params:
        return frozenset()
    v = lit(ref.params["static_broadcasted_argnums"], default=None)
    nums = (v,) if isinstance(v, int) else v
    if not isinstance(nums, tuple) or not all(isinstance(i, int) and not isinstance(i, bool) for i in nums):
        return None
    return frozenset(i % n_args if -n_args <= i < 0 else i for i in nums)


def check_static_hashable(pos: list[Any], static: frozenset[int]) -> None:
    """NC402: an argument pmap broadcasts statically must be hashable (JAX raises for an array, list, dict)."""
    for i in sorted(static):
        v = pos[i] if i < len(pos) else None
        unhashable = (
            "an array"
            if isinstance(v, ArrayType) and not v.is_partial
            else f"a {v.kind}"
            if isinstance(v, Seq) and v.kind in ("list", "dict")
            else None
        )
        if unhashable is not None:
            raise RuleError(
                NC402,
                f"argument {i} is in pmap's static_broadcasted_argnums, but it is {unhashable}, which is not "
                f"hashable (static arguments must be)",
                hint="pass it as a mapped (or in_axes None) argument, or make it hashable (a tuple, a number)",
                data={"argument": i},
            )


def check_arity(ref: Any, n_pos: int, kw: dict[str, Any]) -> None:
    """NC402: a vmap / pmap of a function of the module called without one of its required parameters, or with
    more positional arguments than it takes (JAX raises the function's own TypeError while tracing it). A method
    the map decorates gets `self` as its first argument (`obj.step(x)`)."""
    func = ref.func
    fn = getattr(func, "node", None)
    if (
        not isinstance(fn, cst.FunctionDef)
        or fn.params.star_kwarg is not None
        or any(not isinstance(k, str) for k in kw)
    ):
        return
    positional = [p.name.value for p in [*fn.params.posonly_params, *fn.params.params]]
    required = [p.name.value for p in [*fn.params.posonly_params, *fn.params.params] if p.default is None]
    required += [p.name.value for p in fn.params.kwonly_params if p.default is None]
    name = fn.name.value
    if n_pos > len(positional) and not isinstance(fn.params.star_arg, cst.Param):
        raise RuleError(
            NC402,
            f"{ref.kind}({name}) is called with {n_pos} positional arguments, but {name} takes {len(positional)}",
            hint=f"pass {name}'s parameters ({', '.join(positional)})",
            data={"parameters": positional},
        )
    given = set(positional[:n_pos]) | set(kw)
    missing = [r for r in required if r not in given]
    if missing:
        raise RuleError(
            NC402,
            f"{ref.kind}({name}) is called without {', '.join(repr(m) for m in missing)}: {name} requires "
            f"{', '.join(required)}",
            hint=f"pass every required parameter of {name}",
            data={"missing": missing, "parameters": positional},
        )


def traced_env(f: Any, ref: Any) -> Any:
    """The axes in scope for a body traced by pmap / vmap without an axis_name: exactly the caller's, and
    every name a collective may use is then known (NC705 can be proven). Code analysed as part of a function
    on its own defers NC705 to that function's callers (`Frame.report`): reported unless that function runs
    under a map."""
    env = f.env if f.env.definitive else replace(f.env, definitive=True)
    return env if env.origin is not None else replace(env, origin=ref)


def unbound_name_cause(env: Any, err: RuleError) -> RuleError:
    """NC705 inside a vmap / pmap without an axis_name: that map is where the name would be bound."""
    ref = env.origin
    if getattr(ref, "kind", None) not in ("vmap", "pmap"):
        return err
    axis, bound = err.data.get("axis"), lit(ref.params.get("axis_name"))
    if "axis_name" not in ref.params:
        err.relate(ref.node, f"this {ref.kind} binds no axis name (give it axis_name={axis!r})")
    elif isinstance(bound, str):
        err.relate(param_node(ref, "axis_name"), f"this {ref.kind} binds {bound!r}, not {axis!r}")
    return err


def argument_node(call: cst.Call, what: str) -> cst.CSTNode | None:
    """The argument a label names at a call (`argument 1`, `argument 1[0]`: the positional one; `keyword argument
    'y'`: the keyword's value)."""
    if what.startswith("keyword argument "):
        key = what[len("keyword argument ") :].split("[", 1)[0].strip("'\"")
        return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == key), None)
    head = what.split("[", 1)[0]
    if not head.startswith("argument ") or not head[len("argument ") :].isdigit():
        return None
    i = int(head[len("argument ") :])
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in positional[: i + 1]) or i >= len(positional):
        return None
    return positional[i].value


def check_jax_types(f: Any, ref: Any, pos: list[Any], per_arg: tuple[Any, ...], static: frozenset[int]) -> None:
    """NC402: an instance of a plain class of the module (no bases, no decorators, not registered as a pytree)
    handed to a vmap along a mapped axis, or to a pmap other than statically: JAX accepts arrays and pytrees
    only. The usual case is `self` of a method decorated by the map."""
    for i, v in enumerate(pos):
        cls = v.cls if isinstance(v, InstanceRef) else None
        if (
            cls is None
            or i in static
            or not cls.plain
            or "__jax_array__" in cls.methods
            or (ref.kind == "vmap" and per_arg[i] is None)
            or _registered(f, cls.name)
        ):
            continue
        method = getattr(ref.func, "owner", None) is cls and i == 0
        what = (
            f"`self` (argument 0, an instance of {cls.name})" if method else f"argument {i} (an instance of {cls.name})"
        )
        how = "maps" if per_arg[i] is not None else "passes"
        raise RuleError(
            NC402,
            f"{ref.kind} {how} {what}, which is not a JAX type: {cls.name} is neither an array nor a registered pytree",
            hint="mark it static (static_broadcasted_argnums=0 for `self` of a pmap), give it in_axes None (vmap), "
            "or make the class a pytree (flax.struct.dataclass, jax.tree_util.register_pytree_node_class)",
            data={"argument": i},
        )


def _registered(f: Any, name: str) -> bool:
    """Whether the module registers the class `name` with JAX's pytree registry (any `register_*(Cls, ...)`)."""
    module = getattr(f.an, "module", None)
    if not isinstance(module, cst.Module):
        return True  # not known: it may be
    found = False

    class _Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            nonlocal found
            func = node.func
            callee = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", "")
            if isinstance(callee, str) and "register" in callee:
                found = found or any(isinstance(a.value, cst.Name) and a.value.value == name for a in node.args)

    module.visit(_Calls())
    return found
