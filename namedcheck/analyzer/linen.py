"""flax linen's functional and lifted APIs and flax's device helpers, around the modules `analyzer/nn_modules.py`
builds: `nn.apply(fn, module)` / `nn.init(fn, module)` (`fn` called with the module inside an `apply` / `init`),
`module.bind(variables)` (calling it is `apply` with those variables), `nn.remat` / `nn.checkpoint` / `nn.jit` of
a module class (a class of the same shapes, named as flax names it: `CheckpointBlock`, `JitBlock`) or of a method
(the method), `flax.jax_utils.replicate` (a leading axis of the local device count on every leaf) /
`unreplicate` (the first entry of every leaf but scalars), `flax.training.common_utils.shard` (the leading axis
split into devices), `nn.Sequential` (its output; the parameter names under it are not followed), an LSTM cell's
`initialize_carry`, `nn.vmap` / `nn.scan` of a module class (`Lifted`: built, it is a `LiftedModule` named
`Vmap<Class>` / `Scan<Class>` whose call is `jax.vmap` of the inner module's, or its call on one slice of the
scanned inputs with the outputs stacked; its parameters are given the mapped axis where `variable_axes` maps them;
`nn_modules.call_lifted`). NotImplemented for any other name."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import libcst as cst

from namedcheck.analyzer import mapcalls, nnx
from namedcheck.analyzer.refs import (
    ClassInfo,
    FuncRef,
    InstanceRef,
    LayerRef,
    ModuleMethodRef,
    PartialRef,
    QualRef,
    TrainStateRef,
)
from namedcheck.engine.ops.elementwise import dtype_from_value
from namedcheck.engine.trees import map_leaves
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, NotLiteral, Seq, dim_of, literal

_LIFTED_CLASS = {
    "flax.linen.remat": "Checkpoint",
    "flax.linen.checkpoint": "Checkpoint",
    "flax.linen.jit": "Jit",
}
_REPLICATE = ("flax.jax_utils.replicate", "flax.jax_utils.unreplicate", "flax.training.common_utils.shard")
MODELLED = frozenset(
    {*_LIFTED_CLASS, *_REPLICATE, "flax.linen.apply", "flax.linen.init", "flax.linen.Sequential"}
    | {"flax.linen.vmap", "flax.linen.scan"}
)
# `nn.vmap` / `nn.scan`'s options the model reads (others, `methods=` and `metadata_params=` among them, leave it
# Unknown)
_OPTIONS = {
    "vmap": frozenset(
        {"variable_axes", "split_rngs", "in_axes", "out_axes", "axis_size", "axis_name", "spmd_axis_name"}
    ),
    "scan": frozenset({"variable_axes", "variable_broadcast", "split_rngs", "in_axes", "out_axes", "length"})
    | {"reverse", "unroll"},
}
# the collections whose variables a lifted vmap may map or broadcast (`variable_axes`)
_MAPPED_COLLECTIONS = frozenset({"params", "batch_stats"})


@dataclass(frozen=True, slots=True)
class Lifted:
    """`nn.vmap(Target, variable_axes=..., in_axes=..., ...)`: the target (a linen class, or a library layer by
    name), flax's name prefix for it, and the options."""

    target: Any
    prefix: str
    options: tuple[tuple[str, Any], ...]

    def class_name(self) -> str:
        t = self.target
        return self.prefix + (t.name if isinstance(t, ClassInfo) else t.name.rpartition(".")[2])

    def axes(self) -> dict[str, int | None]:
        """The axis each collection's variables get (`variable_axes`; None: broadcast, `variable_broadcast`),
        validated at construction."""
        return _axes(dict(self.options))


@dataclass(frozen=True, slots=True)
class LiftedModule:
    """A lifted class built with its constructor's arguments: the inner module they build, and `name=`."""

    lifted: Lifted
    inner: Any
    name: Any


