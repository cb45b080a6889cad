"""dm-haiku as a user meets it: `hk.transform(f)` (and `transform_with_state`, `without_apply_rng`) with its
`init(rng, x)`, which runs `f` and returns the parameters by haiku's module names (`linear`, `linear_1`,
`mlp/~/linear_0`, `block/~/linear` for one made in `__init__`, `~` for `hk.get_parameter` outside any module),
and `apply(params, rng, x)`, which runs `f` again and reports NC305 where the given tree holds a parameter of
another shape than the one this call asks for (haiku's `get_parameter` raises ValueError). Library layers are the
engine's layer rules (`engine/ops/layers.py`, `layers.haiku_params`), built through `nn_modules.build_layer`;
`hk.Module` subclasses run `__init__` / `__call__` / other methods with haiku's naming scopes (a name is taken
when `super().__init__` runs, counted per name in the caller's method call). `hk.get_parameter` / `get_state`
make arrays of the shape asked; `hk.next_rng_key` is the key given to `init` / `apply`; `hk.dropout` keeps the
shape; `hk.vmap` / `hk.scan` are `jax.vmap` / `lax.scan` whose modules' names are not followed;
`@hk.testing.transform_and_run` runs its function inside a transform. A name not sure (a module made under a
condition, a haiku API not modelled or a function not known called while the function runs) makes `init`'s tree
Unknown and `apply` silent."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import libcst as cst

from namedcheck.analyzer import causes, classes, mapcalls, nn_modules, origins
from namedcheck.analyzer.refs import (
    BuildingRef,
    ClassInfo,
    FuncRef,
    HaikuTransformed,
    InstanceRef,
    IterRef,
    LayerRef,
    PartialRef,
    QualRef,
)
from namedcheck.engine.algebra import differ, fmt_shape
from namedcheck.engine.codes import NC305
from namedcheck.engine.errors import RuleError
from namedcheck.engine.names import METHODS, short_name
from namedcheck.engine.ops.elementwise import dtype_from_value
from namedcheck.engine.ops.layers import HAIKU_INPUTS, haiku_params
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, Seq, dim_of

MODULE = "haiku.Module"
_FUN = "<haiku>."  # (not a module path: code that imports namedcheck.analyzer.haiku is not one of these)
_TRANSFORMS = {"haiku.transform": False, "haiku.transform_with_state": True}
# the names this module follows (bench/library_calls.py counts the calls into them as modelled; layers are the op
# table's)
MODELLED = frozenset(
    {
        *_TRANSFORMS,
        "haiku.without_apply_rng",
        "haiku.testing.transform_and_run",
        "haiku.get_parameter",
        "haiku.get_state",
        "haiku.set_state",
        "haiku.next_rng_key",
        "haiku.PRNGSequence",
        "haiku.dropout",
        "haiku.vmap",
        "haiku.scan",
        "haiku.Sequential",
    }
)
# haiku APIs that neither make parameters nor take module names: calling them while `f` runs keeps the names sure
_NO_PARAMS = {
    "haiku.PRNGSequence",
    "haiku.maybe_next_rng_key",
    "haiku.reserve_rng_keys",
    "haiku.running_init",
    "haiku.one_hot",
    "haiku.max_pool",
    "haiku.avg_pool",
    "haiku.get_channel_index",
}
# methods of containers and strings (and `self.assert*` of tests): called on a value not known, they make no module
_INERT_METHODS = {"append", "extend", "insert", "pop", "update", "add", "setdefault", "items", "keys", "values"}
_INERT_METHODS |= {"get", "copy", "format", "join", "split", "startswith", "endswith", "fail"}
_CAMEL = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_PENDING = "<pending>"  # a module whose `super().__init__` has not run yet


def is_module(cls: ClassInfo) -> bool:
    return MODULE in cls.bases


class _Scope:
    """One module method running (`path` None: the transformed function itself, outside any module): the names
    taken in it, per name, as haiku counts them."""

    def __init__(self, path: str | None, method: str | None, building: Any = None) -> None:
        self.path = path
        self.method = method
        self.building = building
        self.counters: Counter[str] = Counter()
        self.used: set[str] = set()


class Run:
    """One `init` / `apply` of a transformed function: the parameters and state it asks for, by (module path,
    name), the module scopes running, the key given, and `unsure` when a name may differ from haiku's."""

    def __init__(self, rng: Any) -> None:
        self.params: dict[tuple[str, str], ArrayType] = {}
        self.state: dict[tuple[str, str], ArrayType] = {}
        self.scopes = [_Scope(None, None)]
        self.rng = rng
        self.unsure = False
        self.opaque = 0  # inside hk.vmap / hk.scan: a body the analysis may run more than once
        self.state_unknown = False  # a state made whose shape is not known: init's state tree is not known
        self.state_set = False  # `set_state` ran: apply's new state may have other shapes
        self.why = ""  # the first reason the names are not sure (`coverage --why`)

    def doubt(self, why: str) -> None:
        """The parameter names (or the tree) may differ from haiku's: `init` gives Unknown, `apply` checks nothing."""
        if not self.unsure:
            self.unsure, self.why = True, why

    def take_name(self, f: Any, base: str) -> str | None:
        """haiku's `unique_and_canonical_name`: the full name of a module made now (None: not sure)."""
        top = self.scopes[-1]
        if f.cond_depth or f.skip_depth or f.silent or self.opaque or top.path == _PENDING:
            self.doubt("a module made under a condition, in a loop or a mapped body")
            return None
        name = base
        if top.path is not None:
            sep = "/~/" if top.method == "__init__" else "/" if top.method == "__call__" else f"/~{top.method}/"
            name = top.path + sep + base
        m = re.fullmatch(r"(.*)_(0|[1-9]\d*)", name)
        stem, n = (m.group(1), int(m.group(2))) if m else (name, None)
        number = top.counters[stem] if n is None else n
        full = f"{stem}_{number}" if n is not None or number else stem
        if full in top.used:  # haiku raises: a name given twice
            self.doubt("a module name given twice")
            return None
        top.used.add(full)
        top.counters[stem] = max(top.counters[stem], number + 1)
        return full

    def bundle(self) -> str | None:
        """The module path a `get_parameter` here files its parameter under (`~` outside any module)."""
        path = self.scopes[-1].path
        if path == _PENDING:
            return None
        return "~" if path is None else path


