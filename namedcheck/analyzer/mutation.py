"""Whether a call may mutate a list or dict passed to it. A function of the module that only reads its
parameter (indexes it, iterates it, passes it to JAX / numpy or to another such function) leaves the
caller's value known; anything else (a method call, an item assignment, storing or returning it, a
closure over it) may mutate it, and the caller forgets the value."""

from __future__ import annotations

import ast
import dataclasses
from typing import Any

import libcst as cst

from namedcheck.analyzer.refs import FuncRef, GradRef, MappedRef, ModuleMethodRef, PartialRef, QualRef
from namedcheck.engine.values import UNKNOWN, Seq

# Packages whose functions never mutate a Python container they are given (JAX flattens pytrees).
_PURE_PACKAGES = {"jax", "numpy", "math", "optax", "chex", "einops", "namedcheck"}
# ... and, for a library function called (not one of the module's), libraries that store or read them only
_PURE_LIBRARIES = _PURE_PACKAGES | {
    "flax",
    "equinox",
    "haiku",
    "functools",
    "operator",
    "typing",
    "dataclasses",
    "itertools",
    "collections",
    "json",
    "logging",
    "os",
    "absl",
    "ml_collections",
    "argparse",
    "jaxtyping",
    "beartype",
    "pickle",
    "copy",
    "pprint",
    "time",
    "sys",
    "warnings",
    "re",
    "inspect",
    "contextlib",
    "pathlib",
    "io",
    "tree",
    "optree",
    "orbax",
    "msgpack",
    "tensorflow",
    "torch",
    "tqdm",
    "wandb",
}


def pure_library(name: str) -> bool:
    """A library function (its canonical or import name) that leaves the lists and dicts it is given as they are."""
    root, _, rest = name.partition(".")
    if rest.endswith("shuffle"):  # `np.random.shuffle(xs)`: in place
        return False
    if root == "builtins":
        return rest in _PURE_BUILTINS or rest in ("print", "isinstance", "hasattr", "getattr", "bool", "int", "float")
    return root in _PURE_LIBRARIES


_PURE_BUILTINS = {
    "len",
    "zip",
    "enumerate",
    "list",
    "tuple",
    "sorted",
    "sum",
    "range",
    "reversed",
    "isinstance",
    "print",
    "min",
    "max",
    "any",
    "all",
    "dict",
    "str",
    "repr",
    "type",
    "id",
    "iter",
    "set",
}
# attributes of a list or dict that only read it
_READ_ATTRS = {"shape", "dtype", "ndim", "size", "T", "keys", "values", "items", "get", "copy", "index", "count"}
# wrappers that hand the function flattened copies of its arguments' containers, and bound calls that only store
# their arguments (`state.replace(params=new)`)
_COPYING = ("namedcheck.analyzer.iteration.", "dataclasses.replace")
_NN_MODULES = "namedcheck.analyzer.nn_modules."  # stax's init_fun / apply_fun read their arguments
_HAIKU = "<haiku>."  # a transformed pair's init / apply, a module's method, hk.Sequential
_FLAX = ("<linen>.", "<nnx>.")  # a bound linen module, nnx.Sequential, an rng stream, nnx.vmap's traced function


def mutable_args(func: Any, args: Any, lookup: Any) -> list[cst.Arg]:
    """The arguments of a call of `func` (not a QualRef) that the call may mutate, among those that are
    names of known lists or dicts (`lookup` reads a name)."""
    out: list[cst.Arg] = []
    if not any(_container(a, lookup) for a in args):
        return out
    index = 0
    for a in args:
        if not _container(a, lookup):
            index = -1_000_000 if a.star else index + (a.keyword is None)
            continue
        if a.star:
            out.append(a)
            index = -1_000_000  # positions after a `*args` are not known
        elif a.keyword is not None:
            if may_mutate(func, None, a.keyword.value):
                out.append(a)
        else:
            if index < 0 or may_mutate(func, index, None):
                out.append(a)
            index += 1
    return out


def _container(a: cst.Arg, lookup: Any) -> bool:
    if not isinstance(a.value, cst.Name):
        return False
    v = lookup(a.value.value)
    return isinstance(v, Seq) and v.kind in ("list", "dict")


