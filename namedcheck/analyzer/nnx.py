"""flax nnx as a user meets it: `nnx.Rngs` (its streams give keys: `rngs.params()`, `rngs()`), variables
(`nnx.Param(x)` / `nnx.Variable(x)` / `nnx.BatchStat(x)` are the array they hold, tagged with their kind, so
`.value` and `[...]` read it), `nnx.Sequential`, and a module's state: `nnx.split` / `nnx.state` / `nnx.graphdef`
give the variables by attribute path as flax sorts them (a library layer's by its parameter names: `kernel`,
`bias`, `embedding`, `scale`, `mean`, `var`), `nnx.merge` gives back the module when the state has its shapes,
`nnx.update` keeps it; `nnx.vmap` as `jax.vmap` where every module argument is broadcast (`in_axes` None),
`nnx.remat` as the function; `nnx.grad` / `value_and_grad` of a module argument: its `nnx.Param` state's cotangents
(a State by path, as flax gives); `nnx.Optimizer` / `ModelAndOptimizer(model, tx, wrt=...)`: `update(model, grads)`
adds the optimizer's updates to the parameters leaf by leaf (NC201 where a gradient does not broadcast to its
parameter), `step` (a uint32 scalar), `opt_state` (optax's state of the parameters), `model`. A state with a part not known (an attribute not known, a layer whose variables are not
modelled) is Unknown; a filter other than `nnx.Param` / `BatchStat` / `Variable` / `...` too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import libcst as cst

from namedcheck.analyzer import optax, origins
from namedcheck.analyzer.refs import GradRef, InstanceRef, LayerRef, PartialRef, QualRef
from namedcheck.engine import dtypes
from namedcheck.engine.algebra import differ
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.elementwise import dtype_from_value
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, NotLiteral, Seq, dim_of, literal

NNX = "flax.nnx."
_FUN = "<nnx>."  # this module's bound helpers (not a module path)
MODULE = "flax.nnx.Module"
# variable classes: the kind a state filter matches (a Param is a Variable)
_KINDS = {
    "flax.nnx.Param": "Param",
    "flax.nnx.variablelib.Param": "Param",
    "flax.nnx.BatchStat": "BatchStat",
    "flax.nnx.variablelib.BatchStat": "BatchStat",
    "flax.nnx.Variable": "Variable",
    "flax.nnx.variablelib.Variable": "Variable",
    "flax.nnx.Cache": "Cache",
    "flax.nnx.Intermediate": "Intermediate",
}
_TAG = "nnx."  # a variable's array is tagged `made` at its construction with `nnx.<kind>`
MODELLED = frozenset(
    {
        *_KINDS,
        "flax.nnx.Rngs",
        "flax.nnx.split",
        "flax.nnx.merge",
        "flax.nnx.state",
        "flax.nnx.graphdef",
        "flax.nnx.update",
        "flax.nnx.Sequential",
        "flax.nnx.vmap",
        "flax.nnx.remat",
        "flax.nnx.jit",
        "flax.nnx.grad",
        "flax.nnx.value_and_grad",
        "flax.nnx.Module",
        "flax.nnx.List",
        "flax.nnx.Dict",
        "flax.nnx.data",
        "flax.nnx.eval_shape",
        "flax.nnx.Optimizer",
        "flax.nnx.ModelAndOptimizer",
    }
)
_OPTIMIZERS = ("flax.nnx.Optimizer", "flax.nnx.ModelAndOptimizer", "flax.nnx.training.optimizer.Optimizer")
_GRAD_OPTIONS = ("argnums", "has_aux")


@dataclass(frozen=True, slots=True)
class RngsRef:
    """`nnx.Rngs(0)` / `nnx.Rngs(params=0, dropout=1)`: `default` when a stream named `default` exists (any
    attribute is a stream then), else the named streams."""

    default: bool
    streams: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GraphDefRef:
    """The graph definition `nnx.split(model)` gives: merged with a state of the same shapes, the module."""

    instance: Any


@dataclass(frozen=True, slots=True)
class OptimizerRef:
    """`nnx.Optimizer(model, tx, wrt=nnx.Param)` (`with_model`: `ModelAndOptimizer`, which keeps `model`)."""

    model: Any
    tx: Any
    wrt: Any
    with_model: bool = False


def is_module(bases: tuple[str, ...]) -> bool:
    return MODULE in bases


def library_call(f: Any, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """nnx's functions and classes this module models; NotImplemented for any other name."""
    if name in _KINDS:
        v = pos[0] if len(pos) == 1 else kw.get("value") if not pos else None
        if not isinstance(v, ArrayType):
            return UNKNOWN
        return origins.made_at(v, node, _TAG + _KINDS[name])
    if name in ("flax.nnx.List", "flax.nnx.data", "flax.nnx.Dict"):  # containers and markers: what they hold
        v = pos[0] if len(pos) == 1 and not kw else None
        if name.endswith("List"):
            return Seq(v.items, "list") if isinstance(v, Seq) and v.kind in ("list", "tuple") else UNKNOWN
        if name.endswith("Dict"):
            return v if isinstance(v, Seq) and v.kind == "dict" else UNKNOWN
        return v if v is not None else UNKNOWN
    if name == "flax.nnx.Rngs":
        if len(pos) > 1 or any(not isinstance(k, str) for k in kw):
            return UNKNOWN
        return RngsRef(bool(pos) or "default" in kw, tuple(sorted(k for k in kw if k != "default")))
    if name == f"{_FUN}key":
        return f.apply_named("jax.random.key", [Const(0)], {}, [None], node) if not pos and not kw else UNKNOWN
    if name == "flax.nnx.Sequential":
        if kw or not pos:
            return UNKNOWN
        return PartialRef(QualRef(f"{_FUN}sequential"), (Seq(tuple(pos)),))
    if name == f"{_FUN}sequential":
        return sequential(f, pos, kw, node)
    if name in ("flax.nnx.split", "flax.nnx.state"):
        if not pos or kw:
            return UNKNOWN
        states = _states(pos[0], pos[1:], name.endswith("split"))
        if name.endswith("state"):
            if len(pos) > 2:
                return UNKNOWN
            return states[0] if states is not None else UNKNOWN
        graph = GraphDefRef(pos[0]) if isinstance(pos[0], InstanceRef) else UNKNOWN
        n = max(1, len(pos) - 1)
        return Seq((graph, *(states if states is not None else (UNKNOWN,) * n)))
    if name == "flax.nnx.graphdef":
        return GraphDefRef(pos[0]) if len(pos) == 1 and isinstance(pos[0], InstanceRef) else UNKNOWN
    if name == "flax.nnx.merge":
        return _merge(pos, kw)
    if name == "flax.nnx.eval_shape" and pos:  # `nnx.eval_shape(lambda: Model(rngs=nnx.Rngs(0)))`: its shapes
        return f.call_value(pos[0], pos[1:], kw, [None] * (len(pos) - 1), {}, node)
    if name == "flax.nnx.update":
        return Const(None)
    if name == "flax.nnx.vmap":
        if not pos:
            return PartialRef(QualRef(name), (), tuple(kw.items()))  # `@nnx.vmap(in_axes=...)`
        return PartialRef(QualRef(f"{_FUN}vmap"), (pos[0],), tuple(kw.items()))
    if name == f"{_FUN}vmap":
        return _vmap(f, pos, kw, node)
    if name in ("flax.nnx.grad", "flax.nnx.value_and_grad"):
        if not pos:  # `@nnx.grad(has_aux=True)`
            return PartialRef(QualRef(name), (), tuple(kw.items()))
        return PartialRef(QualRef(f"{_FUN}grad"), (pos[0], Const(name.endswith("value_and_grad"))), tuple(kw.items()))
    if name == f"{_FUN}grad":
        return _grad(f, pos, kw, node)
    if name in _OPTIMIZERS:
        model = pos[0] if pos else kw.get("model", UNKNOWN)
        tx = pos[1] if len(pos) > 1 else kw.get("tx", UNKNOWN)
        if len(pos) > 2 or any(k not in ("model", "tx", "wrt") for k in kw):
            return UNKNOWN
        return OptimizerRef(model, tx, kw.get("wrt", UNKNOWN), name.endswith("ModelAndOptimizer"))
    if name == f"{_FUN}optimizer_update":
        return _optimizer_update(f, pos, kw, node)
    if name in ("flax.nnx.remat", "flax.nnx.checkpoint"):
        return pos[0] if len(pos) == 1 else PartialRef(QualRef(name), (), tuple(kw.items())) if not pos else UNKNOWN
    return NotImplemented


