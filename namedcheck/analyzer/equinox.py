"""equinox as a JAX user meets it: `eqx.filter_vmap` (in_axes / out_axes of ints, None, tuples and
`eqx.if_array(k)`: arrays mapped, every other leaf broadcast), `eqx.filter_jit` / `filter_grad` /
`filter_value_and_grad` as the jax transforms they wrap (engine/names.py aliases), `eqx.tree_at` with a
`lambda m: m.a.b` path (or a tuple of them), `eqx.partition` / `filter` / `combine` with `is_array` /
`is_inexact_array` / `is_array_like`, and `eqx.apply_updates` leaf by leaf (`p + u`, NC201 where a pair does not
broadcast). Modules are the instances `classes.py` builds (declared fields set by `__init__` or the generated
`__init__`); `eqx.nn.*` layers are the engine's layer rules (`engine/ops/layers.py`), `eqx.nn.Sequential` /
`Lambda` composed here; `eqx.nn.StateIndex(init)` and the state `make_with_state` gives: `state.get(index)` is the
index's initial value (equinox's `set` keeps its shape and dtype), `state.set(index, v)` the state. A tree this module cannot follow leaf by leaf (a layer's own arrays, an object not known)
gives Unknown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import libcst as cst

from namedcheck.analyzer import classes
from namedcheck.analyzer.refs import FuncRef, GradRef, InstanceRef, LayerRef, PartialRef, QualRef
from namedcheck.engine import dtypes, maps
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.elementwise import dtype_from_value
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, DimVal, NotLiteral, Seq, dim_of, literal

_FUN = "<equinox>."  # the analyzer's own functions (not a module path)
_FILTERS = {"equinox.is_array", "equinox.is_inexact_array", "equinox.is_array_like"}
# the names this module follows (bench/library_calls.py counts the calls into them as modelled)
MODELLED = frozenset(
    {
        "equinox.filter_vmap",
        "equinox.filter_eval_shape",
        "equinox.filter_jvp",
        "equinox.internal.while_loop",
        "equinox.filter_shard",  # analyzer/placements.py
        "equinox.field",  # static fields of a module (analyzer/classes.py)
        "equinox.nn.make_with_state",
        "equinox.nn.StateIndex",
        "equinox.error_if",
        "equinox.branched_error_if",
        "equinox.nn.inference_mode",
        "equinox.internal.nondifferentiable",
        "equinox.internal.nondifferentiable_backward",
        "equinox.filter_grad",
        "equinox.filter_value_and_grad",
        "equinox.if_array",
        "equinox.tree_at",
        "equinox.partition",
        "equinox.filter",
        "equinox.combine",
        "equinox.apply_updates",
        "equinox.is_array",
        "equinox.is_inexact_array",
        "equinox.is_array_like",
        "equinox.nn.Sequential",
        "equinox.nn.Lambda",
        "equinox.nn.Identity",
    }
)


@dataclass(frozen=True, slots=True)
class StateIndex:
    """`eqx.nn.StateIndex(init)`: where a stateful layer's value lives in the state; `init` its initial value."""

    init: Any


@dataclass(frozen=True, slots=True)
class State:
    """The state `make_with_state` gives (a value equinox's `get` reads by `StateIndex`)."""

    def __repr__(self) -> str:
        return "<equinox state>"


@dataclass(frozen=True, slots=True)
class Stacked:
    """An `eqx.nn` layer made or mapped under `filter_vmap`: `size` copies of `layer` with their arrays stacked on
    a leading axis (an ensemble); a `filter_vmap` mapping it over axis 0 gives each body one `layer`."""

    layer: LayerRef
    size: Any


@dataclass(frozen=True, slots=True)
class IfArray:
    """`eqx.if_array(k)`: axis `k` for an array leaf, None (broadcast) for any other."""

    axis: int