def may_mutate(func: Any, index: int | None, keyword: str | None, active: frozenset[int] = frozenset()) -> bool:
    """Whether calling `func` may mutate its argument at position `index` (or keyword `keyword`)."""
    if isinstance(func, MappedRef | GradRef | ModuleMethodRef):
        return False  # the function sees arrays of the flattened arguments (flax: variables), not their containers
    if isinstance(func, PartialRef):
        if isinstance(func.func, QualRef):
            return not func.func.name.startswith(
                (*_COPYING, "flax.training.train_state.", _NN_MODULES, _HAIKU, *_FLAX, "optax.")
            )
        if index is not None:
            index += len(func.args)
        elif any(k == keyword for k, _ in func.kwargs):
            return True
        return may_mutate(func.func, index, keyword, active)
    if not isinstance(func, FuncRef) or id(func.node) in active:
        return True
    name = _param_name(func, index, keyword)
    if name is None:
        return True
    cache = _cache(func)
    key = id(func.node)
    if key not in cache:  # one walk of the body per function, once per module
        cache[key] = _unsafe_params(func, active | {id(func.node)})
    return name in cache[key]


def _cache(func: FuncRef) -> dict[int, frozenset[str]]:
    """The module analyzer's memo (its function nodes live as long as it does)."""
    an = getattr(func.scope, "an", None)
    if an is None:
        return {}
    memo = getattr(an, "mutation_memo", None)
    if memo is None:
        memo = {}
        an.mutation_memo = memo
    return memo


_FIELDS: dict[type, tuple[str, ...]] = {}


