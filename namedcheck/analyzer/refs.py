"""Values the analyzer tracks besides engine values: module paths, functions, bound methods."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst


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


@dataclass(eq=False, slots=True)
class ClassInfo:
    """A class of the module: its annotated fields (dataclass / equinox / flax style) and methods."""

    name: str
    fields: dict[str, Any] = field(default_factory=dict)
    methods: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False, slots=True)
class InstanceRef:
    """`self` inside a method: attribute reads give the annotated field types."""

    cls: ClassInfo


@dataclass(frozen=True, slots=True)
class MethodRef:
    """`x.sum`: an array method bound to its receiver."""

    receiver: Any
    name: str


@dataclass(frozen=True, slots=True)
class PartialRef:
    """`functools.partial(f, *args, **kwargs)`."""

    func: Any
    args: tuple[Any, ...] = ()
    kwargs: tuple[tuple[str, Any], ...] = field(default=())


@dataclass(frozen=True, slots=True)
class GradRef:
    """`jax.grad(f, argnums)` or `jax.value_and_grad(f, argnums)`."""

    func: Any
    argnums: Any = 0
    with_value: bool = False
    has_aux: bool = False


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


@dataclass(frozen=True, slots=True)
class ShardingVal:
    """`NamedSharding(mesh, P(...))`, or a bare `P(...)` where a sharding is accepted (under the mesh in
    scope): the mesh (None when not known) and the engine `Spec`."""

    mesh: Any  # engine MeshInfo | None
    spec: Any  # engine Spec


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