def call(f: Any, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """A call into equinox this module follows; NotImplemented for any other name."""
    if name == "equinox.if_array":
        axis = pos[0] if len(pos) == 1 and not kw else None
        if isinstance(axis, Const) and isinstance(axis.value, int) and not isinstance(axis.value, bool):
            return IfArray(axis.value)
        return UNKNOWN
    if name == "equinox.filter_vmap":
        if not pos:  # `@eqx.filter_vmap(in_axes=...)`: a decorator factory
            return PartialRef(QualRef(name), (), tuple(kw.items())) if set(kw) <= _VMAP_OPTIONS else UNKNOWN
        if len(pos) != 1 or not set(kw) <= _VMAP_OPTIONS:
            return UNKNOWN
        opts = (kw.get("in_axes", IfArray(0)), kw.get("out_axes", IfArray(0)), kw.get("axis_size", Const(None)))
        return PartialRef(QualRef(f"{_FUN}vmapped"), (pos[0], *opts))
    if name == f"{_FUN}vmapped":
        return _call_vmap(f, pos[0], pos[1], pos[2], pos[3], pos[4:], kw, node)
    if name in ("equinox.filter_grad", "equinox.filter_value_and_grad"):
        if not pos:  # `@eqx.filter_value_and_grad(has_aux=True)`: a decorator factory
            return PartialRef(QualRef(name), (), tuple(kw.items())) if set(kw) <= {"has_aux"} else UNKNOWN
        aux = kw.get("has_aux", Const(False))
        if len(pos) != 1 or set(kw) - {"has_aux"} or not (isinstance(aux, Const) and isinstance(aux.value, bool)):
            return UNKNOWN
        return GradRef(pos[0], Const(0), name.endswith("value_and_grad"), aux.value, filtered=True)
    if name in _RETURNS_FIRST:  # `eqx.error_if(x, pred, msg)`, `eqx.nn.inference_mode(model)`: the value given
        return pos[0] if pos else UNKNOWN
    if name == "equinox.filter_eval_shape" and pos:  # the function's value, abstractly
        return f.call_value(pos[0], pos[1:], kw, [None] * (len(pos) - 1), {}, node)
    if name == "equinox.internal.while_loop":  # lax.while_loop's carry (a bound on steps changes no shape)
        if len(pos) != 3 or set(kw) - {"max_steps", "kind", "checkpoints", "base"}:
            return UNKNOWN  # `buffers=`: written through `.at[...]` its own way
        return f.call_value(QualRef("jax.lax.while_loop"), pos, {}, [None] * 3, {}, node)
    if name == "equinox.filter_jvp":
        return _jvp(f, pos, kw, node)
    if name == "equinox.nn.make_with_state":  # `make_with_state(Model)(*args)`: (the model, its state)
        return PartialRef(QualRef(f"{_FUN}make_with_state"), (pos[0],)) if len(pos) == 1 and not kw else UNKNOWN
    if name == f"{_FUN}make_with_state":
        model = f.call_value(pos[0], pos[1:], kw, [None] * (len(pos) - 1), {}, node)
        return Seq((model, State())) if model is not UNKNOWN else UNKNOWN
    if name == "equinox.nn.StateIndex":
        init = pos[0] if len(pos) == 1 and not kw else None
        return StateIndex(init) if isinstance(init, ArrayType) else UNKNOWN
    if name in (f"{_FUN}state_get", f"{_FUN}state_set"):
        index = pos[1] if len(pos) > 1 else None
        if not isinstance(index, StateIndex) or kw:
            return UNKNOWN
        if name.endswith("get"):
            return index.init if len(pos) == 2 else UNKNOWN
        return State() if len(pos) == 3 else UNKNOWN
    if name == "equinox.tree_at":
        return _tree_at(f, pos, kw, node)
    if name in ("equinox.partition", "equinox.filter"):
        spec = pos[1] if len(pos) > 1 else kw.get("filter_spec")
        if len(pos) < 1 or spec is None or set(kw) - {"filter_spec", "inverse"}:
            return UNKNOWN
        split = _partition(pos[0], spec)
        if split is None:
            return UNKNOWN if name == "equinox.filter" else Seq((UNKNOWN, UNKNOWN))
        if name == "equinox.partition":
            return Seq(split)
        inverse = kw.get("inverse", Const(False))
        return split[1] if inverse == Const(True) else split[0] if inverse == Const(False) else UNKNOWN
    if name == "equinox.combine":
        return _combine(pos) if pos and not kw else UNKNOWN
    if name == "equinox.apply_updates":
        return _apply_updates(f, pos[0], pos[1], node) if len(pos) == 2 and not kw else UNKNOWN
    if name in _FILTERS:
        leaf = _kind(pos[0], name) if len(pos) == 1 and not kw else None
        return Const(leaf) if leaf is not None else UNKNOWN
    if name == "equinox.nn.Sequential":
        layers = pos[0] if len(pos) == 1 and not kw else None
        if not isinstance(layers, Seq) or layers.kind not in ("list", "tuple"):
            return UNKNOWN
        return PartialRef(QualRef(f"{_FUN}sequential"), (layers,))
    if name == f"{_FUN}sequential":
        h = pos[1] if len(pos) == 2 else UNKNOWN  # `seq(x)`; `key=` goes to each layer that takes it
        for layer in pos[0].items:
            if h is UNKNOWN:
                return UNKNOWN
            h = f.call_value(layer, [h], {}, [None], {}, node)
        return h
    if name == "equinox.nn.Lambda":  # `Lambda(jax.nn.relu)(x, key=None)`: the function on the input
        return PartialRef(QualRef(f"{_FUN}lambda"), (pos[0],)) if len(pos) == 1 and not kw else UNKNOWN
    if name == f"{_FUN}lambda":
        return f.call_value(pos[0], [pos[1]], {}, [None], {}, node) if len(pos) == 2 else UNKNOWN
    if name == "equinox.nn.Identity":
        return QualRef(f"{_FUN}identity")
    if name == f"{_FUN}identity":
        return pos[0] if len(pos) == 1 else UNKNOWN
    return NotImplemented


_VMAP_OPTIONS = {"in_axes", "out_axes", "axis_size"}
_RETURNS_FIRST = {
    "equinox.error_if",
    "equinox.branched_error_if",
    "equinox.nn.inference_mode",
    "equinox.internal.nondifferentiable",
    "equinox.internal.nondifferentiable_backward",
}


def _jvp(f: Any, pos: list[Any], kw: dict[str, Any], node: Any) -> Any:
    """`eqx.filter_jvp(fn, primals, tangents)`: (fn(*primals), its tangent: each floating array's shape)."""
    if len(pos) != 3 or kw or not isinstance(pos[1], Seq) or pos[1].kind == "dict":
        return UNKNOWN
    args = list(pos[1].items)
    out = f.call_value(pos[0], args, {}, [None] * len(args), {}, node)
    return Seq((out, leafwise(out, lambda leaf: _cotangent(leaf, False))))


# ---- filter_vmap -------------------------------------------------------------------------------------
def _call_vmap(
    f: Any, fun: Any, in_axes: Any, out_axes: Any, axis_size: Any, args: list[Any], kw: dict[str, Any], node: Any
) -> Any:
    """`eqx.filter_vmap(fun, in_axes=, out_axes=)(*args)`: each argument's leaves under their in_axes entry (an
    array by its axis, any other leaf as it is under `if_array`, a Python number under an int is JAX's error), the
    body on one instance, each array of the result with the mapped size inserted at its out_axes entry."""
    if kw:
        return UNKNOWN
    spec = _spec(in_axes)
    if isinstance(spec, tuple):
        if len(spec) != len(args):
            return UNKNOWN
        per_arg = list(spec)
    elif spec is UNKNOWN or isinstance(spec, dict):
        return UNKNOWN
    else:
        per_arg = [spec] * len(args)
    sizes: list[tuple[Any, str]] = []
    try:
        inner = [_map_in(v, s, f"argument {i}", sizes) for i, (v, s) in enumerate(zip(args, per_arg))]
    except RuleError as e:
        f.report(node, e)
        return UNKNOWN
    size = next((s for s, _ in sizes if s is not None), None)
    if size is None and isinstance(axis_size, Const) and isinstance(axis_size.value, int):
        size = axis_size.value
    if not sizes and size is None:
        return UNKNOWN  # nothing mapped and no axis_size: equinox raises
    result = f.call_value(fun, inner, {}, [None] * len(inner), {}, node)
    out = _spec(out_axes)
    if out is UNKNOWN or isinstance(out, dict):
        return UNKNOWN
    return _map_out(result, out, size)


def _spec(v: Any) -> Any:
    """An in_axes / out_axes value as Python: int, None, IfArray, tuples and dicts of them; UNKNOWN otherwise."""
    if isinstance(v, IfArray):
        return v
    if isinstance(v, Const) and (v.value is None or (isinstance(v.value, int) and not isinstance(v.value, bool))):
        return v.value
    if isinstance(v, Seq) and v.kind in ("tuple", "list"):
        items = tuple(_spec(i) for i in v.items)
        return UNKNOWN if any(i is UNKNOWN for i in items) else items
    if isinstance(v, Seq) and v.kind == "dict":
        return {}
    return UNKNOWN


def _map_in(v: Any, spec: Any, what: str, sizes: list[tuple[Any, str]]) -> Any:
    if spec is None:
        return v
    if isinstance(spec, int):
        return maps.vmap_in_tree(v, spec, what, sizes)
    if isinstance(spec, tuple):
        if not isinstance(v, Seq) or v.kind == "dict" or len(v.items) != len(spec):
            return UNKNOWN
        return Seq(tuple(_map_in(x, s, f"{what}[{i}]", sizes) for i, (x, s) in enumerate(zip(v.items, spec))), v.kind)
    if not isinstance(spec, IfArray):
        return UNKNOWN
    return leafwise(v, lambda leaf: _if_array_in(leaf, spec.axis, what, sizes))


def _if_array_in(leaf: Any, axis: int, what: str, sizes: list[tuple[Any, str]]) -> Any:
    if isinstance(leaf, Stacked) and axis == 0:  # an ensemble mapped over its copies: one layer each
        maps.vmap_in(ArrayType.make(None, (leaf.size,)), 0, what, sizes)
        return leaf.layer
    if isinstance(leaf, ArrayType):
        return maps.vmap_in(leaf, axis, what, sizes) if not leaf.has_ellipsis else UNKNOWN
    return leaf if _kind(leaf, "equinox.is_array") is False else UNKNOWN


def _map_out(v: Any, spec: Any, size: Any) -> Any:
    if spec is None:
        return v
    if isinstance(spec, tuple):
        if not isinstance(v, Seq) or v.kind == "dict" or len(v.items) != len(spec):
            return UNKNOWN
        return Seq(tuple(_map_out(x, s, size) for x, s in zip(v.items, spec)), v.kind)
    if isinstance(spec, int):
        return leafwise(v, lambda leaf: _out_leaf(leaf, spec, size, False))
    if isinstance(spec, IfArray):
        return leafwise(v, lambda leaf: _out_leaf(leaf, spec.axis, size, True))
    return UNKNOWN


def _out_leaf(leaf: Any, axis: int, size: Any, only_arrays: bool) -> Any:
    if isinstance(leaf, ArrayType) and not leaf.has_ellipsis:
        try:
            return maps.vmap_out(leaf, axis, size)
        except RuleError:
            return UNKNOWN
    if isinstance(leaf, LayerRef) and leaf.op.startswith("equinox.nn.") and axis == 0 and size is not None:
        return Stacked(leaf, size)  # its arrays stacked: an ensemble
    if only_arrays and _kind(leaf, "equinox.is_array") is False:
        return leaf
    return UNKNOWN


def stacked_attribute(stacked: Stacked, attr: str, known_f32: bool) -> Any:
    """`ensemble.weight`: the layer's field with the copies' axis in front (settings as they are)."""

    def lift(v: Any) -> Any:
        if isinstance(v, ArrayType):
            return v.with_shape((stacked.size, *v.shape))
        if isinstance(v, LayerRef):
            return Stacked(v, stacked.size)
        return v if isinstance(v, Const) else UNKNOWN

    return leafwise(layer_attribute(stacked.layer, attr, known_f32), lift)


# ---- trees -------------------------------------------------------------------------------------------
def leafwise(v: Any, fn: Any) -> Any:
    """`fn` over the leaves of a tree: tuples, lists, dicts, None, and built pytree instances (an equinox module
    set up field by field); a layer (its arrays not modelled as leaves) is passed to `fn` whole."""
    if isinstance(v, Seq) and v.kind == "dict":
        return Seq(tuple(Seq((p.items[0], leafwise(p.items[1], fn))) for p in v.items), "dict")
    if isinstance(v, Seq):
        return Seq(tuple(leafwise(x, fn) for x in v.items), v.kind)
    if isinstance(v, Const) and v.value is None:
        return v
    if isinstance(v, InstanceRef):
        children = classes.pytree_children(v)
        if children is None:
            return UNKNOWN
        return classes.with_children(v, {k: leafwise(x, fn) for k, x in children})
    return fn(v)  # a leaf, or a layer (each `fn` gives Unknown for one it does not follow)


def _kind(leaf: Any, which: str) -> bool | None:
    """Whether `leaf` passes equinox's filter `which` (None: not known)."""
    if isinstance(leaf, ArrayType):
        if which != "equinox.is_inexact_array":
            return True
        kind = dtypes.kind(leaf.dtype_code)
        return None if kind is None else kind in ("f", "c")
    if isinstance(leaf, Const | DimVal):
        value = leaf.value if isinstance(leaf, Const) else 0
        if which == "equinox.is_array_like":
            return isinstance(value, bool | int | float | complex)
        return False
    if isinstance(leaf, FuncRef | QualRef | PartialRef | IfArray):
        return False
    return None


def _partition(tree: Any, spec: Any) -> tuple[Any, Any] | None:
    """`eqx.partition(tree, filter)`: (the leaves that pass, None elsewhere; the others, None elsewhere)."""
    if isinstance(spec, Const) and isinstance(spec.value, bool):
        return (
            (tree, leafwise(tree, lambda _: Const(None)))
            if spec.value
            else (
                leafwise(tree, lambda _: Const(None)),
                tree,
            )
        )
    if not isinstance(spec, QualRef) or spec.name not in _FILTERS:
        return None
    left = leafwise(tree, lambda leaf: _pick(leaf, spec.name, True))
    right = leafwise(tree, lambda leaf: _pick(leaf, spec.name, False))
    return left, right


def _pick(leaf: Any, which: str, passing: bool) -> Any:
    ok = _kind(leaf, which)
    if ok is None:
        return UNKNOWN
    return leaf if ok is passing else Const(None)


def _combine(trees: list[Any]) -> Any:
    """`eqx.combine(*trees)`: at each leaf, the first tree's that is not None."""
    first = trees[0]
    if len(trees) == 1:
        return first
    if isinstance(first, Const) and first.value is None:
        return _combine(trees[1:])
    if isinstance(first, Seq):
        rest = trees[1:]
        if first.kind == "dict" or not all(
            isinstance(t, Seq) and t.kind == first.kind and len(t.items) == len(first.items) for t in rest
        ):
            return UNKNOWN
        return Seq(
            tuple(_combine([first.items[i], *(t.items[i] for t in rest)]) for i in range(len(first.items))), first.kind
        )
    if isinstance(first, InstanceRef):
        children = classes.pytree_children(first)
        others = [
            classes.pytree_children(t) if isinstance(t, InstanceRef) and t.cls is first.cls else None for t in trees[1:]
        ]
        if children is None or any(o is None for o in others):
            return UNKNOWN
        merged = {k: _combine([v, *(dict(o or ())[k] for o in others)]) for k, v in children}
        return classes.with_children(first, merged)
    if first is UNKNOWN or isinstance(first, LayerRef):
        return UNKNOWN
    return first  # a leaf: the first tree's


def _apply_updates(f: Any, model: Any, updates: Any, node: Any) -> Any:
    """`eqx.apply_updates(model, updates)`: `p + u` where the update is not None, else `p`."""
    if isinstance(updates, Const) and updates.value is None:
        return model
    if isinstance(model, Seq) and isinstance(updates, Seq):
        if model.kind == "dict" or updates.kind == "dict" or len(model.items) != len(updates.items):
            return UNKNOWN
        return Seq(tuple(_apply_updates(f, p, u, node) for p, u in zip(model.items, updates.items)), model.kind)
    if isinstance(model, InstanceRef) and isinstance(updates, InstanceRef) and model.cls is updates.cls:
        mine, theirs = classes.pytree_children(model), classes.pytree_children(updates)
        if mine is None or theirs is None:
            return UNKNOWN
        other = dict(theirs)
        return classes.with_children(model, {k: _apply_updates(f, p, other[k], node) for k, p in mine})
    if isinstance(model, ArrayType) and isinstance(updates, ArrayType):
        return f.apply_named("jax.numpy.add", [model, updates], {}, [None, None], node)
    return UNKNOWN


# ---- tree_at -----------------------------------------------------------------------------------------
def _tree_at(f: Any, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`eqx.tree_at(lambda m: m.linear.weight, model, new)` (or `replace_fn=`): the instance with that field
    replaced; a tuple of paths takes a tuple of values. Unknown for any other `where`."""
    where = pos[0] if pos else kw.get("where")
    tree = pos[1] if len(pos) > 1 else kw.get("pytree")
    replace = pos[2] if len(pos) > 2 else kw.get("replace")
    replace_fn = pos[3] if len(pos) > 3 else kw.get("replace_fn")
    if tree is None or (replace is None) == (replace_fn is None) or "is_leaf" in kw:
        return UNKNOWN
    paths = _paths(where)
    if paths is None:
        return UNKNOWN
    if len(paths) > 1 or _returns_tuple(where):
        values = replace.items if isinstance(replace, Seq) and len(replace.items) == len(paths) else None
        if replace is not None and values is None:
            return UNKNOWN
    else:
        values = (replace,) if replace is not None else None
    for i, path in enumerate(paths):
        if values is not None:
            new = values[i]
        else:
            old = _get(tree, path)
            new = f.call_value(replace_fn, [old], {}, [None], {}, node) if old is not UNKNOWN else UNKNOWN
        tree = _set_layer(f, tree, path, new) if isinstance(tree, LayerRef) else _set(tree, path, new)
    return tree


def _returns_tuple(where: Any) -> bool:
    return isinstance(where, FuncRef) and isinstance(where.node, cst.Lambda) and isinstance(where.node.body, cst.Tuple)


def _paths(where: Any) -> list[tuple[Any, ...]] | None:
    """The attribute / index paths `lambda m: m.a.b[0]` (or a tuple of them) reads from its parameter."""
    if not isinstance(where, FuncRef) or not isinstance(where.node, cst.Lambda):
        return None
    params = where.node.params.params
    if len(params) != 1:
        return None
    root = params[0].name.value
    body = where.node.body
    exprs = [e.value for e in body.elements] if isinstance(body, cst.Tuple) else [body]
    out = []
    for e in exprs:
        path: list[Any] = []
        while True:
            if isinstance(e, cst.Attribute):
                path.append(e.attr.value)
                e = e.value
            elif (
                isinstance(e, cst.Subscript)
                and len(e.slice) == 1
                and isinstance(e.slice[0].slice, cst.Index)
                and isinstance(e.slice[0].slice.value, cst.Integer)
            ):
                path.append(int(e.slice[0].slice.value.value))
                e = e.value
            else:
                break
        if not (isinstance(e, cst.Name) and e.value == root) or not path:
            return None
        out.append(tuple(reversed(path)))
    return out


def _get(tree: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        if isinstance(part, int):
            tree = (
                tree.items[part]
                if isinstance(tree, Seq) and tree.kind != "dict" and -len(tree.items) <= part < len(tree.items)
                else UNKNOWN
            )
        elif isinstance(tree, InstanceRef) and tree.values is not None:
            got = tree.field_value(part)  # None: not a field, or assigned somewhere after it was built
            tree = UNKNOWN if got is None else got
        else:
            return UNKNOWN
    return tree


def _set_layer(f: Any, layer: LayerRef, path: tuple[Any, ...], new: Any) -> Any:
    """An `eqx.nn` layer with one field replaced: a parameter by an array of its shape and dtype leaves the layer as
    it is; a constructor setting (`dropout.inference`) by a constant rebuilds it with that setting; Unknown
    otherwise (a parameter of another shape makes a layer the rule does not describe)."""
    if not layer.op.startswith("equinox.nn.") or len(path) != 1 or not isinstance(path[0], str):
        return UNKNOWN
    attr, ctor = path[0], dict(layer.ctor)
    params = _layer_params(layer.op.removeprefix("equinox.nn."), ctor)
    if params is not None and attr in params:
        want = params[attr]
        given = ctor.get("dtype")
        dt = dtype_from_value(given) if given is not None and given != Const(None) else "f32"
        if want is None or not isinstance(new, ArrayType) or new.has_ellipsis or new.named:
            return UNKNOWN
        return layer if new.shape == want and new.dtype_code == dt else UNKNOWN
    op = f.an.ops.get(layer.op)
    names = {p.name for p in op.signature.params} if op is not None else set()
    if attr in names and attr not in _SHAPE_SETTINGS and isinstance(new, Const):
        ctor[attr] = new
        return LayerRef(layer.op, tuple(sorted(ctor.items())), layer.node)
    return UNKNOWN


# constructor arguments that are sizes: replacing the field does not change the parameters made from them
_SHAPE_SETTINGS = {"in_features", "out_features", "in_size", "out_size", "width_size", "depth", "in_channels"}
_SHAPE_SETTINGS |= {"out_channels", "kernel_size", "num_embeddings", "embedding_size", "shape", "use_bias", "groups"}
_SHAPE_SETTINGS |= {"query_size", "key_size", "value_size", "output_size", "num_heads", "input_size", "hidden_size"}
_SHAPE_SETTINGS |= {"channels", "stride", "padding", "dilation", "output_padding", "num_spatial_dims", "dtype"}


def _set(tree: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    part, rest = path[0], path[1:]
    if isinstance(part, int):
        if not (isinstance(tree, Seq) and tree.kind != "dict" and -len(tree.items) <= part < len(tree.items)):
            return UNKNOWN
        items = list(tree.items)
        items[part] = _set(items[part], rest, new)
        return Seq(tuple(items), tree.kind)
    if not isinstance(tree, InstanceRef) or tree.values is None or part not in dict(tree.values):
        return UNKNOWN
    return InstanceRef(tree.cls, tuple((k, _set(v, rest, new) if k == part else v) for k, v in tree.values))


# ---- gradients ---------------------------------------------------------------------------------------
def gradient(pos: list[Any], argnums: Any, filtered: bool) -> Any:
    """The gradient of a function at `pos` w.r.t. argument `argnums` where that argument holds a built pytree
    instance (a module), or of equinox's filtered gradient: the same tree with each floating array's cotangent
    (its shape and dtype) and, under `filter_grad`, None at every other leaf. NotImplemented otherwise (the
    engine's `grad_type`)."""
    if not isinstance(argnums, int) or isinstance(argnums, bool) or not -len(pos) <= argnums < len(pos):
        return NotImplemented
    arg = pos[argnums]
    if not filtered and not _holds_instance(arg):
        return NotImplemented
    return leafwise(arg, lambda leaf: _cotangent(leaf, filtered))


def _holds_instance(v: Any) -> bool:
    if isinstance(v, InstanceRef):
        return True
    return isinstance(v, Seq) and any(_holds_instance(x.items[1] if v.kind == "dict" else x) for x in v.items)


def _cotangent(leaf: Any, filtered: bool) -> Any:
    if isinstance(leaf, ArrayType) and not leaf.named and not leaf.has_ellipsis:
        kind = dtypes.kind(leaf.dtype_code)
        if kind in ("f", "c"):
            return ArrayType.make(leaf.dtype_code, leaf.shape)
        return Const(None) if filtered and kind is not None else UNKNOWN
    if filtered and _kind(leaf, "equinox.is_array") is False:
        return Const(None)  # a Python number, a function: not differentiated
    return UNKNOWN


def state_attribute(recv: Any, attr: str) -> Any:
    """`state.get` / `state.set` of an equinox state; NotImplemented for another receiver."""
    if not isinstance(recv, State):
        return NotImplemented
    return PartialRef(QualRef(f"{_FUN}state_{attr}"), (recv,)) if attr in ("get", "set") else UNKNOWN


# ---- a layer's own fields ----------------------------------------------------------------------------
def layer_attribute(layer: LayerRef, attr: str, known_f32: bool = False) -> Any:
    """`linear.weight`, `conv.bias`, `mlp.layers`, `linear.out_features` of an `eqx.nn` layer: its parameters'
    shapes from its constructor's sizes (the dtype `dtype=` gives; the default float32 where jax_enable_x64 is
    known to be off: `known_f32`),
    its constructor's arguments as given; Unknown for anything else."""
    ctor = dict(layer.ctor)
    short = layer.op.removeprefix("equinox.nn.")
    if attr in ctor and attr not in ("key", "dtype"):
        return ctor[attr]
    given = ctor.get("dtype")
    dt = dtype_from_value(given) if given is not None and given != Const(None) else "f32" if known_f32 else None
    if short == "MLP" and attr == "layers":
        return _mlp_layers(layer, ctor)
    params = _layer_params(short, ctor)
    if params is None or attr not in params:
        return UNKNOWN
    shape = params[attr]
    return ArrayType.make(dt, shape) if shape is not None else Const(None)


def _size(v: Any, scalar_as: Any = None) -> Any:
    """A constructor size: an int, a symbol, 'scalar' (as `scalar_as`); None when not known."""
    if isinstance(v, Const) and v.value == "scalar":
        return scalar_as
    try:
        d = dim_of(v)
    except NotLiteral:
        return None
    return d if isinstance(d, str) or (isinstance(d, int) and not isinstance(d, bool) and d >= 0) else None


def _flag(ctor: dict[str, Any], name: str, default: bool) -> bool | None:
    v = ctor.get(name, Const(default))
    return v.value if isinstance(v, Const) and isinstance(v.value, bool) else None


def _layer_params(short: str, ctor: dict[str, Any]) -> dict[str, tuple[Any, ...] | None] | None:
    """A layer's parameters by field name: a shape, or None where the field holds None (no bias)."""
    if short == "Linear":
        n_in, n_out = _size(ctor.get("in_features"), 1), _size(ctor.get("out_features"), 1)
        bias = _flag(ctor, "use_bias", True)
        if n_in is None or n_out is None or bias is None:
            return None
        return {"weight": (n_out, n_in), "bias": (n_out,) if bias else None}
    if short == "Embedding":
        n, d = _size(ctor.get("num_embeddings")), _size(ctor.get("embedding_size"))
        return {"weight": (n, d)} if n is not None and d is not None and "weight" not in ctor else None
    if short in ("Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"):
        n = int(short[-2])
        c_in, c_out = _size(ctor.get("in_channels")), _size(ctor.get("out_channels"))
        groups, bias = ctor.get("groups", Const(1)), _flag(ctor, "use_bias", True)
        try:
            kernel = literal(ctor.get("kernel_size"))
        except NotLiteral:
            return None
        kernel = (kernel,) * n if isinstance(kernel, int) else kernel
        if not (isinstance(kernel, tuple) and len(kernel) == n and all(isinstance(k, int) for k in kernel)):
            return None
        if not isinstance(c_in, int) or c_out is None or bias is None or groups != Const(1):
            return None
        return {"weight": (c_out, c_in, *kernel), "bias": (c_out, *(1,) * n) if bias else None}
    if short in ("LayerNorm", "RMSNorm"):
        try:
            shape = literal(ctor.get("shape"))
        except NotLiteral:
            return None
        shape = (shape,) if isinstance(shape, int) else shape
        w, b = _flag(ctor, "use_weight", True), _flag(ctor, "use_bias", True)
        if not (isinstance(shape, tuple) and all(isinstance(s, int) for s in shape)) or w is None or b is None:
            return None
        return {"weight": shape if w else None, "bias": shape if b else None}
    return None


def _mlp_layers(layer: LayerRef, ctor: dict[str, Any]) -> Any:
    """`mlp.layers`: the tuple of its Linear layers (in -> width, width -> width ..., width -> out)."""
    n_in, n_out, width = ctor.get("in_size"), ctor.get("out_size"), ctor.get("width_size")
    depth = ctor.get("depth")
    if not (isinstance(depth, Const) and isinstance(depth.value, int)) or depth.value < 0 or depth.value > 64:
        return UNKNOWN
    if n_in is None or n_out is None or width is None:
        return UNKNOWN
    sizes = [n_in, *[width] * depth.value, n_out]
    bias, final = ctor.get("use_bias", Const(True)), ctor.get("use_final_bias", Const(True))
    extra = tuple((k, v) for k, v in ctor.items() if k == "dtype")
    linears = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        use = final if i == len(sizes) - 2 else bias
        args = (("in_features", a), ("out_features", b), ("use_bias", use), *extra)
        linears.append(LayerRef("equinox.nn.Linear", tuple(sorted(args)), layer.node))
    return Seq(tuple(linears), "tuple")
