"""Modules as values: library layers (flax linen / nnx, equinox) built with their sizes and applied through
the engine's layer rules, user modules built by calling their class (fields, `__init__`, linen `setup`),
called directly or through linen's `apply` / `init`, and parameters created with `self.param(...)`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import libcst as cst

from namedcheck.analyzer import causes, classes, diffrax, equinox, linen, nnx, optax, origins
from namedcheck.analyzer.memo import memo_key
from namedcheck.analyzer.refs import (
    BuildingRef,
    ClassInfo,
    FuncRef,
    InitializerRef,
    InstanceRef,
    LayerRef,
    ModuleMethodRef,
    PartialRef,
    QualRef,
    StaxLayer,
    TrainStateRef,
)
from namedcheck.analyzer.scope import label
from namedcheck.analyzer.sizes import size_arguments
from namedcheck.engine.algebra import differ, fmt_shape
from namedcheck.engine.codes import NC305
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import X64
from namedcheck.engine.names import canonical_name, short_name
from namedcheck.engine.ops.elementwise import dtype_from_value
from namedcheck.engine.ops.layers import STAX_SAME, layer_params, layer_stats, stax_apply, stax_init
from namedcheck.engine.signature import POSONLY, VARKW
from namedcheck.engine.trees import map_leaves
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, DimVal, NotLiteral, Seq, dim_of, literal

LINEN = ("flax.linen.Module", "flax.linen.module.Module")


# Constructor parameters that are one size each: a value not known there is a symbol named after its source
_SIZE_PARAMS = {
    "features",
    "num_embeddings",
    "in_features",
    "out_features",
    "num_features",
    "in_size",
    "out_size",
    "embedding_size",
    "width_size",
    "input_size",
    "hidden_size",
    "query_size",
}


def build_layer(f: Any, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode | None = None) -> Any:
    """`nn.Dense(64)`: the layer with its constructor arguments bound to the op's parameter names;
    `nn.Dense(config.d_model)` binds the size to the symbol `config.d_model`."""
    op = f.an.ops.get(name)
    if op is None:
        return UNKNOWN
    ctor_names = [p.name for p in op.signature.params if p.kind not in (POSONLY, VARKW) and p.name != "self"]
    if len(pos) > len(ctor_names):
        return UNKNOWN
    bound = dict(zip(ctor_names, pos))
    for k, v in kw.items():
        if k in bound:
            return UNKNOWN
        bound[k] = v
    if isinstance(node, cst.Call):
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        _, bound = size_arguments(f, ctor_names, _SIZE_PARAMS, [], bound, positional, node)
    try:
        hash(tuple(bound.items()))
    except TypeError:
        return UNKNOWN
    return _built_module(f, LayerRef(name, tuple(sorted(bound.items())), node))


def _built_module(f: Any, module: Any) -> Any:
    """A linen submodule built while `init` / `apply` collects parameters: flax names it when it is built, so
    one built and not called by the end (handed to `nn.Sequential`, kept for later) makes the names unsure."""
    c = _collecting(f)
    if c is not None:
        c.built[id(module)] = module
    return module


def call_layer(
    f: Any,
    layer: LayerRef,
    pos: list[Any],
    kw: dict[str, Any],
    nodes: list[Any],
    kwl: dict[str, str],
    node: cst.CSTNode,
) -> Any:
    """Applying a built layer to its inputs: the engine's rule with the constructor's arguments. The result
    gets its shape where the layer was built (`self.proj = nn.Dense(config.d)`: the size written there)."""
    ctor = dict(layer.ctor)
    out = f.apply_named(layer.op, pos, {**ctor, **{k: v for k, v in kw.items() if k not in ctor}}, nodes, node, kwl)
    c = _collecting(f)
    if c is not None and layer.op.startswith("flax.linen."):
        made = layer_params(layer.op, ctor, pos[0] if pos else UNKNOWN)
        stats = layer_stats(layer.op, ctor, pos[0] if pos else UNKNOWN)
        with c.child(f, layer, layer.op.rpartition(".")[2], ctor.get("name")) as path:
            for k, v in (made or {}).items():  # a layer not modelled is left out of the tree (its name is counted)
                c.params[(*path, k)] = v
            for k, v in (stats or {}).items():
                c.other.setdefault("batch_stats", {})[(*path, k)] = v
    same = bool(pos) and isinstance(pos[0], ArrayType) and isinstance(out, ArrayType) and pos[0].shape == out.shape
    if isinstance(out, ArrayType) and layer.node is not None and layer.node is not node and not same:
        out = origins.made_at(out, layer.node, short_name(layer.op))  # not a layer keeping the shape (dropout)
    return out


_TRAIN_STATE = "flax.training.train_state.TrainState"
# the flax names this module interprets (bench/library_calls.py's "modelled"; layers are the op table's)
MODELLED = frozenset(
    {
        "flax.linen.compact",
        "flax.linen.Module",
        "flax.struct.dataclass",  # (pytree classes: analyzer/classes.py)
        "flax.struct.PyTreeNode",
        f"{_TRAIN_STATE}.create",
        ".param",
        ".variable",
        ".apply_gradients",
        ".bind",
        *(f"flax.core.{m}{f}" for m in ("", "frozen_dict.") for f in ("freeze", "unfreeze", "FrozenDict")),
    }
)
_LINEN_FUN = "<linen>."
_METHODS = (
    "init",
    "apply",
    "init_with_output",
)  # a linen module's: run `__call__` (or `method=`) collecting  # bound helpers (not a module path)
_FROZEN = {f"flax.core.{m}{f}" for m in ("", "frozen_dict.") for f in ("freeze", "unfreeze", "FrozenDict")}
_STAX = "jax.example_libraries.stax."
_STAX_FUN = "namedcheck.analyzer.nn_modules.stax_"


def _stax_spec(v: Any) -> tuple[Any, ...] | None:
    """A stax layer given to `serial`: a pair of its functions, or a layer that is a pair itself (`stax.Relu`)."""
    if isinstance(v, Seq) and len(v.items) == 2 and isinstance(v.items[0], PartialRef):
        layer = v.items[0].args[0] if v.items[0].args else None
        return layer.spec if isinstance(layer, StaxLayer) else None
    if isinstance(v, QualRef) and v.name.startswith(_STAX):
        short = v.name[len(_STAX) :]
        return ("same",) if short in STAX_SAME else ("flatten",) if short == "Flatten" else None
    return None


def _stax_pair(spec: tuple[Any, ...]) -> Seq:
    layer = StaxLayer(spec)
    return Seq((PartialRef(QualRef(f"{_STAX_FUN}init"), (layer,)), PartialRef(QualRef(f"{_STAX_FUN}apply"), (layer,))))


def _stax(f: Any, name: str, pos: list[Any], node: cst.CSTNode) -> Any:
    """`stax.Dense(n)` / `stax.serial(...)`: (init_fun, apply_fun); `init_fun(rng, input_shape)`: (output shape,
    parameters made here); `apply_fun(params, x)`: the output, NC305 where a Dense's kernel was made for another
    input width (JAX's dot then raises)."""
    if name == f"{_STAX}Dense" and len(pos) >= 1:
        try:
            out = dim_of(pos[0])
        except NotLiteral:
            return UNKNOWN
        return _stax_pair(("dense", out)) if out is not None else UNKNOWN
    if name == f"{_STAX}serial":
        specs = [_stax_spec(v) for v in pos]
        return _stax_pair(("serial", tuple(specs))) if pos and all(s is not None for s in specs) else UNKNOWN
    layer = pos[0] if pos else None
    if not isinstance(layer, StaxLayer):
        return UNKNOWN
    if name == f"{_STAX_FUN}init" and len(pos) == 3 and isinstance(pos[2], Seq):
        try:
            dims = tuple(dim_of(d) for d in pos[2].items)
        except NotLiteral:
            return UNKNOWN
        got = stax_init(layer.spec, dims)
        if got is None:
            return UNKNOWN
        shape, params = got
        made = map_leaves(params, lambda a: origins.made_at(a, node, "init_fun") if isinstance(a, ArrayType) else a)
        return Seq((Seq(tuple(Const(d) if isinstance(d, int) else DimVal(d) for d in shape)), made))
    if name == f"{_STAX_FUN}apply" and len(pos) >= 3:
        out, bad = stax_apply(layer.spec, pos[1], pos[2])
        if bad is not None:
            w, x = bad
            err = RuleError(
                NC305,
                f"the parameters hold a Dense kernel of shape {fmt_shape(w)}, made for inputs with {w[0]} features; "
                f"applied to {_input_label(node)}, the layer gets inputs of shape {fmt_shape(x)} (jnp.dot raises)",
                "apply the network to inputs of the shape given to init_fun, or call init_fun with this input shape",
                data={"given": list(_json_dims(w)), "input": list(_json_dims(x))},
            )
            made_at = _made_kernel(pos[1], w)
            if made_at is not None:
                err.relate(made_at, f"the parameters are made here, with a kernel of shape {fmt_shape(w)}")
            f.report(node, err)
            return UNKNOWN
        return out if out is not None else UNKNOWN
    return UNKNOWN


def _input_label(node: cst.CSTNode) -> str:
    lab = label(node.args[1].value) if isinstance(node, cst.Call) and len(node.args) >= 2 else None
    return f"`{lab}`" if lab else "the input"


def _made_kernel(params: Any, shape: tuple[Any, ...]) -> Any:
    """Where the first parameter of this shape in the tree was made."""
    if isinstance(params, ArrayType):
        made = origins.of(params).made
        return made[0] if made is not None and params.shape == shape else None
    if isinstance(params, Seq):
        for item in params.items:
            found = _made_kernel(item, shape)
            if found is not None:
                return found
    return None


def library_call(f: Any, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`nnx.Param(jax.random.normal(key, (4, 8)))`: the wrapped array (Unknown when not an array). Parameter trees
    through training: `TrainState.create(apply_fn=, params=, tx=)` and its `apply_gradients` / `replace`, and
    optax's optimizers, states, updates and schedules (analyzer/optax.py). stax layers and their functions.
    NotImplemented for any other name."""
    if name.startswith((_STAX, _STAX_FUN)):
        return _stax(f, name, pos, node)
    if name == f"{_LINEN_FUN}bind":
        return linen.bind(pos[0], pos[1:], kw)
    if name in (f"{_LINEN_FUN}lifted_call", f"{_LINEN_FUN}lifted_body"):
        return call_lifted(f, name.endswith("body"), pos, kw, node)
    if name.startswith(("flax.linen.", "flax.jax_utils.", "flax.training.common_utils.", _LINEN_FUN)):
        got = linen.library_call(f, name, pos, kw, node)
        if got is not NotImplemented:
            return got
    if (
        name.startswith(("flax.nnx.", "<nnx>."))
        and (got := nnx.library_call(f, name, pos, kw, node)) is not NotImplemented
    ):
        return got
    if name.startswith(("equinox.", "<equinox>.")):  # filter_vmap, tree_at, partition, ... (analyzer/equinox.py)
        done = equinox.call(f, name, pos, kw, node)
        if done is not NotImplemented:
            return done
    if name.startswith(("diffrax.", "<diffrax>.")):  # terms, SaveAt, diffeqsolve (analyzer/diffrax.py)
        done = diffrax.call(f, name, pos, kw, node)
        if done is not NotImplemented:
            return done
    if name == f"{_TRAIN_STATE}.create":
        return TrainStateRef(kw["params"], kw.get("apply_fn", UNKNOWN)) if "params" in kw and not pos else UNKNOWN
    if name in (f"{_TRAIN_STATE}.apply_gradients", f"{_TRAIN_STATE}.replace"):
        state = pos[0] if len(pos) == 1 else None
        if not isinstance(state, TrainStateRef):
            return UNKNOWN
        if name.endswith("apply_gradients"):  # `params + updates` leaf by leaf (NC201), as optax.apply_updates
            grads = kw.get("grads")
            if grads is None or not isinstance(state.params, Seq | ArrayType):
                return state
            try:
                return TrainStateRef(optax.applied(state.params, grads, ""), state.apply_fn)
            except RuleError as e:
                err = RuleError(e.code, f"TrainState.apply_gradients: {e.message}", e.hint)
                f.report(node, origins.relate_calls(err, [grads]))
                return UNKNOWN
        return TrainStateRef(kw.get("params", state.params), kw.get("apply_fn", state.apply_fn))
    if name in _FROZEN:  # `flax.core.unfreeze(variables)`: the same tree
        return pos[0] if len(pos) == 1 and isinstance(pos[0], Seq) and pos[0].kind == "dict" else UNKNOWN
    if name.startswith("optax."):  # optimizers, their states and updates, schedules (analyzer/optax.py)
        return optax.call(f, name, pos, kw, node)
    return NotImplemented


def other_attribute(recv: Any, attr: str, f: Any = None) -> Any:
    """`nn.Dense(3).init` / `.apply` of a linen layer; a TrainState's `params`, `apply_fn`, `apply_gradients`,
    `replace`; `create` of a TrainState subclass. NotImplemented for anything else."""
    if (got := nnx.attribute(recv, attr)) is not NotImplemented:  # `rngs.params`
        return got
    if isinstance(recv, LayerRef) and recv.op.endswith(".LSTMCell") and attr == "initialize_carry":
        return PartialRef(QualRef(f"{_LINEN_FUN}initialize_carry"), (recv,))
    lifted = QualRef(f"{_LINEN_FUN}lifted_call")
    if isinstance(recv, PartialRef) and recv.func in (QualRef(f"{_LINEN_FUN}sequential"), lifted) and attr in _METHODS:
        return ModuleMethodRef(recv, attr)  # `nn.Sequential([...]).apply(variables, x)`
    if isinstance(recv, LayerRef) and recv.op.startswith("flax.linen.") and attr in _METHODS:
        return ModuleMethodRef(recv, attr)
    if isinstance(recv, LayerRef) and recv.op.startswith("equinox.nn."):  # `linear.weight`, `mlp.layers`
        return equinox.layer_attribute(recv, attr, f is not None and f.env.flag(X64) is False)
    if (got := equinox.state_attribute(recv, attr)) is not NotImplemented:  # `state.get(self.index)`
        return got
    if isinstance(recv, equinox.Stacked):  # an ensemble's `weight`: the copies' axis in front
        return equinox.stacked_attribute(recv, attr, f is not None and f.env.flag(X64) is False)
    if isinstance(recv, TrainStateRef):
        if attr == "params":
            return recv.params
        if attr == "apply_fn":
            return recv.apply_fn
        if attr in ("apply_gradients", "replace"):
            return PartialRef(QualRef(f"{_TRAIN_STATE}.{attr}"), (recv,))
        return UNKNOWN
    if (method := optax.attribute(recv, attr)) is not NotImplemented:  # `tx.init`, `tx.update`
        return method
    if (got := diffrax.attribute(recv, attr)) is not NotImplemented:  # `sol.ys`, `sol.ts`
        return got
    if isinstance(recv, ClassInfo) and attr == "create" and _TRAIN_STATE in recv.bases:
        return QualRef(f"{_TRAIN_STATE}.create")
    return NotImplemented


def is_linen(cls: ClassInfo) -> bool:
    return any(b in LINEN for b in cls.bases)


def self_param(f: Any, node: cst.Call) -> Any:
    """`self.param('w', init, shape[, dtype])` in a linen module: an array of that shape when `init` is a
    library initializer (called as `init(key, shape, dtype)`); another function is called as flax calls it,
    `init(key, *init_args, **init_kwargs)`. `self.variable(...)`: `_self_variable`. NotImplemented when not such a
    call."""
    func = node.func
    if not (isinstance(func, cst.Attribute) and func.attr.value in ("param", "variable")):
        return NotImplemented
    recv = f.ev(func.value)
    if not isinstance(recv, InstanceRef | BuildingRef) or not is_linen(recv.cls):
        return NotImplemented
    if any(a.star for a in node.args):
        for a in node.args:
            f.ev(a.value)
        causes.note(f, node, causes.UNREAD, f"self.{func.attr.value} with star arguments")
        return UNKNOWN
    if func.attr.value == "variable":
        return _self_variable(f, node)
    # (name, init_fn, *init_args, unbox=True, **init_kwargs): a library initializer takes (key, shape, dtype)
    args = [a.value for a in node.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
    for i, k in enumerate(("name", "init_fn")):
        if len(args) == i and k in keywords:
            args.append(keywords.pop(k))
    if len(args) == 2 and "shape" in keywords:
        args.append(keywords.pop("shape"))
    if len(args) == 3 and "dtype" in keywords:
        args.append(keywords.pop("dtype"))
    keywords.pop("unbox", None)
    if len(args) < 2:
        for a in node.args:
            f.ev(a.value)
        return UNKNOWN
    init = args[1]
    init_head = init.func if isinstance(init, cst.Call) else init
    head = f.ev(init_head) if isinstance(init_head, cst.Name | cst.Attribute) else None
    library = isinstance(head, InitializerRef) or (isinstance(head, QualRef) and _initializer(head.name))
    if not library or len(args) < 3 or len(args) > 4 or keywords:
        return _called_init(f, node, args, keywords)
    shape = f.ev(args[2])
    dtype = f.ev(args[3]) if len(args) > 3 else None
    if not isinstance(shape, Seq):
        return UNKNOWN  # a parameter whose shape is not known: left out of the tree
    dims = tuple(_dim(v) for v in shape.items)
    # a dtype not known (a field set by an unknown `**cfg`) leaves the shape
    code = dtype_from_value(dtype) if dtype is not None and dtype != Const(None) else "f32"
    made = ArrayType.make(code, dims)
    if not code:
        causes.note(f, node, causes.UNREAD, "self.param dtype")
    return _made_param(f, f.ev(args[0]), made)


def _made_param(f: Any, name: Any, made: Any) -> Any:
    c = _collecting(f)
    if c is not None and isinstance(made, ArrayType) and isinstance(name, Const) and isinstance(name.value, str):
        c.params[(*c.path(), name.value)] = made
        c.unsure = c.unsure or bool(f.cond_depth or f.skip_depth)
    return made if isinstance(made, ArrayType) else UNKNOWN


def _called_init(f: Any, node: cst.Call, args: list[Any], keywords: dict[str, Any]) -> Any:
    """`self.param('w', lambda key, shape: ..., (3, 4))`, `self.param('b', init, d, dtype=...)`: the initializer
    called with a key (not known) and the other arguments, as flax calls it (flax checks the shape at `apply`)."""
    name = f.ev(args[0])
    init = f.ev(args[1])
    rest = [f.ev(a) for a in args[2:]]
    kw = {k: f.ev(v) for k, v in keywords.items()}
    if not isinstance(init, FuncRef | PartialRef | InitializerRef):
        causes.note(f, node, causes.UNREAD, "self.param initializer not known")
        return UNKNOWN
    made = f.call_value(init, [UNKNOWN, *rest], kw, [None, *args[2:]], {}, node)
    return _made_param(f, name, made)


def _self_variable(f: Any, node: cst.Call) -> Any:
    """`self.variable('batch_stats', 'mean', init_fn, *init_args)`: while `init` runs, `init_fn(*init_args)` (kept
    in that collection of the tree `init` returns); while `apply` runs, the array the given variables hold there;
    Unknown elsewhere (a method analysed on its own: the variables given are not known). Its `.value` is the
    array."""
    args = [a.value for a in node.args if a.keyword is None]
    keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
    for i, k in enumerate(("col", "name", "init_fn")):
        if len(args) == i and k in keywords:
            args.append(keywords.pop(k))
    keywords.pop("unbox", None)
    vals = [f.ev(a) for a in args]
    kw = {k: f.ev(v) for k, v in keywords.items()}
    c = _collecting(f)
    if len(vals) < 3 or c is None or not all(isinstance(v, Const) and isinstance(v.value, str) for v in vals[:2]):
        return UNKNOWN
    col, name = vals[0].value, vals[1].value
    path = (*c.path(), name)
    if not c.initializing:
        have = _lookup(c.given, col)
        for part in path:
            have = _lookup(have, part)
        return have if isinstance(have, ArrayType) else UNKNOWN
    made = f.call_value(vals[2], vals[3:], kw, [None, *args[3:]], {}, node)
    if not isinstance(made, ArrayType):
        c.unsure = True  # a variable not known: the collection's tree is not known
        return UNKNOWN
    if col == "params":
        c.params[path] = made
    else:
        c.other.setdefault(col, {})[path] = made
    c.unsure = c.unsure or bool(f.cond_depth or f.skip_depth)
    return made


def _initializer(name: str) -> bool:
    n = canonical_name(name)
    return ".initializers." in n or n.endswith(("default_kernel_init", "default_embed_init"))


def _dim(v: Any) -> Any:
    d = dim_of(v) if isinstance(v, Const) or hasattr(v, "dim") else None
    return d if isinstance(d, int) and not isinstance(d, bool) else None


def instance_attribute(recv: InstanceRef | BuildingRef, attr: str) -> Any:
    """An attribute of a user module: a built value, linen `apply` / `init`, a bound method; NotImplemented
    for what the plain instance rules decide."""
    if isinstance(recv, BuildingRef):
        if attr in recv.values:
            return recv.values[attr]
        if attr in recv.cls.methods:
            return PartialRef(recv.cls.methods[attr], (recv,))
        return recv.cls.fields.get(attr, UNKNOWN)
    if attr in _METHODS and is_linen(recv.cls) and recv.values is not None and ("",) not in recv.cls.mutated:
        return ModuleMethodRef(recv, attr)
    if attr == "bind" and is_linen(recv.cls) and recv.values is not None and ("",) not in recv.cls.mutated:
        return PartialRef(QualRef(f"{_LINEN_FUN}bind"), (recv,))
    if attr == "variant" and attr not in recv.cls.methods and any(b.startswith("chex.") for b in recv.cls.bases):
        return QualRef("chex.TestCase.variant")  # `self.variant(fn)` in a chex test case: fn, as a variant runs it
    return NotImplemented


def record_attribute(f: Any, owner: Any, attr: str, v: Any) -> bool:
    """`self.linear = nnx.Linear(...)` while building: recorded (Unknown under a condition)."""
    if not isinstance(owner, BuildingRef):
        return False
    owner.values[attr] = UNKNOWN if (f.cond_depth or f.skip_depth) else v
    return True


def construct(f: Any, info: ClassInfo, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """Calling a class that defines `__init__`: the body runs on a building `self`; the instance holds what
    it assigned (Unknown attributes are simply not known). A linen module's `name=` (and `parent=`) are not
    fields: the instance holds its name as `name`."""
    init = info.methods.get("__init__")
    if init is None and is_linen(info):
        built = classes.construct(info, pos, {k: v for k, v in kw.items() if k not in ("name", "parent")})
        if isinstance(built, InstanceRef) and built.values is not None and "name" in kw:
            built = InstanceRef(info, (*built.values, ("name", kw["name"])))
        return _built_module(f, built)
    if init is None:
        return NotImplemented

    def build() -> InstanceRef:
        building = BuildingRef(info, {})
        f.call_value(init, [building, *pos], kw, [None] * (len(pos) + 1), {}, node)
        return built_instance(building)

    return _memoised(f, init, ("__init__", info, tuple(pos), tuple(sorted(kw.items()))), build)


def _memoised(f: Any, method: Any, parts: tuple[Any, ...], compute: Any) -> Any:
    """A construction or `setup` memoised like a call (by the analyzer of the module defining the class, for
    the caller's map context): building the same instance twice runs the method's body once."""
    an = getattr(getattr(method, "scope", None), "an", None)
    if an is None:
        return compute()
    return an.memoised(memo_key((*parts, f.silent, f.env)), compute)


def built_instance(b: BuildingRef) -> Any:
    """The instance a building `self` became: the attributes it was given."""
    try:
        values = tuple(b.values.items())
        hash(values)
    except TypeError:
        values = tuple((k, v if _hashable(v) else UNKNOWN) for k, v in b.values.items())
    return InstanceRef(b.cls, values)


def _hashable(v: Any) -> bool:
    try:
        hash(v)
        return True
    except TypeError:
        return False


def with_setup(f: Any, inst: InstanceRef, node: cst.CSTNode) -> InstanceRef:
    """A linen module's `setup` run on its fields: the submodules and parameters it assigns."""
    setup = inst.cls.methods.get("setup")
    if setup is None or inst.values is None or not is_linen(inst.cls):
        return inst

    def build() -> InstanceRef:
        building = BuildingRef(inst.cls, dict(inst.values or ()))
        f.call_value(setup, [building], {}, [None], {}, node)
        return built_instance(building)

    return _memoised(f, setup, ("setup", inst), build)


def call_instance(
    f: Any,
    inst: InstanceRef | BuildingRef,
    pos: list[Any],
    kw: dict[str, Any],
    nodes: list[Any],
    kwl: dict[str, str],
    node: cst.CSTNode,
) -> Any:
    """`model(x)` / `self.block(h)`: the class's `__call__` on the (set-up) instance."""
    method = inst.cls.methods.get("__call__")
    c = _collecting(f)
    if method is None or isinstance(inst, BuildingRef):
        if c is not None:
            c.unsure = True
        return UNKNOWN
    built = inst
    inst = with_setup(f, inst, node)
    if c is None or not is_linen(inst.cls):
        return f.call_value(method, [inst, *pos], kw, [None, *nodes], kwl, node)
    with c.child(f, built, inst.cls.name, dict(inst.values or ()).get("name"), inst):
        return f.call_value(method, [inst, *pos], kw, [None, *nodes], kwl, node)


def call_lifted(f: Any, body: bool, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """A lifted module called (`nn.vmap(Block, ...)(4)(x)`): in its own scope (flax's `VmapBlock_0`), `jax.vmap`
    of the inner module's call with the lift's `in_axes` / `out_axes` / `axis_size`; the variables the inner call
    makes get the mapped axis where `variable_axes` puts one (None: shared by every slice). `body`: the mapped
    function, the inner module called in the lifted module's scope."""
    lm, args = pos[0], list(pos[1:])
    assert isinstance(lm, linen.LiftedModule)
    c = _collecting(f)
    if body:
        if c is not None:
            c.inline = True  # the inner module is the lifted one: its variables go in this scope
        try:
            return f.call_value(lm.inner, args, kw, [None] * len(args), {}, node)
        finally:
            if c is not None:
                c.inline = False
    options = dict(lm.lifted.options)
    scan = lm.lifted.prefix == "Scan"
    n = _scan_length(options, args) if scan else _mapped_size(options, args)
    if kw or n is None:
        if c is not None:
            c.unsure = True
        return UNKNOWN
    if scan:

        def run() -> Any:
            return _scan(f, lm, options, args, n, node)

    else:
        vmap_kw = {k: v for k, v in options.items() if k in ("in_axes", "out_axes", "axis_size", "axis_name")}
        mapped = f.transform("jax.vmap", [PartialRef(QualRef(f"{_LINEN_FUN}lifted_body"), (lm,))], vmap_kw, node)

        def run() -> Any:
            return f.call_value(mapped, args, {}, [None] * len(args), {}, node)

    if c is None:
        return run()
    before = {col: set(made) for col, made in (("params", c.params), *c.other.items())}
    with c.child(f, lm, lm.lifted.class_name(), lm.name):
        out = run()
    for col, axis in lm.lifted.axes().items():
        made = c.params if col == "params" else c.other.get(col, {})
        for key in set(made) - before.get(col, set()):
            if axis is not None:
                v = made[key]
                if not (0 <= axis <= len(v.shape)):
                    c.unsure = True
                    continue
                made[key] = ArrayType.make(v.dtype_code, (*v.shape[:axis], n, *v.shape[axis:]))
    for col, made in c.other.items():  # a collection `variable_axes` does not name: flax would not lift it
        if col not in lm.lifted.axes() and set(made) - before.get(col, set()):
            c.unsure = True
    return out


def _scan_axes(options: dict[str, Any], xs: list[Any]) -> list[Any] | None:
    axes = literal(options.get("in_axes", Const(0)))
    per = list(axes) if isinstance(axes, tuple) else [axes] * len(xs)
    return per if len(per) == len(xs) and all(isinstance(a, int) and not isinstance(a, bool) for a in per) else None


def _scan_length(options: dict[str, Any], args: list[Any]) -> Any:
    """The length of a lifted scan: `length`, else the first scanned input's axis (None: not known)."""
    try:
        if "length" in options:
            return dim_of(options["length"])
        per = _scan_axes(options, args[1:])
    except NotLiteral:
        return None
    if per is None or not per:
        return None
    x, ax = args[1], per[0]
    if not isinstance(x, ArrayType) or x.has_ellipsis or not -len(x.shape) <= ax < len(x.shape):
        return None
    return x.shape[ax]


def _moved(a: Any, drop: int | None, insert: int | None, n: Any) -> Any:
    """An array with axis `drop` removed (one scanned slice) or a new axis of size n at `insert` (stacked)."""
    if not isinstance(a, ArrayType) or a.has_ellipsis or a.named:
        return UNKNOWN
    shape = list(a.shape)
    if drop is not None:
        if not -len(shape) <= drop < len(shape):
            return UNKNOWN
        del shape[drop]
    if insert is not None:
        if not -len(shape) - 1 <= insert <= len(shape):
            return UNKNOWN
        shape.insert(insert if insert >= 0 else len(shape) + 1 + insert, n)
    return ArrayType.make(a.dtype_code, tuple(shape))


def _scan(f: Any, lm: Any, options: dict[str, Any], args: list[Any], n: Any, node: cst.CSTNode) -> Any:
    """A lifted scan's call `(carry, *xs)`: the inner module on the carry and one slice of each input (the
    axis `in_axes` names), its `(carry, y)` with y stacked along `out_axes`."""
    if not args:
        return UNKNOWN
    per = _scan_axes(options, args[1:])
    out_axis = literal(options.get("out_axes", Const(0)))
    if per is None:
        return UNKNOWN
    sliced = [map_leaves(x, lambda a, ax=ax: _moved(a, ax, None, n)) for x, ax in zip(args[1:], per)]
    c = _collecting(f)
    if c is not None:
        c.inline = True
    try:
        res = f.call_value(lm.inner, [args[0], *sliced], {}, [None] * len(args), {}, node)
    finally:
        if c is not None:
            c.inline = False
    if not isinstance(res, Seq) or len(res.items) != 2:
        return UNKNOWN
    carry, y = res.items
    return Seq((carry, map_leaves(y, lambda a: _moved(a, None, out_axis, n))), "tuple")


def _mapped_size(options: dict[str, Any], args: list[Any]) -> Any:
    """The size of a lifted vmap's axis: `axis_size`, else the first mapped argument's (None: not known)."""
    try:
        given = dim_of(options["axis_size"]) if "axis_size" in options else None
        in_axes = literal(options.get("in_axes", Const(0)))
    except NotLiteral:
        return None
    if given is not None:
        return given
    per = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    if len(per) != len(args):
        return None
    for a, ax in zip(args, per):
        if ax is None:
            continue
        if (
            not isinstance(ax, int)
            or not isinstance(a, ArrayType)
            or a.has_ellipsis
            or not -len(a.shape) <= ax < len(a.shape)
        ):
            return None
        return a.shape[ax]
    return None


def call_module_method(
    f: Any,
    ref: ModuleMethodRef,
    pos: list[Any],
    kw: dict[str, Any],
    nodes: list[Any],
    kwl: dict[str, str],
    node: cst.CSTNode,
) -> Any:
    """`model.init(key, x)`: `__call__` analysed on the inputs, and the variables `{'params': {...}}` holding the
    parameters its layers make for them (by flax's names: `Dense_0`, a `setup` attribute's name, `name=`), each
    made here (a layer or parameter not modelled is left out); Unknown where a name may differ from flax's (a
    module made under a condition or in a loop not unrolled, one built and not called, a `name=` not known). `model.apply(variables,
    x)`: `__call__` on the inputs; a parameter the given tree holds with a shape other than the one this call makes
    is NC305. `method=` (a method, its name, a function of the module) runs in place of `__call__`; `mutable=`: the
    output is Unknown (a pair)."""
    fn, known = linen.method_of(ref, kw)
    if not pos or not known:
        return UNKNOWN
    call_kw = {k: v for k, v in kw.items() if k not in ("rngs", "mutable", "method")}
    c = _Collect(initializing=ref.name != "apply", given=pos[0] if ref.name == "apply" else None)
    f.an.log.models.append(c)
    try:
        if isinstance(ref.instance, LayerRef):
            out = call_layer(f, ref.instance, pos[1:], call_kw, nodes[1:], kwl, node) if fn is None else UNKNOWN
        elif isinstance(ref.instance, PartialRef):  # nn.Sequential: its output (the names under it not followed)
            out = f.call_value(ref.instance, pos[1:], call_kw, nodes[1:], kwl, node) if fn is None else UNKNOWN
        elif fn is None:
            out = call_instance(f, ref.instance, pos[1:], call_kw, nodes[1:], kwl, node)
        else:  # `method=Model.encode`, `nn.apply(fn, model)`: called with the (set-up) module, in its scope
            inst = with_setup(f, ref.instance, node)
            with c.child(f, ref.instance, inst.cls.name, dict(inst.values or ()).get("name"), inst):
                out = f.call_value(fn, [inst, *pos[1:]], call_kw, [None, *nodes[1:]], kwl, node)
    finally:
        f.an.log.models.pop()
    if set(c.built) - c.applied:
        c.unsure = True
    if ref.name == "init":
        return _variables(c, node)
    if ref.name == "init_with_output":  # (the output, the variables)
        return Seq((out, _variables(c, node)))
    given = _params_in(pos[0])
    if given is not None and not c.unsure:
        _check_params(f, c, given, node)
    return UNKNOWN if "mutable" in kw else out


class _Collect:
    """The parameters (and other collections' variables) one `init` / `apply` makes, by path (those of layers not
    modelled are left out); the module
    scopes being called (path, the names each has handed out per class, the submodules named so far); `unsure`
    when a name may be wrong."""

    def __init__(self, unsure: bool = False, initializing: bool = False, given: Any = None) -> None:
        self.params: dict[tuple[str, ...], ArrayType] = {}
        self.other: dict[str, dict[tuple[str, ...], ArrayType]] = {}  # the other collections (`batch_stats`)
        self.initializing = initializing
        self.given = given  # the variables `apply` was given
        self.built: dict[int, Any] = {}  # submodules built during the run (kept alive), by id
        self.applied: set[int] = set()
        self.scopes: list[tuple[tuple[str, ...], dict[str, int], dict[int, tuple[Any, str]], Any]] = []
        self.unsure = unsure
        self.inline = False  # the next module called is a lifted module's inner one: it takes that scope

    def path(self) -> tuple[str, ...]:
        return self.scopes[-1][0] if self.scopes else ()

    @contextmanager
    def child(self, f: Any, obj: Any, cls_name: str, name: Any, inst: Any = None) -> Iterator[tuple[str, ...]]:
        """A submodule being called: its path (the root when none is being called)."""
        if f.cond_depth or f.skip_depth:
            self.unsure = True  # flax counts the modules a run makes: a conditional one may shift the names
        self.applied.add(id(obj))
        if self.inline:
            self.inline = False
            path: tuple[str, ...] = self.path()
        elif not self.scopes:
            path = ()
        else:
            parent, counters, named, owner = self.scopes[-1]
            given = name.value if isinstance(name, Const) and isinstance(name.value, str) else None
            if name is not None and given is None:
                self.unsure = True
            child = given or _attribute_name(owner, obj) or (named[id(obj)][1] if id(obj) in named else None)
            if child is None:
                child = f"{cls_name}_{counters.get(cls_name, 0)}"
                counters[cls_name] = counters.get(cls_name, 0) + 1
            named[id(obj)] = (obj, child)
            path = (*parent, child)
        self.scopes.append((path, {}, {}, inst))
        try:
            yield path
        finally:
            self.scopes.pop()


def _collecting(f: Any) -> _Collect | None:
    models = f.an.log.models
    return models[-1] if models and isinstance(models[-1], _Collect) else None  # (a haiku run is analyzer/haiku.py's)


def _attribute_name(owner: Any, obj: Any) -> str | None:
    """The attribute of the calling module that holds `obj` (`self.dense = nn.Dense(3)` in `setup`: 'dense'; an
    item of a list attribute: 'layers_1')."""
    if not isinstance(owner, InstanceRef) or owner.values is None:
        return None
    for attr, v in owner.values:
        if v is obj or (isinstance(v, PartialRef) and v.args and v.args[0] is obj):  # (a lifted module's)
            return attr
        if isinstance(v, Seq) and v.kind in ("list", "tuple"):
            for i, item in enumerate(v.items):
                if item is obj:
                    return f"{attr}_{i}"
    return None


def _variables(c: _Collect, node: cst.CSTNode) -> Any:
    """`{'params': {...}, 'batch_stats': {...}}` from the collected variables, each made at `node` (Unknown when
    unsure or empty)."""
    if c.unsure or not c.params:
        return UNKNOWN
    collections = []
    for col, made in (("params", c.params), *sorted(c.other.items())):
        tree: dict[str, Any] = {}
        for path, v in made.items():
            at = tree
            for part in path[:-1]:
                nxt = at.setdefault(part, {})
                if not isinstance(nxt, dict):
                    return UNKNOWN
                at = nxt
            at[path[-1]] = origins.made_at(v, node, "init")
        collections.append(Seq((Const(col), _seq(tree))))
    return Seq(tuple(collections), "dict")


def _seq(d: dict[str, Any]) -> Seq:
    return Seq(tuple(Seq((Const(k), _seq(v) if isinstance(v, dict) else v)) for k, v in d.items()), "dict")


def _lookup(tree: Any, key: str) -> Any:
    if isinstance(tree, Seq) and tree.kind == "dict":
        for pair in tree.items:
            k, v = pair.items
            if isinstance(k, Const) and k.value == key:
                return v
    return None


def _params_in(variables: Any) -> Any:
    """The 'params' collection of what `apply` is given (a dict with 'params', or a TrainState's parameters)."""
    return _lookup(variables, "params")


def _check_params(f: Any, c: _Collect, given: Any, node: cst.CSTNode) -> None:
    """NC305 for the first parameter the tree holds with a shape other than the one this call makes."""
    for path, made in c.params.items():
        have = given
        for part in path:
            have = _lookup(have, part)
        if not isinstance(have, ArrayType) or have.has_ellipsis or have.named:
            continue
        if len(have.shape) == len(made.shape) and not any(differ(a, b) for a, b in zip(have.shape, made.shape)):
            continue
        where = "/".join(path[:-1]) or "the model"
        err = RuleError(
            NC305,
            f"parameter {path[-1]!r} of {where} was made with shape {fmt_shape(have.shape)}, but the layer applied "
            f"here to these inputs makes it {fmt_shape(made.shape)} (flax raises ScopeParamShapeError)",
            "apply the model to inputs of the shape it was initialised with, or initialise (or build) it for these "
            "inputs",
            data={
                "parameter": "/".join(path),
                "given": list(_json_dims(have.shape)),
                "made": list(_json_dims(made.shape)),
            },
        )
        made_at = origins.of(have).made
        if made_at is not None:
            err.relate(made_at[0], f"the parameters are made here, with {path[-1]!r} of shape {fmt_shape(have.shape)}")
        f.report(node, err)
        return


def _json_dims(shape: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(d if isinstance(d, int | str) else None for d in shape)