def attribute(recv: Any, attr: str) -> Any:
    """`rngs.params` (a stream: calling it gives a key); an nnx layer's variables (`kernel`) and constructor
    arguments (`out_features`); NotImplemented for another receiver."""
    if isinstance(recv, RngsRef):
        if attr in _SAMPLERS:  # `rngs.normal((2, 3))`: jax.random's with the next key
            return PartialRef(QualRef(f"jax.random.{attr}"), (ArrayType(None, ()),))
        if attr in recv.streams or (recv.default and not attr.startswith("_") and attr not in _RNGS_METHODS):
            return PartialRef(QualRef(f"{_FUN}key"))
        return UNKNOWN
    if isinstance(recv, GraphDefRef):
        return UNKNOWN
    if isinstance(recv, OptimizerRef):
        return _optimizer_attribute(recv, attr)
    if isinstance(recv, LayerRef) and recv.op.startswith(NNX):  # `model.linear.kernel[...]`, `.out_features`
        made = layer_variables(recv)
        if made is not None and attr in made:
            return made[attr][1]
        ctor = dict(recv.ctor)
        if attr in ctor and attr != "rngs":
            return ctor[attr]
    return NotImplemented


# jax.random's samplers an Rngs carries as methods (called with its next key)
_SAMPLERS = {"bits", "uniform", "randint", "permutation", "choice", "normal", "truncated_normal", "bernoulli"}
_SAMPLERS |= {"beta", "cauchy", "exponential", "gamma", "laplace", "logistic", "gumbel", "categorical", "rademacher"}
_RNGS_METHODS = {"fork", "split", "items", "keys", "values", "replace", "key", "count", "with_keys", "reseed"}


