"""Values the analyzer tracks besides engine values: module paths, functions, bound methods."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from namedcheck.analyzer.memo import RUN


@dataclass(frozen=True, slots=True)
class QualRef:
    """A module or module attribute reached through imports (`jax.numpy.sum`)."""

    name: str


@dataclass(eq=False, slots=True)
class FuncRef:
    """A function or lambda defined in the analysed module, with its defining scope."""

    node: cst.FunctionDef | cst.Lambda
    scope: Any  # the Frame it was defined in
    name: str
    owner: Any = None  # ClassInfo when this is an instance method
    traced: bool = False  # what `jax.jit(f)` returns: its array arguments are JAX arrays inside (analyzer/widths.py)

    def __repr__(self) -> str:
        return f"<function {self.name}>"


@dataclass(eq=False, slots=True)
class ClassInfo:
    """A class of the module: its annotated fields (dataclass / equinox / flax style) and methods.
    `kind` says how calling the class binds its fields: "fields" (a dataclass, NamedTuple, flax linen
    module: positional arguments in `order`, then `defaults`), "" (not known: an instance is opaque)."""

    name: str
    fields: dict[str, Any] = field(default_factory=dict)
    methods: dict[str, Any] = field(default_factory=dict)
    kind: str = ""
    order: list[str] = field(default_factory=list)  # every field, annotated or not, in definition order
    defaults: dict[str, Any] = field(default_factory=dict)  # class-body values of fields and constants
    bases: tuple[str, ...] = ()  # canonical names of library bases (`flax.linen.Module`)
    # attribute paths of built instances assigned in the class's own methods or by a module's body as it
    # loads (`('config', 'block_size')`; `('',)`: an item of the instance itself): the values there are not
    # known; `mutated` adds those the checked file's run assigned so far (`memo.RUN`)
    assigned: frozenset[tuple[str, ...]] = frozenset()
    properties: set[str] = field(default_factory=set)  # methods read as attributes (`@property`)
    # a pytree node whose children are its fields (NamedTuple, `flax.struct.dataclass`, `chex.dataclass`,
    # equinox): the fields that are static metadata instead (`struct.field(pytree_node=False)`); None: not one
    # (or its static fields are not known)
    static: frozenset[str] | None = None
    copier: str = ""  # the method returning a copy with some fields replaced (`replace`, `_replace`), if any
    written: dict[str, Any] = field(default_factory=dict)  # where each class-body default is written
    classmethods: dict[str, Any] = field(default_factory=dict)  # bound to the class they are read from
    staticmethods: dict[str, Any] = field(default_factory=dict)
    # written without bases or decorators: unless registered as a pytree, an instance is no JAX type
    plain: bool = False
    # decorated by a run-time checker (`@jaxtyped(typechecker=beartype)`): building it checks its fields'
    # annotations, as one call (analyzer/classes.check_fields)
    checked: bool = False
    parents: tuple[Any, ...] = ()  # the bases defined in the analysed code (ClassInfo), in order (`super()`)

    def __repr__(self) -> str:
        return f"<class {self.name}>"

    @property
    def mutated(self) -> frozenset[tuple[str, ...]]:
        """Attribute paths of built instances assigned somewhere in this run: the values there are not known."""
        extra = RUN.classes.get(self) if RUN.classes else None
        return self.assigned if extra is None else self.assigned | extra


@dataclass(frozen=True, slots=True)
class InstanceRef:
    """`self` inside a method (attribute reads give the annotated field types), or an instance built by
    calling the class (`values`: its fields as bound by the call)."""

    cls: ClassInfo
    values: tuple[tuple[str, Any], ...] | None = None

    def field_value(self, name: str) -> Any:
        """The value a built instance holds for a field (None when not a field, not built, or assigned somewhere
        after it was built; a field's own fields assigned somewhere are forgotten in what it holds)."""
        if self.values is None or ("",) in self.cls.mutated or (name,) in self.cls.mutated:
            return None
        for k, v in self.values:
            if k == name:
                for path in self.cls.mutated:
                    if len(path) > 1 and path[0] == name:
                        v = forget_path(v, path[1:])
                return v
        return None


def forget_path(v: Any, path: tuple[str, ...]) -> Any:
    """A built instance without the value at an attribute path (assigned after it was built)."""
    if not isinstance(v, InstanceRef) or v.values is None or not path:
        return v
    if len(path) == 1:
        return InstanceRef(v.cls, tuple((k, x) for k, x in v.values if k != path[0]))
    values = tuple((k, forget_path(x, path[1:]) if k == path[0] else x) for k, x in v.values)
    return InstanceRef(v.cls, values)


@dataclass(frozen=True, slots=True)
class IterRef:
    """An iterator of unknown length: a generator (calling a function that yields), `iter(xs)`, `zip` /
    `enumerate` / `map` over one, `itertools.count` / `cycle` / ...; `item` is what each step gives (the join of
    the values it may be; Unknown when not known), `head` the first item where it is known exactly."""

    item: Any
    head: Any = None


@dataclass(frozen=True, slots=True)
class MethodRef:
    """`x.sum`: an array method bound to its receiver."""

    receiver: Any
    name: str


@dataclass(frozen=True, slots=True)
class NumberInfo:
    """`jnp.finfo(dtype)` / `jnp.iinfo(dtype)`: its limits (`.min`, `.max`, `.eps`) are scalars of that dtype
    (`code`: the short dtype name, None when not known)."""

    code: str | None
    integer: bool = False  # `iinfo`: its limits are Python ints


@dataclass(frozen=True, slots=True)
class AtRef:
    """`x.at` and `x.at[idx]` (index None until subscripted): its methods (`set`, `add`, `get`, ...) are
    the ops `jax.numpy.ndarray.at.<method>` of (x, idx, ...)."""

    array: Any
    index: Any = None
    node: Any = field(default=None, compare=False)  # `x`, for messages


@dataclass(frozen=True, slots=True)
class TreeDefRef:
    """The structure `jax.tree.flatten` / `jax.tree.structure` gave: the tree it was taken from, whose leaves
    `jax.tree.unflatten` replaces in JAX's order."""

    tree: Any


@dataclass(frozen=True, slots=True)
class PartialRef:
    """`functools.partial(f, *args, **kwargs)`."""

    func: Any
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = field(default=())


@dataclass(frozen=True, slots=True)
class GradRef:
    """`jax.grad(f, argnums)` or `jax.value_and_grad(f, argnums)`; `filtered`: equinox's `filter_grad` /
    `filter_value_and_grad` (the first argument's floating arrays differentiated, None at every other leaf)."""

    func: Any
    argnums: Any = 0
    with_value: bool = False
    has_aux: bool = False
    filtered: bool = False


@dataclass(frozen=True, slots=True)
class InitializerRef:
    """An array initializer (`jax.nn.initializers.he_normal()`, `nn.initializers.normal(0.02)`): called with
    `(key, shape, dtype=float32)`, an array of that shape and dtype."""

    name: str


@dataclass(frozen=True, slots=True)
class TypeAlias:
    """`Weights = f32[(784, 512)]`: a name bound to an array annotation, usable as an annotation."""

    type: Any


@dataclass(frozen=True, slots=True)
class DevicesVal:
    """`jax.devices()` and arrays of devices: the shape when static (None entries otherwise). `every`:
    all the devices of the run (so a static shape states the device count)."""

    shape: tuple[Any, ...]
    every: bool = False


@dataclass(frozen=True, slots=True)
class MeshVal:
    """A mesh built by `Mesh(...)` / `jax.make_mesh(...)`."""

    info: Any  # engine MeshInfo


@dataclass(eq=False, slots=True)
class MappedRef:
    """A function wrapped by xmap / vmap / shard_map; `node` is where the map was written."""

    kind: str
    func: Any
    params: dict[str, Any]
    node: Any
    wrapped: bool = False  # passed as the function of another map (which may bind more names in its body)


@dataclass(frozen=True, slots=True)
class ShardingVal:
    """`NamedSharding(mesh, P(...))`, or a bare `P(...)` where a sharding is accepted (under the mesh in
    scope): the mesh (None when not known) and the engine `Spec`."""

    mesh: Any  # engine MeshInfo | None
    spec: Any  # engine Spec
    written: Any = None  # `origins.Written` of the `NamedSharding(...)` call, where the program built it


@dataclass(eq=False, slots=True)
class JitRef:
    """`jax.jit(f, in_shardings=..., out_shardings=...)`: calls analyse `f` as a plain call does, with the
    arguments and results placed by the stated shardings (None where not stated). `node` is where the
    jit was written (its call or decorator)."""

    func: Any
    in_shardings: Any
    out_shardings: Any
    node: Any
    auto: bool = False  # `jax.sharding.auto_axes(f, ...)`: f runs over Auto axes (shardings leave the types)
    explicit: bool = False  # `jax.sharding.explicit_axes(f, ...)`: f runs over Explicit axes, its arguments resharded
    axes: Any = None  # auto_axes / explicit_axes: the mesh axes made Auto / Explicit (None: all of them)


@dataclass(frozen=True, slots=True)
class LayerRef:
    """A library layer built with its constructor arguments (`nn.Dense(64)`, `nnx.Linear(4, 8, rngs=r)`):
    calling it runs the engine's layer rule `op` (engine/ops/layers.py) on the inputs."""

    op: str
    ctor: tuple[tuple[str, Any], ...]
    node: Any = field(default=None, compare=False)  # where it was built (its sizes are written there)


@dataclass(eq=False, slots=True)
class BuildingRef:
    """`self` while `__init__` / linen `setup` runs: attribute assignments are recorded as the instance's
    values (Unknown where made under a condition)."""

    cls: ClassInfo
    values: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ModuleMethodRef:
    """`model.apply` / `model.init` of a flax linen module instance (or of a library layer, `nn.Dense(3).init`);
    `fn`: the function `nn.apply(fn, model)` / `nn.init(fn, model)` runs with the module in place of `__call__`."""

    instance: InstanceRef | LayerRef | PartialRef
    name: str
    fn: Any = None


@dataclass(frozen=True, slots=True)
class HaikuTransformed:
    """`hk.transform(f)` / `hk.transform_with_state(f)` (`state`), `hk.without_apply_rng(...)` (`apply_rng` False):
    its `init` and `apply` (analyzer/haiku.py)."""

    func: Any
    state: bool = False
    apply_rng: bool = True


@dataclass(frozen=True, slots=True)
class StaxLayer:
    """A `jax.example_libraries.stax` layer (`stax.Dense(10)`, `stax.serial(...)`) as its spec, the argument its
    `init_fun` / `apply_fun` (partials of analyzer/nn_modules.py's names) are bound to."""

    spec: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class TrainStateRef:
    """flax's `TrainState.create(apply_fn=..., params=..., tx=...)`: its parameters keep their tree through
    `state.params`, `state.apply_gradients(grads=...)` and `state.replace(params=...)`."""

    params: Any
    apply_fn: Any