def _children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """A node's child nodes, read off its dataclass fields (libcst's `children` runs a visitor)."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(
            f.name for f in dataclasses.fields(node) if not f.name.startswith(("whitespace", "lpar", "rpar", "comma"))
        )
    out: list[cst.CSTNode] = []
    for n in names:
        v = getattr(node, n)
        if isinstance(v, cst.CSTNode):
            out.append(v)
        elif isinstance(v, tuple | list):
            out.extend(x for x in v if isinstance(x, cst.CSTNode))
    return out


def _unsafe_params(func: FuncRef, active: frozenset[int]) -> frozenset[str]:
    """The parameters of `func` its body may mutate (any use that is not a read), in one walk."""
    p = func.node.params
    params = {prm.name.value for prm in (*p.posonly_params, *p.params, *p.kwonly_params)}
    return _unsafe_names(func.node.body, params, func, active)


def _unsafe_names(body: cst.CSTNode, names: set[str], func: FuncRef, active: frozenset[int]) -> frozenset[str]:
    """Those of `names` that `body` uses other than by reading them (a closure over one counts)."""
    unsafe: set[str] = set()
    stack: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...], bool]] = [(body, (), False)]
    while stack and unsafe != names:
        node, ancestors, nested = stack.pop()
        if isinstance(node, cst.Name) and node.value in names and node.value not in unsafe:
            if _not_a_reference(node, ancestors):
                continue  # `jax.tree.map` names no parameter `tree`; nor does a keyword `f(tree=...)`
            if nested or not _safe_use(node, ancestors, func, active):
                unsafe.add(node.value)  # a closure over it, or a use that may mutate it
            continue
        inner = nested or (isinstance(node, cst.FunctionDef | cst.Lambda | cst.ClassDef) and bool(ancestors))
        for child in _children(node):
            stack.append((child, (*ancestors, node), inner))
    return frozenset(unsafe)


def _not_a_reference(node: cst.Name, ancestors: tuple[cst.CSTNode, ...]) -> bool:
    """A name that reads no variable: an attribute's name (`x.tree`), a call's keyword (`f(tree=...)`)."""
    parent = ancestors[-1] if ancestors else None
    return (isinstance(parent, cst.Attribute) and parent.attr is node) or (
        isinstance(parent, cst.Arg) and parent.keyword is node
    )


def _param_name(func: FuncRef, index: int | None, keyword: str | None) -> str | None:
    p = func.node.params
    positional = [prm.name.value for prm in (*p.posonly_params, *p.params)]
    if index is not None:
        return positional[index] if index < len(positional) else None
    named = [prm.name.value for prm in (*p.params, *p.kwonly_params)]
    return keyword if keyword in named else None


def _safe_use(node: cst.CSTNode, ancestors: tuple[cst.CSTNode, ...], func: FuncRef, active: frozenset[int]) -> bool:
    if not ancestors:
        return False
    parent = ancestors[-1]
    if isinstance(node, cst.Name) and _is_target(node, ancestors):
        return True  # the name rebound
    if isinstance(parent, cst.Subscript) and parent.value is node:
        return _safe_use(parent, ancestors[:-1], func, active)  # `p[0]` is used as `p` is
    if isinstance(parent, cst.Index | cst.Slice):
        return True  # an index
    if isinstance(parent, cst.Attribute) and parent.value is node:
        return parent.attr.value in _READ_ATTRS
    if isinstance(parent, cst.For | cst.CompFor) and parent.iter is node:
        scope = (
            parent.body
            if isinstance(parent, cst.For)
            else next((a for a in reversed(ancestors) if isinstance(a, cst.BaseComp)), None)
        )
        # the items are only read too (`for layer in p: layer['w'] = ...` mutates p)
        return scope is not None and not _unsafe_names(scope, set(_names(parent.target)), func, active)
    if isinstance(
        parent,
        cst.BinaryOperation
        | cst.Comparison
        | cst.ComparisonTarget
        | cst.UnaryOperation
        | cst.BooleanOperation
        | cst.If
        | cst.While
        | cst.Assert,
    ):
        return True
    if isinstance(parent, cst.IfExp):
        return parent.test is node
    if isinstance(parent, cst.Arg) and len(ancestors) >= 2 and isinstance(ancestors[-2], cst.Call):
        return _pure_call(ancestors[-2], parent, func, active)
    return False


def _is_target(node: cst.Name, ancestors: tuple[cst.CSTNode, ...]) -> bool:
    """`node` is (part of) an assignment or loop target."""
    inner: cst.CSTNode = node
    i = len(ancestors) - 1
    while i >= 0 and isinstance(ancestors[i], cst.Element | cst.StarredElement | cst.Tuple | cst.List):
        inner = ancestors[i]
        i -= 1
    if i < 0:
        return False
    a = ancestors[i]
    return isinstance(a, cst.For | cst.CompFor | cst.AssignTarget | cst.AnnAssign | cst.NamedExpr) and a.target is inner


def _names(target: cst.CSTNode) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    out: list[str] = []
    for child in target.children:
        out.extend(_names(child))
    return out


def _pure_call(call: cst.Call, arg: cst.Arg, func: FuncRef, active: frozenset[int]) -> bool:
    """A call that does not mutate `arg`: a JAX / numpy function, a reading builtin, or a function of
    the module that only reads that parameter."""
    root: cst.BaseExpression = call.func
    while isinstance(root, cst.Attribute):
        root = root.value
    if not isinstance(root, cst.Name) or arg.star:
        return False
    imported = func.scope.an.imports.get(root.value)
    if imported is not None:
        return imported.split(".")[0] in _PURE_PACKAGES
    if not isinstance(call.func, cst.Name):
        return False
    callee = func.scope.lookup(call.func.value)
    if call.func.value in _PURE_BUILTINS and isinstance(callee, QualRef) or callee is UNKNOWN:
        return call.func.value in _PURE_BUILTINS
    if not isinstance(callee, FuncRef | PartialRef | MappedRef | GradRef):
        return False
    if arg.keyword is not None:
        return not may_mutate(callee, None, arg.keyword.value, active)
    index = 0
    for a in call.args:
        if a is arg:
            break
        if a.star:
            return False
        if a.keyword is None:
            index += 1
    return not may_mutate(callee, index, None, active)


# methods that change a list, dict or set in place
_MUTATING_METHODS = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem", "add", "discard"}
)


def globals_changed_by_functions(text: str) -> frozenset[str]:
    """The module-level names whose value a function of the module changes when it runs (`STACK.append(x)`,
    `REGISTRY[k] = v`, `del CACHE[k]`, `CONFIG.flag = v`, `global N; N = ...`): read inside a function, their
    value is whatever ran before the call, not the one the module body gave them (an effect handler's stack,
    a registry). Read from the module's text with CPython's parser (a libcst visit of a large module took
    seconds, once per module and checked file)."""
    from namedcheck.analyzer.budget import accepted_tree
    from namedcheck.analyzer.parsing import parse_ast

    tree = accepted_tree(text) or parse_ast(text)  # (the guard's tree when it has just seen this text)
    if tree is None:
        return frozenset()
    found: set[str] = set()

    def base_name(e: ast.expr) -> str | None:
        while isinstance(e, ast.Subscript | ast.Attribute):
            e = e.value
        return e.id if isinstance(e, ast.Name) else None

    def target(t: ast.expr) -> None:
        if isinstance(t, ast.Subscript | ast.Attribute):
            name = base_name(t)
            if name is not None and name != "self":
                found.add(name)

    todo: list[tuple[ast.AST, bool]] = [(tree, False)]
    while todo:
        node, inside = todo.pop()
        if isinstance(node, ast.Global):
            found.update(node.names)
        elif inside and isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr in _MUTATING_METHODS:
                name = base_name(f.value)
                if name is not None:
                    found.add(name)
        elif inside and isinstance(node, ast.Assign):
            for t in node.targets:
                target(t)
        elif inside and isinstance(node, ast.AugAssign | ast.Delete):
            for t in node.targets if isinstance(node, ast.Delete) else [node.target]:
                target(t)
        inner = inside or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        todo.extend((child, inner) for child in ast.iter_child_nodes(node))
    return frozenset(found)
