"""Modules as values: library layers (flax linen / nnx, equinox) built with their sizes and applied through
the engine's layer rules, user modules built by calling their class (fields, `__init__`, linen `setup`),
called directly or through linen's `apply` / `init`, and parameters created with `self.param(...)`."""

from __future__ import annotations

from typing import Any

import libcst as cst

from namedcheck.analyzer import origins
from namedcheck.analyzer.memo import memo_key
from namedcheck.analyzer.refs import BuildingRef, ClassInfo, InstanceRef, LayerRef, ModuleMethodRef, PartialRef, QualRef
from namedcheck.analyzer.sizes import size_arguments
from namedcheck.engine.names import canonical_name, short_name
from namedcheck.engine.ops.elementwise import dtype_from_value
from namedcheck.engine.signature import POSONLY, VARKW
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, Seq, dim_of

LINEN = ("flax.linen.Module", "flax.linen.module.Module")
_PARAM_WRAPPERS = ("flax.nnx.Param", "flax.nnx.Variable", "flax.nnx.BatchStat", "flax.nnx.variablelib.Param")


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
    return LayerRef(name, tuple(sorted(bound.items())), node)


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
    same = bool(pos) and isinstance(pos[0], ArrayType) and isinstance(out, ArrayType) and pos[0].shape == out.shape
    if isinstance(out, ArrayType) and layer.node is not None and layer.node is not node and not same:
        out = origins.made_at(out, layer.node, short_name(layer.op))  # not a layer keeping the shape (dropout)
    return out


def param_wrapper(name: str, pos: list[Any]) -> Any:
    """`nnx.Param(jax.random.normal(key, (4, 8)))`: the wrapped array (Unknown when not an array)."""
    if name in _PARAM_WRAPPERS:
        return pos[0] if pos and isinstance(pos[0], ArrayType) else UNKNOWN
    return NotImplemented


def is_linen(cls: ClassInfo) -> bool:
    return any(b in LINEN for b in cls.bases)


def self_param(f: Any, node: cst.Call) -> Any:
    """`self.param('w', init, shape[, dtype])` in a linen module: an array of that shape when `init` is a
    library initializer (called as `init(key, shape, dtype)`); NotImplemented when not such a call."""
    func = node.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "param"):
        return NotImplemented
    recv = f.ev(func.value)
    if not isinstance(recv, InstanceRef | BuildingRef) or not is_linen(recv.cls):
        return NotImplemented
    args = [a for a in node.args if a.keyword is None and not a.star]
    if len(args) < 3 or len(args) != len(node.args):
        for a in node.args:
            f.ev(a.value)
        return UNKNOWN
    init = args[1].value
    init_head = init.func if isinstance(init, cst.Call) else init
    head = f.ev(init_head)
    shape = f.ev(args[2].value)
    dtype = f.ev(args[3].value) if len(args) > 3 else None
    if not (isinstance(head, QualRef) and _initializer(head.name)) or not isinstance(shape, Seq):
        return UNKNOWN
    dims = tuple(_dim(v) for v in shape.items)
    code = dtype_from_value(dtype) if dtype is not None else "f32"
    return ArrayType.make(code, dims) if code else UNKNOWN


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
    if attr in ("apply", "init") and is_linen(recv.cls) and recv.values is not None and ("",) not in recv.cls.mutated:
        return ModuleMethodRef(recv, attr)
    return NotImplemented


def record_attribute(f: Any, owner: Any, attr: str, v: Any) -> bool:
    """`self.linear = nnx.Linear(...)` while building: recorded (Unknown under a condition)."""
    if not isinstance(owner, BuildingRef):
        return False
    owner.values[attr] = UNKNOWN if (f.cond_depth or f.skip_depth) else v
    return True


def construct(f: Any, info: ClassInfo, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """Calling a class that defines `__init__`: the body runs on a building `self`; the instance holds what
    it assigned (Unknown attributes are simply not known)."""
    init = info.methods.get("__init__")
    if init is None:
        return NotImplemented

    def build() -> InstanceRef:
        building = BuildingRef(info, {})
        f.call_value(init, [building, *pos], kw, [None] * (len(pos) + 1), {}, node)
        return built(building)

    return _memoised(f, init, ("__init__", info, tuple(pos), tuple(sorted(kw.items()))), build)


def _memoised(f: Any, method: Any, parts: tuple[Any, ...], compute: Any) -> Any:
    """A construction or `setup` memoised like a call (by the analyzer of the module defining the class, for
    the caller's map context): building the same instance twice runs the method's body once."""
    an = getattr(getattr(method, "scope", None), "an", None)
    if an is None:
        return compute()
    return an.memoised(memo_key((*parts, f.silent, f.env)), compute)


def built(b: BuildingRef) -> Any:
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
        return built(building)

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
    if method is None or isinstance(inst, BuildingRef):
        return UNKNOWN
    inst = with_setup(f, inst, node)
    return f.call_value(method, [inst, *pos], kw, [None, *nodes], kwl, node)


def call_module_method(
    f: Any,
    ref: ModuleMethodRef,
    pos: list[Any],
    kw: dict[str, Any],
    nodes: list[Any],
    kwl: dict[str, str],
    node: cst.CSTNode,
) -> Any:
    """`model.apply(variables, x)`: `__call__` with the inputs; `model.init(key, x)` analyses the same call
    (its result, the variables, is not tracked). `method=` or `mutable=`: Unknown."""
    if not pos or "method" in kw:
        return UNKNOWN
    call_kw = {k: v for k, v in kw.items() if k not in ("rngs", "mutable")}
    out = call_instance(f, ref.instance, pos[1:], call_kw, nodes[1:], kwl, node)
    if ref.name == "init" or "mutable" in kw:
        return UNKNOWN
    return out