def library_call(f: Any, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    if name in _LIFTED_CLASS:
        target = pos[0] if len(pos) == 1 else None
        if isinstance(target, ClassInfo):
            return replace(target, name=_LIFTED_CLASS[name] + target.name)
        if isinstance(target, FuncRef):  # `@nn.remat` / `@nn.jit` on a method: the method's shapes
            return target
        return UNKNOWN
    if name in ("flax.linen.vmap", "flax.linen.scan"):
        return _lifted(name.rpartition(".")[2], pos, kw)
    if name == "<linen>.lifted_build":
        lifted = pos[0]
        assert isinstance(lifted, Lifted)
        ctor = {k: v for k, v in kw.items() if k not in ("name", "parent")}
        if "parent" in kw:
            return UNKNOWN
        inner = f.call_value(lifted.target, list(pos[1:]), ctor, [None] * (len(pos) - 1), {}, node)
        if not isinstance(inner, LayerRef | InstanceRef):
            return UNKNOWN
        return PartialRef(QualRef("<linen>.lifted_call"), (LiftedModule(lifted, inner, kw.get("name")),))
    if name in ("flax.linen.apply", "flax.linen.init"):
        if len(pos) != 2 or not isinstance(pos[1], InstanceRef) or any(k != "mutable" for k in kw):
            return UNKNOWN
        method = ModuleMethodRef(pos[1], name.rpartition(".")[2], pos[0])
        return PartialRef(method, (), tuple(kw.items()))
    if name == "flax.linen.Sequential":
        layers = pos[0] if len(pos) == 1 else kw.get("layers")
        if not isinstance(layers, Seq) or layers.kind not in ("list", "tuple") or not layers.items:
            return UNKNOWN
        return PartialRef(QualRef("<linen>.sequential"), (layers,))
    if name == "<linen>.sequential":
        for run in f.an.log.models[-1:]:  # inside init / apply: flax names the layers under the Sequential's
            run.unsure = True
        return nnx.sequential(f, pos, kw, node)
    if name == "<linen>.initialize_carry":
        return _initial_carry(pos, kw)
    if name in _REPLICATE:
        tree = pos[0] if len(pos) == 1 and not kw else None
        if tree is None:
            return UNKNOWN
        if isinstance(tree, TrainStateRef):
            return TrainStateRef(_leafwise(f, name, tree.params), tree.apply_fn)
        return _leafwise(f, name, tree)
    return NotImplemented


def _axes(options: dict[str, Any]) -> dict[str, Any]:
    """Each lifted collection's axis: `variable_axes`' literal dict, None for `variable_broadcast`'s; raises
    NotLiteral where not literal."""
    axes = literal(options.get("variable_axes", Seq((), "dict")))
    if not isinstance(axes, dict):
        raise NotLiteral
    cast = literal(options.get("variable_broadcast", Const(False)))
    broadcast = [cast] if isinstance(cast, str) else list(cast) if isinstance(cast, tuple | list) else None
    if cast is not False and (broadcast is None or not all(isinstance(c, str) for c in broadcast)):
        raise NotLiteral
    return {**axes, **{c: None for c in broadcast or ()}}


def _lifted(kind: str, pos: list[Any], kw: dict[str, Any]) -> Any:
    """`nn.vmap(Cls, ...)` / `nn.scan(Cls, ...)` of a linen class or a library layer: a class to build (Unknown
    for a function, or options not modelled: where `params` go must be said literally, `variable_axes` or
    `variable_broadcast`)."""
    target = pos[0] if len(pos) == 1 else None
    layer = isinstance(target, QualRef) and target.name.startswith("flax.linen.") and target.name[11:12].isupper()
    if not (isinstance(target, ClassInfo) or layer) or any(k not in _OPTIONS[kind] for k in kw):
        return UNKNOWN
    try:
        axes = _axes(kw)
        for k in ("in_axes", "out_axes"):
            got = literal(kw.get(k, Const(0)))
            if kind == "scan" and not (isinstance(got, int) or isinstance(got, tuple) and k == "in_axes"):
                return UNKNOWN  # (`nn.broadcast` inputs are not modelled)
    except NotLiteral:
        return UNKNOWN
    if "params" not in axes or any(k not in _MAPPED_COLLECTIONS for k in axes):
        return UNKNOWN
    if any(v is not None and (not isinstance(v, int) or isinstance(v, bool)) for v in axes.values()):
        return UNKNOWN
    try:
        hash(tuple(kw.items()))
    except TypeError:
        return UNKNOWN
    prefix = "Vmap" if kind == "vmap" else "Scan"
    return PartialRef(QualRef("<linen>.lifted_build"), (Lifted(target, prefix, tuple(kw.items())),))


def _initial_carry(pos: list[Any], kw: dict[str, Any]) -> Any:
    """An LSTM cell's `initialize_carry(rng, input_shape)` (nnx: `(input_shape, rngs)`): (c, h), each
    (*input_shape[:-1], hidden size) in the parameters' dtype."""
    cell = pos[0]
    assert isinstance(cell, LayerRef)
    nnx = cell.op.startswith("flax.nnx.")
    args = pos[1:]
    shape = (
        (args[0] if args else kw.get("input_shape")) if nnx else (args[1] if len(args) > 1 else kw.get("input_shape"))
    )
    ctor = dict(cell.ctor)
    if nnx and len(args) < 2 and "rngs" not in kw:
        return UNKNOWN  # flax 0.12's cell keeps no stream for its carry: it raises without `rngs`
    try:
        hidden = dim_of(ctor.get("hidden_features" if nnx else "features"))
        dims = tuple(dim_of(d) for d in shape.items) if isinstance(shape, Seq) else None
    except NotLiteral:
        return UNKNOWN
    pd = ctor.get("param_dtype")
    dt = "f32" if pd is None or pd == Const(None) else dtype_from_value(pd)
    if dims is None or not dims or hidden is None or None in dims or not dt or "carry_init" in kw:
        return UNKNOWN
    one = ArrayType.make(dt, (*dims[:-1], hidden))
    return Seq((one, one))


def bind(inst: Any, pos: list[Any], kw: dict[str, Any]) -> Any:
    """`model.bind(variables)`: a module whose call is `model.apply(variables, ...)`."""
    if len(pos) != 1 or kw:
        return UNKNOWN
    return PartialRef(ModuleMethodRef(inst, "apply"), (pos[0],))


def _leafwise(f: Any, name: str, tree: Any) -> Any:
    if name.endswith(".unreplicate"):
        return map_leaves(tree, _first)
    try:
        n = dim_of(mapcalls.device_count(f))
    except NotLiteral:
        return UNKNOWN
    if n is None:
        return UNKNOWN
    if name.endswith(".replicate"):
        return map_leaves(tree, lambda a: _stacked(a, n))
    return map_leaves(tree, lambda a: _split(a, n))


def _dtype(a: ArrayType) -> str | None:
    return None if a.dtype_code in ("f64", "i64", "u64", "c128") else a.dtype_code  # numpy's, on a device


def _plain(a: Any) -> bool:
    return isinstance(a, ArrayType) and not a.has_ellipsis and not a.named


def _stacked(a: Any, n: Any) -> Any:
    if isinstance(a, Const) and isinstance(a.value, int | float) and not isinstance(a.value, bool):
        return ArrayType(None, (n,))
    return ArrayType.make(_dtype(a), (n, *a.shape)) if _plain(a) else UNKNOWN


def _first(a: Any) -> Any:
    if not _plain(a):
        return UNKNOWN
    return a if not a.shape else ArrayType.make(a.dtype_code, a.shape[1:])


def _split(a: Any, n: Any) -> Any:
    """`shard`: (n, d0 / n, ...), each device's part of the leading axis."""
    if not _plain(a) or not a.shape or not isinstance(n, int) or not isinstance(a.shape[0], int) or a.shape[0] % n:
        return UNKNOWN
    return ArrayType.make(_dtype(a), (n, a.shape[0] // n, *a.shape[1:]))


def method_of(ref: ModuleMethodRef, kw: dict[str, Any]) -> tuple[Any, bool]:
    """The function `apply` / `init` runs with the module (`method=`, `nn.apply`'s `fn`): (fn, known); fn None for
    `__call__`."""
    fn = ref.fn if ref.fn is not None else kw.get("method")
    if fn is None or fn == Const(None):
        return None, True
    inst = ref.instance
    if isinstance(fn, Const) and isinstance(fn.value, str) and isinstance(inst, InstanceRef):
        fn = inst.cls.methods.get(fn.value)  # `method="encode"`
    if isinstance(fn, PartialRef) and fn.args and fn.args[0] == inst:  # `method=model.encode`
        fn = PartialRef(fn.func, fn.args[1:], fn.kwargs)
    return (fn, True) if isinstance(fn, FuncRef | PartialRef | QualRef) else (None, False)