def call(f: Any, func: Any, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`rngs()`: the default stream's key; NotImplemented for another callee."""
    if isinstance(func, RngsRef):
        return library_call(f, f"{_FUN}key", pos, kw, node) if func.default else UNKNOWN
    return NotImplemented


def sequential(f: Any, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """nnx's (and linen's) Sequential called: the first layer gets the arguments, each next one the output (a tuple
    spread)."""
    layers = pos[0].items
    args, kwargs = list(pos[1:]), kw
    out: Any = UNKNOWN
    for layer in layers:
        out = f.call_value(layer, args, kwargs, [None] * len(args), {}, node)
        args, kwargs = (list(out.items) if isinstance(out, Seq) and out.kind == "tuple" else [out]), {}
    return out


def _vmap(f: Any, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`nnx.vmap(fn, in_axes=...)(model, x)`: `jax.vmap` where each module argument is given `in_axes` None
    (its state broadcast); Unknown where one is mapped (its variables would get a batch axis)."""
    fn, args = pos[0], pos[1:]
    options = dict(kw)
    in_axes = options.get("in_axes", Const(0))
    try:
        axes = literal(in_axes)
    except NotLiteral:
        return UNKNOWN
    per = axes if isinstance(axes, tuple) else (axes,) * len(args)
    if len(per) != len(args):
        return UNKNOWN
    for a, ax in zip(args, per):
        if _stateful(a) and ax is not None:
            return UNKNOWN
    jkw = {k: v for k, v in options.items() if k in ("in_axes", "out_axes", "axis_name", "axis_size")}
    if any(k not in jkw and k not in ("fn",) for k in options):
        return UNKNOWN  # `state_axes=`, `split_rngs`-style options: not jax.vmap's
    mapped = f.transform("jax.vmap", [fn], jkw, node)
    if mapped is NotImplemented:
        return UNKNOWN
    caller = {k: v for k, v in kw.items() if k not in options}
    return f.call_value(mapped, args, caller, [None] * len(args), {}, node)


def _stateful(v: Any) -> bool:
    return isinstance(v, InstanceRef | LayerRef | RngsRef | GraphDefRef | OptimizerRef) or (
        isinstance(v, PartialRef) and isinstance(v.func, QualRef) and v.func.name == f"{_FUN}sequential"
    )


# ---- gradients and optimizers ----------------------------------------------------------------------------
def _grad(f: Any, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`nnx.grad(fn, argnums=0, has_aux=False)(*args)`: jax.grad's value; where the differentiated argument is an
    nnx module, the gradient is its `nnx.Param` state with each floating parameter's cotangent (flax's default
    `wrt`), not the module."""
    fn, with_value, args = pos[0], pos[1] == Const(True), pos[2:]
    options = {k: v for k, v in kw.items() if k in _GRAD_OPTIONS}
    caller = {k: v for k, v in kw.items() if k not in options}
    argnums = options.get("argnums", Const(0))
    has_aux = options.get("has_aux", Const(False))
    if not isinstance(has_aux, Const) or not isinstance(has_aux.value, bool):
        return UNKNOWN
    ref = GradRef(fn, argnums, with_value, has_aux.value)
    out = f.call_value(ref, list(args), caller, [None] * len(args), {}, node)
    n = argnums.value if isinstance(argnums, Const) else None
    if not isinstance(n, int) or isinstance(n, bool) or not -len(args) <= n < len(args):
        return UNKNOWN if any(_stateful(a) for a in args) else out  # (a module's gradient would be its state)
    module = args[n]
    if not _stateful(module):
        return out
    states = _states(module, [QualRef("flax.nnx.Param")], False)
    grads = _tree_map(states[0], _cotangent) if states is not None else UNKNOWN
    if not isinstance(out, Seq) or len(out.items) != 2:
        return grads if not with_value and not has_aux.value else UNKNOWN
    if with_value:
        return Seq((out.items[0], grads), out.kind)
    if has_aux.value:
        return Seq((grads, out.items[1]), out.kind)
    return grads


def _cotangent(leaf: Any) -> Any:
    if isinstance(leaf, ArrayType) and not leaf.named and not leaf.has_ellipsis:
        if dtypes.kind(leaf.dtype_code) in ("f", "c"):
            return ArrayType.make(leaf.dtype_code, leaf.shape)
    return UNKNOWN


def _tree_map(tree: Any, fn: Any) -> Any:
    if isinstance(tree, Seq) and tree.kind == "dict":
        return Seq(tuple(Seq((p.items[0], _tree_map(p.items[1], fn))) for p in tree.items), "dict")
    return fn(tree)


def _params(opt: OptimizerRef) -> Any:
    """The state the optimizer updates: the model's variables its `wrt` filter takes (None: not known)."""
    if opt.wrt is UNKNOWN:
        return None
    states = _states(opt.model, [opt.wrt], False)
    return states[0] if states is not None else None


def _optimizer_attribute(opt: OptimizerRef, attr: str) -> Any:
    if attr == "update":
        return PartialRef(QualRef(f"{_FUN}optimizer_update"), (opt,))
    if attr == "step":  # an `OptState` variable holding a uint32 count
        return ArrayType("u32", ())
    if attr == "model" and opt.with_model:
        return opt.model
    if attr == "tx":
        return opt.tx
    if attr == "opt_state":
        params = _params(opt)
        return optax.OptState(params) if params is not None and isinstance(opt.tx, optax.Optimizer) else UNKNOWN
    return UNKNOWN


def _optimizer_update(f: Any, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`optimizer.update(model, grads)`: optax's updates (shaped like the gradients) added to the parameters
    leaf by leaf, as `optax.apply_updates` does (NC201 where a gradient does not broadcast to its parameter)."""
    opt, args = pos[0], pos[1:]
    grads = args[1] if len(args) == 2 else kw.get("grads") if len(args) == 1 else None
    if not isinstance(opt, OptimizerRef) or not isinstance(opt.tx, optax.Optimizer) or grads is None:
        return UNKNOWN
    params = _params(opt)
    if params is None or not isinstance(grads, Seq):
        return UNKNOWN
    try:
        optax.applied(params, grads, "")
    except RuleError as e:
        err = RuleError(e.code, f"nnx.Optimizer.update: {e.message}", e.hint)
        origins.relate_calls(err, [grads])
        f.report(node, err)
    return UNKNOWN


# ---- a module's state ------------------------------------------------------------------------------------
def _kind_of(v: ArrayType) -> str | None:
    made = origins.of(v).made
    return made[1][len(_TAG) :] if made is not None and made[1].startswith(_TAG) else None


def _matches(kind: str, flt: Any) -> bool | None:
    """Whether a variable of this kind matches a filter (None: the filter is not modelled)."""
    if isinstance(flt, Const) and flt.value is Ellipsis:
        return True
    if isinstance(flt, QualRef) and flt.name in _KINDS:
        want = _KINDS[flt.name]
        return kind == want or want == "Variable"
    return None


def _states(module: Any, filters: list[Any], every: bool) -> tuple[Any, ...] | None:
    """One state per filter (all the variables when none), each a dict tree by sorted attribute path; None
    where a part is not known. `every` (split): each variable must match a filter (flax raises otherwise)."""
    flat = _flat(module, ())
    if flat is None:
        return None
    groups: list[list[tuple[tuple[Any, ...], ArrayType]]] = [[] for _ in (filters or [None])]
    for path, kind, v in flat:
        for i, flt in enumerate(filters or [Const(Ellipsis)]):
            hit = _matches(kind, flt)
            if hit is None:
                return None
            if hit:
                groups[i].append((path, v))
                break
        else:
            if every:
                return None  # flax raises: a variable no filter takes
    return tuple(_tree(g) for g in groups)


_Flat = list[tuple[tuple[Any, ...], str, ArrayType]]


def _stream(path: tuple[Any, ...]) -> _Flat:
    """A random stream's variables: its count (uint32) and key (a typed key), both scalars."""
    return [((*path, "count"), "Rng", ArrayType("u32", ())), ((*path, "key"), "Rng", ArrayType(None, ()))]


def _flat(v: Any, path: tuple[Any, ...]) -> _Flat | None:
    """Every variable under `v` with its path and kind, in flax's order; None where a part is not known."""
    if isinstance(v, RngsRef):  # `self.rngs = rngs`: each stream
        names = sorted({*v.streams, *(("default",) if v.default else ())})
        return [leaf for name in names for leaf in _stream((*path, name))]
    if isinstance(v, ArrayType):
        kind = _kind_of(v)
        return [(path, kind, v)] if kind is not None else None
    if isinstance(v, LayerRef):
        made = layer_variables(v)
        if made is None:
            return None
        if v.op == "flax.nnx.Dropout" and v.ctor and dict(v.ctor).get("rngs", Const(None)) != Const(None):
            return _stream((*path, "rngs"))  # it keeps a fork of the stream it is given
        return [((*path, k), kind, a) for k, (kind, a) in sorted(made.items())]
    if isinstance(v, InstanceRef):
        if v.values is None or not is_module(v.cls.bases) or ("",) in v.cls.mutated:
            return None
        out: _Flat = []
        for attr, item in sorted(v.values, key=lambda kv: kv[0]):
            if (attr,) in v.cls.mutated:
                return None
            sub = _flat(item, (*path, attr))
            if sub is None:
                return None
            out += sub
        return out
    if isinstance(v, PartialRef) and isinstance(v.func, QualRef) and v.func.name == f"{_FUN}sequential":
        return _flat(Seq(v.args[0].items, "list"), (*path, "layers"))
    if isinstance(v, Seq) and v.kind in ("list", "tuple"):
        out = []
        for i, item in enumerate(v.items):
            sub = _flat(item, (*path, i))
            if sub is None:
                return None
            out += sub
        return out
    if isinstance(v, Const) and (v.value is None or isinstance(v.value, int | float | str | bool)):
        return []  # static attributes
    if isinstance(v, QualRef) and v.name.startswith(("jax.nn.", "jax.numpy.", "flax.nnx.")):
        return []  # an activation function kept as an attribute (`nnx.Sequential(..., nnx.relu, ...)`)
    return None


def _tree(items: list[tuple[tuple[Any, ...], ArrayType]]) -> Seq:
    root: dict[Any, Any] = {}
    for path, v in items:
        at = root
        for part in path[:-1]:
            at = at.setdefault(part, {})
        at[path[-1]] = v

    def seq(d: dict[Any, Any]) -> Seq:
        return Seq(tuple(Seq((Const(k), seq(x) if isinstance(x, dict) else x)) for k, x in d.items()), "dict")

    return seq(root)


def _param_dtype(args: dict[str, Any]) -> str | None:
    pd = args.get("param_dtype")
    return "f32" if pd is None or (isinstance(pd, Const) and pd.value is None) else dtype_from_value(pd)


def _size(args: dict[str, Any], name: str) -> Any:
    try:
        d = dim_of(args.get(name))
    except NotLiteral:
        return None
    return d if isinstance(d, str) or (isinstance(d, int) and not isinstance(d, bool) and d > 0) else None


def _flag(args: dict[str, Any], name: str, default: bool) -> bool | None:
    v = args.get(name)
    if v is None:
        return default
    return v.value if isinstance(v, Const) and isinstance(v.value, bool) else None


def layer_variables(layer: LayerRef) -> dict[str, tuple[str, ArrayType]] | None:
    """The variables an nnx layer holds (name -> (kind, array)); None when not modelled. Linear: kernel (in, out)
    and bias; Embed: embedding; LayerNorm / RMSNorm: scale (and bias); BatchNorm: scale, bias and the batch
    statistics mean / var; Conv: kernel (*kernel_size, in, out) and bias; Dropout: none (the stream it is given
    is `_flat`'s)."""
    op, args = layer.op, dict(layer.ctor)
    if op == "flax.nnx.Dropout":
        return {}
    dt = _param_dtype(args)
    if dt is None:
        return None
    shapes: dict[str, tuple[str, tuple[Any, ...]]] = {}
    if op in ("flax.nnx.Linear", "flax.nnx.Conv"):
        d_in, d_out, bias = _size(args, "in_features"), _size(args, "out_features"), _flag(args, "use_bias", True)
        if d_in is None or d_out is None or bias is None:
            return None
        if op.endswith("Linear"):
            shapes["kernel"] = ("Param", (d_in, d_out))
        else:
            try:
                k = literal(args.get("kernel_size"))
            except NotLiteral:
                return None
            k = k if isinstance(k, tuple) else (k,)
            groups = args.get("feature_group_count", Const(1))
            if not all(isinstance(i, int) for i in k) or groups != Const(1):
                return None
            shapes["kernel"] = ("Param", (*k, d_in, d_out))
        if bias:
            shapes["bias"] = ("Param", (d_out,))
    elif op == "flax.nnx.Embed":
        n, d = _size(args, "num_embeddings"), _size(args, "features")
        if n is None or d is None:
            return None
        shapes["embedding"] = ("Param", (n, d))
    elif op in ("flax.nnx.LayerNorm", "flax.nnx.RMSNorm", "flax.nnx.BatchNorm", "flax.nnx.GroupNorm"):
        n = _size(args, "num_features")
        scale = _flag(args, "use_scale", True)
        bias = _flag(args, "use_bias", not op.endswith("RMSNorm"))
        if n is None or scale is None or bias is None or any(k in args for k in ("reduction_axes", "feature_axes")):
            return None
        if args.get("axis", Const(-1)) != Const(-1):
            return None
        if scale:
            shapes["scale"] = ("Param", (n,))
        if bias and not op.endswith("RMSNorm"):
            shapes["bias"] = ("Param", (n,))
        if op.endswith("BatchNorm"):
            shapes["mean"] = ("BatchStat", (n,))
            shapes["var"] = ("BatchStat", (n,))
    else:
        return None
    out: dict[str, tuple[str, ArrayType]] = {}
    for k, (kind, shape) in shapes.items():
        a = ArrayType.make("f32" if kind == "BatchStat" else dt, shape)
        if not isinstance(a, ArrayType):
            return None
        out[k] = (kind, a)
    return out


def _merge(pos: list[Any], kw: dict[str, Any]) -> Any:
    """`nnx.merge(graphdef, state, *states)`: the module, when the states hold exactly its variables' shapes."""
    if kw or len(pos) < 2 or not isinstance(pos[0], GraphDefRef):
        return UNKNOWN
    module = pos[0].instance
    flat = _flat(module, ())
    if flat is None:
        return UNKNOWN
    given: dict[tuple[Any, ...], Any] = {}
    for state in pos[1:]:
        leaves = _leaves(state, ())
        if leaves is None:
            return UNKNOWN
        given.update(leaves)
    if set(given) != {path for path, _, _ in flat}:
        return UNKNOWN
    for path, _, v in flat:
        have = given[path]
        if not isinstance(have, ArrayType) or have.has_ellipsis or have.named or len(have.shape) != len(v.shape):
            return UNKNOWN
        if any(a is None or differ(a, b) for a, b in zip(have.shape, v.shape)):
            return UNKNOWN
    return module


def _leaves(tree: Any, path: tuple[Any, ...]) -> dict[tuple[Any, ...], Any] | None:
    if isinstance(tree, Seq) and tree.kind == "dict":
        out: dict[tuple[Any, ...], Any] = {}
        for pair in tree.items:
            k, v = pair.items
            if not isinstance(k, Const):
                return None
            sub = _leaves(v, (*path, k.value))
            if sub is None:
                return None
            out.update(sub)
        return out
    return {path: tree} if isinstance(tree, ArrayType) else None