def _run(f: Any) -> Run | None:
    models = f.an.log.models
    return models[-1] if models and isinstance(models[-1], Run) else None


def _snake(name: str) -> str:
    return _CAMEL.sub(r"_\1", name).lower()


def _given_name(run: Run, f: Any, name: Any, default: str) -> str | None:
    """The module name given (`name=`), else the class's in snake case; None (unsure) for a name not known."""
    if name is None or name == Const(None):
        return default
    if isinstance(name, Const) and isinstance(name.value, str):
        return name.value
    run.doubt("a module name not known")
    return None


# ---- hk.transform and the transformed pair ---------------------------------------------------------------
def library_call(f: Any, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """haiku's functions (and this module's bound helpers); NotImplemented for any other name. A haiku API not
    modelled, called while a transformed function runs, makes the parameter names unsure."""
    run = _run(f)
    if name in _TRANSFORMS:
        apply_rng = kw.get("apply_rng", Const(True))
        if not pos or not isinstance(apply_rng, Const):
            return UNKNOWN
        return _pair(HaikuTransformed(pos[0], _TRANSFORMS[name], apply_rng.value is not False))
    if name == "haiku.without_apply_rng":
        t = _transformed(pos[0]) if len(pos) == 1 else None
        return _pair(HaikuTransformed(t.func, t.state, False)) if t is not None else UNKNOWN
    if name in ("haiku.testing.transform_and_run", f"{_FUN}in_run"):
        return _transform_and_run(f, name, pos, kw, node)
    if name == f"{_FUN}transformed":
        return _call_transformed(f, pos[0], pos[1].value, pos[2:], kw, node)
    if name in ("haiku.get_parameter", "haiku.get_state"):
        return _get(f, run, name.endswith("state"), pos, kw, node)
    if name == "haiku.set_state":
        value = pos[1] if len(pos) == 2 else kw.get("value")
        key = pos[0] if pos else kw.get("name")
        bundle = run.bundle() if run is not None else None
        if run is not None:
            run.state_set = True
            label = key.value if isinstance(key, Const) and isinstance(key.value, str) else None
            if bundle is None or label is None:
                run.state_unknown = True
            elif (bundle, label) not in run.state:  # a state made by its first value
                if isinstance(value, ArrayType):
                    run.state[(bundle, label)] = value
                else:
                    run.state_unknown = True
        return Const(None)
    if name == "haiku.next_rng_key":
        return run.rng if run is not None and isinstance(run.rng, ArrayType) and not pos else UNKNOWN
    if name == "haiku.PRNGSequence":  # `next(seq)`: a key like the one given (an int seed: `PRNGKey(seed)`'s)
        seed = pos[0] if len(pos) == 1 and not kw else None
        if isinstance(seed, Const) and isinstance(seed.value, int) and not isinstance(seed.value, bool):
            seed = f.apply_named("jax.random.PRNGKey", [seed], {}, [None], node)
        return IterRef(seed) if isinstance(seed, ArrayType) else UNKNOWN
    if name == "haiku.dropout":
        x = pos[2] if len(pos) > 2 else kw.get("x")
        return x if isinstance(x, ArrayType) else UNKNOWN
    if name in ("haiku.vmap", "haiku.scan"):
        return _mapped(f, run, name, pos, kw, node)
    if name == f"{_FUN}opaque":
        return _opaquely(f, run, pos[0], pos[1:], kw, node)
    if name == "haiku.Sequential":
        layers = pos[0] if pos else kw.get("layers")
        if not isinstance(layers, Seq) or run is None:
            return UNKNOWN
        base = _given_name(run, f, kw.get("name", pos[1] if len(pos) > 1 else None), "sequential")
        path = run.take_name(f, base) if base is not None else None
        return PartialRef(QualRef(f"{_FUN}sequential"), (layers, Const(path)))
    if name == f"{_FUN}sequential":
        return _sequential(f, run, pos, kw, node)
    if name == f"{_FUN}module_init":
        return _module_init(f, run, pos, kw)
    if name == f"{_FUN}method":
        inst, attr = pos[0], pos[1].value
        return _in_scope(f, run, inst, attr, inst.cls.methods[attr], pos[2:], kw, [None] * (len(pos) - 2), {}, node)
    if name.startswith("haiku.") and run is not None:
        if not (name in _NO_PARAMS or name.startswith("haiku.initializers.") or _harmless(name)):
            run.doubt(f"hk.{name.rpartition('.')[2]} not modelled")  # it may make parameters or take names
    return NotImplemented


def _harmless(name: str) -> bool:
    """A haiku initializer or a dtype policy: makes no parameter."""
    return name.startswith(("haiku.initializers.", "haiku.mixed_precision.", "haiku.data_structures."))


# haiku's `Transformed` / `TransformedWithState`: NamedTuples (init, apply), so `init, apply = hk.transform(f)`,
# `t.init` and `t[1]` read them as any NamedTuple's fields
_TRANSFORMED = ClassInfo("Transformed", kind="fields", order=["init", "apply"], copier="_replace", static=frozenset())


def _pair(t: HaikuTransformed) -> InstanceRef:
    return InstanceRef(
        _TRANSFORMED, tuple((k, PartialRef(QualRef(f"{_FUN}transformed"), (t, Const(k)))) for k in ("init", "apply"))
    )


def _transformed(v: Any) -> HaikuTransformed | None:
    """The transformed function a pair (or one of its halves) was made from."""
    if isinstance(v, InstanceRef) and v.cls is _TRANSFORMED and v.values:
        v = v.values[0][1]
    if isinstance(v, PartialRef) and v.args and isinstance(v.args[0], HaikuTransformed):
        return v.args[0]
    return None


def _transform_and_run(f: Any, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`@hk.testing.transform_and_run` (or with `seed=` / `run_apply=`): the function runs inside a transform, its
    key `PRNGKey(seed)` (none for `seed=None`); another `jax_transform` / `map_rng` is not followed."""
    if name == f"{_FUN}in_run":  # the decorated function called
        run = Run(pos[1])
        f.an.log.models.append(run)
        try:
            return f.call_value(pos[0], pos[2:], kw, [None] * (len(pos) - 2), {}, node)
        finally:
            f.an.log.models.pop()
    if set(kw) - {"seed", "run_apply"} or len(pos) > 1:
        return UNKNOWN
    if not pos:  # `@transform_and_run(seed=None)`: the decorator
        return PartialRef(QualRef(name), (), tuple(kw.items()))
    seed = kw.get("seed", Const(42))
    if seed == Const(None):
        rng: Any = None
    elif isinstance(seed, Const) and isinstance(seed.value, int):
        rng = f.apply_named("jax.random.PRNGKey", [seed], {}, [None], node)
    else:
        rng = UNKNOWN
    return PartialRef(QualRef(f"{_FUN}in_run"), (pos[0], rng))


def in_run(v: Any) -> Any:
    """The function a `transform_and_run` decorator wrapped (None for any other value)."""
    if isinstance(v, PartialRef) and v.func == QualRef(f"{_FUN}in_run") and v.args:
        return v.args[0]
    return None


def _call_transformed(f: Any, t: Any, which: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`init(rng, *args)`: the parameters (with state: the pair (params, state)); `apply(params, [state,] [rng,]
    *args)`: the function's output (with state: (output, state)), NC305 where a given parameter has another shape."""
    if not isinstance(t, HaikuTransformed):
        return UNKNOWN
    lead = 1 if which == "init" else 1 + t.state + t.apply_rng
    if len(pos) < lead:
        return UNKNOWN
    rng = pos[0] if which == "init" else (pos[lead - 1] if t.apply_rng else None)
    run = Run(rng)
    cuts = f.an.log.cuts
    f.an.log.models.append(run)
    try:
        out = f.call_value(t.func, pos[lead:], kw, [None] * (len(pos) - lead), {}, node)
    finally:
        f.an.log.models.pop()
    if f.an.log.cuts != cuts:
        run.doubt("a call not followed (an analysis bound)")  # it may have made modules
    if which == "init" and run.unsure:
        causes.note(f, node, causes.MODULE, f"haiku init: {run.why}")
    if which == "init":
        params = UNKNOWN if run.unsure else _tree(run.params, node)
        if not t.state:
            return params
        return Seq((params, UNKNOWN if run.unsure or run.state_unknown else _tree(run.state, node)))
    if not run.unsure:
        _check(f, run, pos[0], node)
    if not t.state:
        return out
    return Seq((out, pos[1] if not run.state_set else UNKNOWN))


def _tree(made: dict[tuple[str, str], ArrayType], node: cst.CSTNode) -> Seq:
    """`{'linear': {'w': ..., 'b': ...}, ...}`, each array made at `node`."""
    bundles: dict[str, list[Seq]] = {}
    for (bundle, name), v in made.items():
        bundles.setdefault(bundle, []).append(Seq((Const(name), origins.made_at(v, node, "init"))))
    return Seq(tuple(Seq((Const(b), Seq(tuple(items), "dict"))) for b, items in bundles.items()), "dict")


def _lookup(tree: Any, key: str) -> Any:
    if isinstance(tree, Seq) and tree.kind == "dict":
        for pair in tree.items:
            k, v = pair.items
            if isinstance(k, Const) and k.value == key:
                return v
    return None


def _check(f: Any, run: Run, given: Any, node: cst.CSTNode) -> None:
    """NC305 for the first parameter the given tree holds with another shape than this call asks for."""
    for (bundle, name), made in run.params.items():
        have = _lookup(_lookup(given, bundle), name)
        if not isinstance(have, ArrayType) or have.has_ellipsis or have.named or made.has_ellipsis:
            continue
        if len(have.shape) == len(made.shape) and not any(differ(a, b) for a, b in zip(have.shape, made.shape)):
            continue
        err = RuleError(
            NC305,
            f"parameter '{bundle}/{name}' was made with shape {fmt_shape(have.shape)}, but applied here to these "
            f"inputs the module asks for {fmt_shape(made.shape)} (haiku's get_parameter raises ValueError)",
            "apply the function to inputs of the shape it was initialised with, or call init with these inputs",
            data={
                "parameter": f"{bundle}/{name}",
                "given": [d if isinstance(d, int | str) else None for d in have.shape],
                "made": [d if isinstance(d, int | str) else None for d in made.shape],
            },
        )
        made_at = origins.of(have).made
        if made_at is not None:
            err.relate(
                made_at[0], f"the parameters are made here, with '{bundle}/{name}' of shape {fmt_shape(have.shape)}"
            )
        f.report(node, err)
        return


# ---- parameters, state, keys ----------------------------------------------------------------------------
def _get(f: Any, run: Run | None, state: bool, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`hk.get_parameter(name, shape, dtype=float32, init=None)`: an array of that shape, filed under the running
    module's path (the first shape asked for a name is the one kept, as haiku's)."""
    params = ("name", "shape", "dtype", "init")
    bound = dict(zip(params, pos))
    for k, v in kw.items():
        if k not in params or k in bound:
            return UNKNOWN
        bound[k] = v
    shape, name = bound.get("shape"), bound.get("name")
    if not isinstance(shape, Seq):
        if run is not None and state:
            run.state_unknown = True  # a state made from its initializer alone: its shape is not known
        return UNKNOWN
    dims = []
    for v in shape.items:
        try:
            d = dim_of(v)
        except Exception:
            d = None
        dims.append(d if isinstance(d, str) or (isinstance(d, int) and not isinstance(d, bool) and d >= 0) else None)
    dtype = bound.get("dtype")
    code = "f32" if dtype is None or dtype == Const(None) else dtype_from_value(dtype)
    made = ArrayType.make(code, tuple(dims))
    bundle = run.bundle() if run is not None else None
    label = name.value if isinstance(name, Const) and isinstance(name.value, str) else None
    if run is not None and (bundle is None or label is None):
        run.doubt("a parameter name not known")
    elif run is not None and bundle is not None and label is not None and isinstance(made, ArrayType):
        (run.state if state else run.params).setdefault((bundle, label), made)
    return made


def _mapped(f: Any, run: Run | None, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`hk.vmap(f, in_axes, ..., split_rng=...)` is jax.vmap and `hk.scan(f, init, xs)` lax.scan on the arrays; a
    module made in their body is not followed (the analysis may run a body more than once)."""
    rest = {k: v for k, v in kw.items() if k != "split_rng"}
    if name == "haiku.vmap":
        if not pos:
            return UNKNOWN
        body = PartialRef(QualRef(f"{_FUN}opaque"), (pos[0],))
        return _opaquely(f, run, QualRef(f"{_FUN}vmap"), [body, *pos[1:]], rest, node)
    return _opaquely(f, run, QualRef("jax.lax.scan"), pos, rest, node)


def _opaquely(f: Any, run: Run | None, func: Any, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    if run is not None:
        run.opaque += 1
    try:
        if func == QualRef(f"{_FUN}vmap"):
            return mapcalls.construct(f, "jax.vmap", pos, kw, node)
        return f.call_value(func, pos, kw, [None] * len(pos), {}, node)
    finally:
        if run is not None:
            run.opaque -= 1


def _sequential(f: Any, run: Run | None, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`hk.Sequential(layers)(x, *args)`: each layer on the previous one's output (the first gets every argument)."""
    layers, path, args = pos[0], pos[1].value, pos[2:]
    if run is not None and path is None:
        run.doubt("hk.Sequential's name not known")
    scope = _Scope(path, "__call__") if run is not None and path is not None else None
    if scope is not None and run is not None:
        run.scopes.append(scope)
    try:
        out: Any = UNKNOWN
        for i, layer in enumerate(layers.items):
            call_args, call_kw = (args, kw) if i == 0 else ([out], {})
            out = f.call_value(layer, call_args, call_kw, [None] * len(call_args), {}, node)
        return out
    finally:
        if scope is not None and run is not None:
            run.scopes.pop()


# ---- modules: library layers and hk.Module subclasses ------------------------------------------------------
def unknown_call(f: Any, func: Any, ok: bool, node: cst.Call) -> None:
    """A call of a function not known (or with arguments not known) while a transformed function runs: it may
    make modules, so the names after it are not sure (an array method of a value not known makes none)."""
    run = _run(f)
    if run is None or (ok and func is not UNKNOWN):
        return
    attr = node.func.attr.value if isinstance(node.func, cst.Attribute) else ""
    if ok and (attr in METHODS or attr in _INERT_METHODS or attr.startswith("assert")):
        return  # an array's or a container's method, a test's assertion
    run.doubt("a call of a function not known")


def build_layer(f: Any, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`hk.Linear(64)`: the layer (as `nn_modules.build_layer`), its name taken now as haiku does: the name
    passed to the rule is the module's full path."""
    built = nn_modules.build_layer(f, name, pos, kw, node)
    run = _run(f)
    if run is not None and not isinstance(built, LayerRef):
        run.doubt(f"{short_name(name)} built with arguments not read")
    if not isinstance(built, LayerRef) or run is None:
        return built
    ctor = dict(built.ctor)
    base = _given_name(run, f, ctor.get("name"), _snake(name.rpartition(".")[2]))
    path = run.take_name(f, base) if base is not None else None
    if path is None:
        return built
    ctor["name"] = Const(path)
    return LayerRef(built.op, tuple(sorted(ctor.items())), built.node)


def call_layer(
    f: Any,
    layer: LayerRef,
    pos: list[Any],
    kw: dict[str, Any],
    nodes: list[Any],
    kwl: dict[str, str],
    node: cst.CSTNode,
) -> Any:
    """Applying a haiku layer: its inputs given by keyword become positions; the parameters it makes for them are
    filed under its path."""
    names = HAIKU_INPUTS.get(layer.op, ())
    pos, nodes, kw = list(pos), list(nodes), dict(kw)
    for k in names[len(pos) :]:
        if k not in kw:
            break
        pos.append(kw.pop(k))
        nodes.append(None)
    if layer.op == "haiku.MultiHeadAttention" and len(pos) == 4:
        kw["mask"] = pos.pop()
        nodes.pop()
    if layer.op == "haiku.BatchNorm" and len(pos) > 1:  # `bn(x, is_training)`
        kw["is_training"] = pos.pop(1)
        nodes.pop(1)
    out = nn_modules.call_layer(f, layer, pos, kw, nodes, kwl, node)
    run = _run(f)
    if run is None:
        return out
    if layer.op == "haiku.BatchNorm":  # its moving averages are state of shapes not followed
        run.state_unknown = run.state_set = True
    path = dict(layer.ctor).get("name")
    made = haiku_params(layer.op, dict(layer.ctor), pos)
    if made is None or not isinstance(path, Const) or not isinstance(path.value, str):
        run.doubt(
            f"{short_name(layer.op)}'s parameters not known for these inputs"
        )  # parameters not known: the tree would be incomplete
        return out
    for sub, ps in made.items():
        for k, v in ps.items():
            run.params.setdefault((path.value + sub, k), v)
    return out


def construct(f: Any, info: ClassInfo, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """Calling an `hk.Module` subclass while a transformed function runs: `__init__` on a building `self` in its
    own scope (its name taken when `super().__init__` runs); outside a run, as any class with `__init__`."""
    run = _run(f)
    init = info.methods.get("__init__")
    if run is not None and (f.cond_depth or f.skip_depth or f.silent):
        run.doubt("a module made under a condition")  # the names after it may shift
    if run is None:
        built = nn_modules.construct(f, info, pos, kw, node)
        return built if built is not NotImplemented else classes.construct(info, pos, kw)
    building = BuildingRef(info, {})
    if init is None:  # hk.Module's own `__init__(name=None)`
        _module_init(f, run, [building, *pos], kw)
        return nn_modules.built_instance(building)
    scope = _Scope(_PENDING, "__init__", building)
    run.scopes.append(scope)
    try:
        f.call_value(init, [building, *pos], kw, [None] * (len(pos) + 1), {}, node)
    finally:
        run.scopes.pop()
    if scope.path == _PENDING:
        run.doubt("super().__init__ not run surely")
    return nn_modules.built_instance(building)


def super_attribute(f: Any, attr: str) -> Any:
    """`super().__init__` in an `hk.Module` subclass whose next base is haiku's: takes the module's name."""
    if attr != "__init__":
        return NotImplemented
    code = getattr(f, "code", None)
    if not isinstance(code, cst.FunctionDef) or not code.params.params:
        return NotImplemented
    me = f.lookup(code.params.params[0].name.value)
    if not isinstance(me, BuildingRef) or not is_module(me.cls):
        return NotImplemented
    analysed = classes.super_method(f, attr)
    if analysed is not UNKNOWN:
        return analysed  # a base defined in the analysed code runs first
    return PartialRef(QualRef(f"{_FUN}module_init"), (me,))


def _module_init(f: Any, run: Run | None, pos: list[Any], kw: dict[str, Any]) -> Any:
    """hk.Module's `__init__(name=None)`: the building module takes its name in the caller's scope."""
    building = pos[0] if pos else None
    if not isinstance(building, BuildingRef):
        return Const(None)
    if run is None:
        return Const(None)
    name = kw.get("name", pos[1] if len(pos) > 1 else None)
    base = _given_name(run, f, name, _snake(building.cls.name))
    mine = next((s for s in reversed(run.scopes) if s.building is building), None)
    if mine is not None:  # the name is taken in the scope that made the module
        saved = run.scopes
        run.scopes = run.scopes[: run.scopes.index(mine)]
        try:
            path = run.take_name(f, base) if base is not None else None
        finally:
            run.scopes = saved
    else:
        path = run.take_name(f, base) if base is not None else None
    if path is None:
        run.doubt("a module name not known")
        return Const(None)
    if mine is not None:
        mine.path = path
    building.values["module_name"] = Const(path)
    building.values["name"] = Const(path.rpartition("/")[2])
    return Const(None)


def _path_of(inst: Any) -> str | None:
    values = inst.values if isinstance(inst, BuildingRef) else dict(inst.values or ())
    v = values.get("module_name")
    return v.value if isinstance(v, Const) and isinstance(v.value, str) else None


def instance_attribute(f: Any, recv: Any, attr: str, node: cst.CSTNode) -> Any:
    """A method of an `hk.Module` subclass other than `__call__`, bound: it runs in its own naming scope
    (`block/~helper/linear`); a property's getter runs there now. NotImplemented for anything else."""
    if not isinstance(recv, InstanceRef | BuildingRef) or not is_module(recv.cls) or attr in ("__call__", "__init__"):
        return NotImplemented
    method = recv.cls.methods.get(attr)
    if not isinstance(method, FuncRef):
        return NotImplemented
    if attr in recv.cls.properties:
        return _in_scope(f, _run(f), recv, attr, method, [], {}, [], {}, node)
    return PartialRef(QualRef(f"{_FUN}method"), (recv, Const(attr)))


def call_instance(
    f: Any,
    inst: InstanceRef | BuildingRef,
    pos: list[Any],
    kw: dict[str, Any],
    nodes: list[Any],
    kwl: dict[str, str],
    node: cst.CSTNode,
) -> Any:
    """`module(x)`: its `__call__` in the module's scope."""
    method = inst.cls.methods.get("__call__")
    if method is None:
        return UNKNOWN
    return _in_scope(f, _run(f), inst, "__call__", method, pos, kw, nodes, kwl, node)


def _in_scope(
    f: Any,
    run: Run | None,
    inst: Any,
    method_name: str,
    method: Any,
    pos: list[Any],
    kw: dict[str, Any],
    nodes: list[Any],
    kwl: dict[str, str],
    node: cst.CSTNode,
) -> Any:
    if run is None:
        return f.call_value(method, [inst, *pos], kw, [None, *nodes], kwl, node)
    path = _path_of(inst)
    if path is None:
        run.doubt("a module called before its name is known")
    run.scopes.append(_Scope(path if path is not None else _PENDING, method_name))
    try:
        return f.call_value(method, [inst, *pos], kw, [None, *nodes], kwl, node)
    finally:
        run.scopes.pop()


__all__ = ["MODULE", "Run", "build_layer", "call_instance", "call_layer", "construct", "is_module"]
