"""`namedcheck.xmap`: the named-axis map of jax 0.4.30 on today's JAX.

How a call runs (all of it at trace time; a compiled call is one `jax.jit` dispatch):
1. `in_axes` / `out_axes` leaves become engine `AxisMapping`s and are matched to the argument and
   result pytrees as prefixes; every argument's per-instance type comes from the engine's `xmap_in`
   (positions, repeated names and sizes: NC401-NC403, NC407), `axis_sizes` and `axis_resources` from
   `add_axis_sizes` / `check_resources` (NC403, NC406, NC501, NC503, NC504).
2. The body is traced once per instance (`make_jaxpr` with the named axes bound) and the named-shape
   pass walks it (NC502 co-occurrence, NC404 results with unplaced axes), naming the user's line.
3. The body runs under one `jax.vmap(axis_name=n, spmd_axis_name=resources)` per named axis; each
   argument's mapped dims are moved to the front first, each result's named dims are moved to their
   `out_axes` positions after; with resources, inputs and outputs are placed with `NamedSharding`.
"""

from __future__ import annotations

import functools
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import tree_util
from jax._src import core
from jax._src import mesh as mesh_lib
from jax._src.api_util import flatten_axes
from jax.sharding import NamedSharding, PartitionSpec

from namedcheck.engine.codes import NC401, NC403, NC404, NC406, NC501, NC503, NC705
from namedcheck.engine.errors import RuleError, count
from namedcheck.engine.maps import (
    AxisEnv,
    AxisMapping,
    MeshInfo,
    add_axis_sizes,
    check_cooccurrence,
    check_defined,
    check_resources,
    check_sizes_known,
    defined_names,
    format_mapping,
    is_axis_mapping,
    out_positions,
    parse_mapping,
    xmap_in,
    xmap_out,
)
from namedcheck.engine.values import ArrayType
from namedcheck.errors import AxisMappingError, BadInputError, NamedAxisError, UnboundAxisError, XmapError
from namedcheck.runtime import collectives, context
from namedcheck.runtime.contract import fuse_contractions
from namedcheck.runtime.named_pass import NamedShapePass, user_line

assert collectives  # imported for its ppermute batching rule (partial permutations)

# ---- serial loops (the "time" resource of the original) -----------------------------------------


class SerialLoop:
    """A resource that evaluates a named axis in `length` sequential steps instead of on devices
    (less memory at once; values never depend on resources). An axis that a collective of the body
    uses (psum, axis_index, ...) needs all its instances at once and is evaluated vectorised."""

    def __init__(self, length: int) -> None:
        if not isinstance(length, int) or length < 1:
            raise XmapError(NC503, f"SerialLoop length must be a positive int; found {length!r}")
        self.length = length

    def __repr__(self) -> str:
        return f"SerialLoop({self.length})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SerialLoop) and other.length == self.length

    def __hash__(self) -> int:
        return hash(("SerialLoop", self.length))


_loops = threading.local()


@contextmanager
def serial_loop(name: str, length: int) -> Iterator[None]:
    """Define a loop resource axis `name` of `length` steps for xmaps called inside the block."""
    prev = dict(getattr(_loops, "axes", {}))
    _loops.axes = {**prev, name: length}
    try:
        yield
    finally:
        _loops.axes = prev


# ---- argument handling --------------------------------------------------------------------------


MAX_SPEC_DEPTH = 100  # containers nested in an in_axes / out_axes tree (real ones: a few)


def _to_mappings(spec: Any, what: str, within: tuple[int, ...] = ()) -> Any:
    """Replace every axis mapping of an in_axes / out_axes tree by an engine AxisMapping leaf (the
    engine's `is_axis_mapping` / `parse_mapping`: jax 0.4.30's grammar). `within`: the ids of the
    containers around `spec` (a container holding itself, or nested too deeply, is an error, not a
    RecursionError)."""
    if isinstance(spec, (list, tuple, dict)):
        if id(spec) in within:
            raise AxisMappingError(
                NC401,
                f"{what}: a {type(spec).__name__} contains itself; expected a tree of axis mappings, found a cycle",
                hint="build in_axes / out_axes from fresh lists, tuples and dicts (no container holding itself)",
            )
        if len(within) >= MAX_SPEC_DEPTH:
            raise AxisMappingError(
                NC401,
                f"{what}: containers nested more than {MAX_SPEC_DEPTH} levels deep; expected a tree of axis "
                "mappings as deep as the arguments' pytrees",
                hint="give one axis mapping for a whole subtree instead of nesting containers",
            )
    if is_axis_mapping(spec) or not isinstance(spec, (list, tuple, dict)) or spec is None:
        if spec is None:
            raise AxisMappingError(
                NC401,
                f"{what}: found None where an axis mapping or a container of them belongs",
                hint="write {} for values that stay positional",
            )
        try:
            return parse_mapping(spec, what)
        except RuleError as e:
            raise _error(e) from None
    inside = (*within, id(spec))
    if isinstance(spec, (list, tuple)):
        return tuple(_to_mappings(s, what, inside) for s in spec)
    return {k: _to_mappings(v, what, inside) for k, v in spec.items()}


def _flatten_prefix(what: str, tree: Any, spec: Any) -> list[AxisMapping]:
    try:
        return list(flatten_axes(what, _lists_as_tuples(tree), spec))
    except ValueError:
        values = "arguments" if "in" in what else "results"
        shown = tree_util.tree_unflatten(tree, [_ARRAY] * tree.num_leaves)
        raise AxisMappingError(
            NC401,
            f"{what} {format_mapping(spec)} is not a pytree prefix of the {values} "
            f"{'(a single array)' if shown is _ARRAY else format_mapping(shown)}"
            f"{_count_mismatch(spec, shown, values)}",
            hint="give one axis mapping per array, or one mapping for a whole subtree",
        ) from None


def _lists_as_tuples(tree: Any) -> Any:
    """The structure with every list node a tuple (the mappings' containers are tuples): a list of
    mappings matches a list or a tuple of values, as a tuple of mappings does."""

    def canon(v: Any) -> Any:
        if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
            return tuple(canon(x) for x in v)
        if type(v) is dict:
            return {k: canon(x) for k, x in v.items()}
        return v

    proxy = tree_util.tree_unflatten(tree, [_LeafMark()] * tree.num_leaves)
    return tree_util.tree_structure(canon(proxy), is_leaf=lambda v: isinstance(v, _LeafMark))


class _LeafMark:
    """A leaf of a structure being rebuilt (never a pytree node)."""


class _Leaf:
    """Shows an array leaf of a pytree's structure in a message."""

    def __repr__(self) -> str:
        return "array"


_ARRAY = _Leaf()


def _count_mismatch(spec: Any, shown: Any, values: str) -> str:
    """`: 1 entry for 2 arguments` when both are tuples of different lengths."""
    if isinstance(spec, tuple) and isinstance(shown, tuple) and len(spec) != len(shown):
        return f": {count(len(spec), 'entry', 'entries')} for {count(len(shown), values[:-1])}"
    return ""


def _error(e: RuleError) -> AxisMappingError | XmapError:
    cls = AxisMappingError if e.code == NC401 else XmapError
    return cls(e.code, e.message, e.hint)


_RESOURCES_FORM = "axis_resources is a dict {axis name: mesh axis name, SerialLoop(n), or a tuple of them}"


def _resources(axis_resources: Any) -> dict[str, tuple[Hashable, ...]]:
    """axis_resources as {name: resources}; BadInputError (NC406) for anything but that dict."""
    if axis_resources is None:
        return {}
    if not isinstance(axis_resources, dict):
        raise BadInputError(
            NC406,
            f"xmap axis_resources: expected a dict; found {type(axis_resources).__name__} {axis_resources!r}",
            hint=f"{_RESOURCES_FORM}, e.g. {{'batch': 'x'}}",
        )
    out: dict[str, tuple[Hashable, ...]] = {}
    for name, res in axis_resources.items():
        items = tuple(res) if isinstance(res, (tuple, list)) else (res,)
        for r in items:
            if not isinstance(r, (str, SerialLoop)):
                raise BadInputError(
                    NC406,
                    f"xmap axis_resources[{name!r}]: expected a mesh axis name or "
                    f"SerialLoop; found {type(r).__name__} {r!r}",
                    hint=_RESOURCES_FORM,
                )
        out[name] = items
    return out


_MAX_AXIS_SIZE = 2**31 - 1


def _axis_sizes(axis_sizes: Any) -> dict[str, int]:
    """axis_sizes as {name: int}; XmapError (NC403) for a size that is not an int in 0 .. 2**31-1."""
    if axis_sizes is None:
        return {}
    if not isinstance(axis_sizes, dict):
        raise BadInputError(
            NC403,
            f"xmap axis_sizes: expected a dict {{axis name: size}}; found {type(axis_sizes).__name__} {axis_sizes!r}",
        )
    out = {}
    for n, s in axis_sizes.items():
        if not isinstance(s, int) or isinstance(s, bool) or not 0 <= s <= _MAX_AXIS_SIZE:
            raise XmapError(
                NC403, f"xmap axis_sizes gives axis {n!r} the size {s!r}; sizes are ints from 0 to {_MAX_AXIS_SIZE}"
            )
        out[str(n)] = s
    return out


def current_mesh() -> Any:
    """The mesh in scope (`with Mesh(...)` or `jax.set_mesh`), or None."""
    physical = mesh_lib.thread_resources.env.physical_mesh
    if not physical.empty:
        return physical
    concrete = mesh_lib.get_concrete_mesh()
    if concrete is not None and not concrete.empty:
        return concrete
    return None


def _explicit(mesh: Any) -> bool:
    return any(t == jax.sharding.AxisType.Explicit for t in getattr(mesh, "axis_types", ()))


def _label(name: str, resource: Hashable) -> str:
    return f"SerialLoop({resource.length}) of {name!r}" if isinstance(resource, SerialLoop) else str(resource)


def _spec(entries: Sequence[tuple[str, ...]]) -> PartitionSpec:
    return PartitionSpec(*[None if not e else e[0] if len(e) == 1 else tuple(e) for e in entries])


# ---- xmap ---------------------------------------------------------------------------------------


class XMapped:
    """The callable `xmap` returns: compiled once per input signature (and mesh)."""

    def __init__(
        self,
        fun: Callable[..., Any],
        in_axes: Any,
        out_axes: Any,
        axis_sizes: Any,
        axis_resources: Any,
        donate_argnums: int | Sequence[int],
        backend: str | None,
    ) -> None:
        if not callable(fun):
            raise TypeError(f"xmap: the first argument must be callable; found {type(fun).__name__}")
        if isinstance(in_axes, list) and not is_axis_mapping(in_axes):
            in_axes = tuple(in_axes)  # a list of per-argument entries reads as a tuple (as in jax 0.4.30)
        self.fun = fun
        self.in_axes = () if in_axes == () else _to_mappings(in_axes, "xmap in_axes")
        self.out_axes = _to_mappings(out_axes, "xmap out_axes")
        self.axis_sizes = _axis_sizes(axis_sizes)
        self.resources = _resources(axis_resources)
        self._placed_ok: set[Any] = set()  # argument placements already found to agree with axis_resources
        in_leaves = tree_util.tree_leaves(self.in_axes, is_leaf=lambda v: isinstance(v, AxisMapping))
        self._in_names = list(dict.fromkeys(n for m in in_leaves for _, n in m.pairs))
        out_leaves = tree_util.tree_leaves(self.out_axes, is_leaf=lambda v: isinstance(v, AxisMapping))
        try:
            check_defined(out_leaves, self.resources, defined_names(in_leaves, self.axis_sizes))
        except RuleError as e:
            raise _error(e) from None
        donate = (donate_argnums,) if isinstance(donate_argnums, int) else tuple(donate_argnums)
        self._donate, self._backend = donate, backend
        # With resources the mesh in scope is part of the compiled program (a static argument).
        self._jitted = jax.jit(
            self._impl, static_argnums=(0,), donate_argnums=tuple(d + 1 for d in donate), backend=backend
        )
        self._jitted_meshless = jax.jit(functools.partial(self._impl, None), donate_argnums=donate, backend=backend)
        functools.update_wrapper(self, fun, updated=())  # never copy a wrapped XMapped's state

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError("xmap: keyword arguments are not supported; pass the arrays positionally")
        mesh = current_mesh() if self.resources else None
        plain = True
        for a in args:
            if isinstance(a, core.Tracer) or _bound_meshes():
                return self._impl(mesh, *args)  # inside a trace: inline, so named axes stay visible
            plain = plain and isinstance(a, _ARRAY_TYPES)
        if not plain:
            self._check_arguments(args)
        if mesh is not None and self.resources:
            self._check_placed(args, mesh)
        return self._jitted(mesh, *args) if self.resources else self._jitted_meshless(*args)

    def lower(self, *args: Any) -> Any:
        """Ahead-of-time lowering (`.lower(*args).compile()`), as jax 0.4.30's `xmap(...).lower`."""
        self._check_arguments(args, abstract=True)
        if self.resources:
            mesh = current_mesh()
            if mesh is not None:
                self._check_placed(args, mesh)
            return self._jitted.lower(mesh, *args)
        return self._jitted_meshless.lower(*args)

    def _check_arguments(self, args: tuple[Any, ...], abstract: bool = False) -> None:
        """Every argument leaf is an array (or a Python number; for `lower` also a ShapeDtypeStruct); None
        only where in_axes maps nothing."""
        leaves, tree = tree_util.tree_flatten(args, is_leaf=lambda v: v is None)
        maps = _flatten_prefix("xmap in_axes", tree, self.in_axes)
        for i, (x, m) in enumerate(zip(leaves, maps)):
            if x is None and m.pairs:
                raise BadInputError(
                    NC401,
                    f"xmap: {_leaf_label(tree, i, 'argument')} is None, but in_axes maps it with {m!r}",
                    hint="pass an array there",
                )
            if abstract and isinstance(x, jax.ShapeDtypeStruct):
                continue
            if x is not None and not isinstance(x, _ARRAY_TYPES) and not hasattr(x, "__jax_array__"):
                raise BadInputError(
                    NC401,
                    f"xmap: {_leaf_label(tree, i, 'argument')} is a {type(x).__name__} "
                    f"({_short(x)}); xmap takes arrays (jax or numpy arrays, Python "
                    f"numbers) and pytrees of them",
                )

    def _check_placed(self, args: tuple[Any, ...], mesh: Any) -> None:
        """An argument already placed on the mesh with a NamedSharding must be placed the way
        axis_resources asks (jax 0.4.30 rejected any other partitioning)."""
        leaves, tree = tree_util.tree_flatten(args)
        key = (
            tree,
            mesh,
            tuple(getattr(x, "sharding", None) for x in leaves),
            tuple(len(np.shape(x.shape)) if hasattr(x, "shape") else 0 for x in leaves),
        )
        if key in self._placed_ok:
            return
        placed = [
            (i, x)
            for i, x in enumerate(leaves)
            if isinstance(getattr(x, "sharding", None), NamedSharding) and not x.sharding.is_fully_replicated
        ]
        if not placed:
            self._placed_ok.add(key)
            return
        maps = _flatten_prefix("xmap in_axes", tree, self.in_axes)
        for i, x in placed:
            m = maps[i]
            entries: list[tuple[str, ...]] = [()] * x.ndim
            for pos, name in m.pairs:
                if 0 <= pos < x.ndim:
                    entries[pos] = tuple(r for r in self.resources.get(name, ()) if isinstance(r, str))
            want = _spec(entries)
            got = x.sharding.spec
            if _norm_spec(got, x.ndim) != _norm_spec(want, x.ndim) or x.sharding.mesh.shape != mesh.shape:
                raise XmapError(
                    NC501,
                    f"xmap: {_leaf_label(tree, i, 'argument')} is placed with {got} on a mesh "
                    f"{dict(x.sharding.mesh.shape)}, but axis_resources and in_axes {m!r} ask "
                    f"for {want} on the mesh in scope {dict(mesh.shape)}",
                    hint="place it with NamedSharding(mesh, " + f"{want}) or pass it unplaced",
                )
        self._placed_ok.add(key)

    def __repr__(self) -> str:
        return f"xmap({getattr(self.fun, '__name__', self.fun)!r})"

    def cache_key(self) -> Hashable:
        """What identifies this xmap's programs besides its function."""
        flat = [
            tree_util.tree_flatten(t, is_leaf=lambda v: isinstance(v, AxisMapping))
            for t in (self.in_axes, self.out_axes)
        ]
        return (
            tuple((tuple(leaves), tree) for leaves, tree in flat),
            tuple(sorted(self.axis_sizes.items())),
            tuple(sorted(self.resources.items())),
            self._donate,
            self._backend,
        )

    # -- the traced program -------------------------------------------------------------------

    def _impl(self, mesh: Any, *args: Any) -> Any:
        enclosing = _bound_meshes()
        if enclosing and (mesh if mesh is not None else current_mesh()) != enclosing[-1]:
            raise XmapError(
                NC501,
                "xmap called inside an xmap body under a different mesh than the enclosing "
                "xmap's; the physical mesh cannot change inside xmap",
                hint="enter the mesh (`with jax.set_mesh(mesh):`) outside the outermost xmap",
            )
        leaves, in_tree = tree_util.tree_flatten(args)
        leaves = [jnp.asarray(x) for x in leaves]
        maps = _flatten_prefix("xmap in_axes", in_tree, self.in_axes)
        outer = context.bound_axes()
        outer_env = AxisEnv(named=tuple(sorted(outer.items())))
        sizes: dict[str, tuple[Any, str]] = {}
        per_instance: list[ArrayType] = []
        try:
            label = _Labels(in_tree, "argument")
            for i, (x, m) in enumerate(zip(leaves, maps)):
                what = label(i)
                per_instance.append(xmap_in(context.engine_type(x), m, what, sizes, outer_env))
            add_axis_sizes(sizes, self.axis_sizes)
            check_sizes_known(self._in_names, sizes)
        except RuleError as e:
            raise _error(e) from None
        own = {n: s for n, (s, _) in sizes.items()}
        order = _order(maps, self.axis_sizes)
        self._check_resources(own, mesh)

        # The named-shape pass: the body per instance, with every name bound.
        out_store: dict[str, Any] = {}

        def body_flat(*xs: Any) -> list[Any]:
            out = self.fun(*tree_util.tree_unflatten(in_tree, list(xs)))
            flat, out_store["tree"] = tree_util.tree_flatten(out)
            return flat

        avals = [jax.ShapeDtypeStruct(t.shape, x.dtype) for t, x in zip(per_instance, leaves)]
        axis_env = [*outer.items(), *((n, own[n]) for n in order)]
        with context.binding(own, self._labels()), context.names_unobservable(), _binding_mesh(mesh or current_mesh()):
            try:
                closed = jax.make_jaxpr(body_flat, axis_env=axis_env)(*avals)
            except NameError as e:
                raise _unbound(e, self.fun, axis_env) from None
        out_tree = out_store["tree"]
        out_maps = _flatten_prefix("xmap out_axes", out_tree, self.out_axes)
        collective_axes = self._named_pass(closed, leaves, maps, out_maps, own, in_tree, out_tree)

        # The vectorised program.
        moved = [self._place(_to_front(x, m, order), m, order, mesh) for x, m in zip(leaves, maps)]
        f: Callable[..., Any] = body_flat
        for name in reversed(order):
            mesh_res = tuple(
                r
                for r in self.resources.get(name, ())
                if isinstance(r, str) and mesh is not None and r in mesh.axis_names and not _explicit(mesh)
            )
            in_has = [_has(m, name) for m in maps]
            out_has = [_has(m, name) for m in out_maps]
            steps = self._loop_steps(name) if name not in collective_axes else 1
            f = jax.vmap(
                f,
                in_axes=tuple(0 if h else None for h in in_has),
                out_axes=[0 if h else None for h in out_has],
                axis_name=name,
                axis_size=own[name] // steps,
                spmd_axis_name=(mesh_res if len(mesh_res) > 1 else mesh_res[0]) if mesh_res else None,
            )
            if steps > 1:
                f = _serially(f, steps, in_has, out_has)
        with context.binding(own, self._labels()), _binding_mesh(mesh or current_mesh()):
            program = jax.make_jaxpr(f, axis_env=list(outer.items()))(
                *[jax.ShapeDtypeStruct(jnp.shape(m), m.dtype) for m in moved]
            )
        outs = core.jaxpr_as_fun(fuse_contractions(program))(*moved)
        results = [self._place(_from_front(y, m, order), m, None, mesh, final=True) for y, m in zip(outs, out_maps)]
        return tree_util.tree_unflatten(out_tree, results)

    def _loop_steps(self, name: str) -> int:
        """How many sequential steps the loop resources of `name` ask for (1: none)."""
        loops = dict(getattr(_loops, "axes", {}))
        steps = 1
        for r in self.resources.get(name, ()):
            steps *= r.length if isinstance(r, SerialLoop) else loops.get(r, 1)
        return steps

    def _labels(self) -> dict[str, tuple[str, ...]]:
        """Resources by name for the engine: mesh and `serial_loop` axes, and each `SerialLoop` object
        as a loop of its own."""
        return {n: tuple(_label(n, r) for r in res) for n, res in self.resources.items()}

    def _check_resources(self, own: dict[str, Any], mesh: Any) -> None:
        if not self.resources:
            return
        loops = dict(getattr(_loops, "axes", {}))
        mesh_axes = dict(mesh.shape) if mesh is not None else {}
        for name, res in self.resources.items():
            for r in res:
                if isinstance(r, SerialLoop) or r in loops:
                    continue
                if mesh is None:
                    raise XmapError(
                        NC501,
                        f"axis_resources maps {name!r} to mesh axis {r!r}, but no mesh is in scope",
                        hint="call it under `with jax.set_mesh(mesh):` (or `with Mesh(devices, names):`)",
                    )
        axes = (
            tuple(mesh_axes.items())
            + tuple(loops.items())
            + tuple(
                (_label(n, r), r.length) for n, res in self.resources.items() for r in res if isinstance(r, SerialLoop)
            )
        )
        try:
            check_resources(self._labels(), own, MeshInfo(axes))
        except RuleError as e:
            raise _error(e) from None

    def _named_pass(
        self,
        closed: Any,
        leaves: list[Any],
        maps: list[AxisMapping],
        out_maps: list[AxisMapping],
        own: dict[str, Any],
        in_tree: Any,
        out_tree: Any,
    ) -> set[str]:
        """Run the named-shape pass (NC502, NC404); return the names the body's collectives use."""
        resources = {**context.bound_resources(), **self._labels()}
        env = AxisEnv(named=tuple(sorted(own.items())), resources=tuple(sorted(resources.items())))
        sizes = {**context.bound_axes(), **own}
        pas = NamedShapePass(sizes, env)
        ins = []
        in_label, out_label = _Labels(in_tree, "argument"), _Labels(out_tree, "result")
        for i, (x, m) in enumerate(zip(leaves, maps)):
            outer = context.named_shape_of(x) or {}
            ins.append(frozenset(n for _, n in m.pairs) | frozenset(outer))
            self._cooccur(
                ins[-1],
                jnp.shape(x),
                sizes,
                env,
                lambda i=i: f"{in_label(i)} of the xmapped function {_fun_name(self.fun)}",  # type: ignore[misc]
            )
        outs = pas.run(closed.jaxpr, ins, top=True)
        for i, (var, names, m) in enumerate(zip(closed.jaxpr.outvars, outs, out_maps)):
            aval = var.aval
            if names is not None:
                self._cooccur(
                    names | {n for _, n in m.pairs},
                    aval.shape,
                    sizes,
                    env,
                    lambda i=i, m=m: (  # type: ignore[misc]
                        f"{out_label(i)} of the xmapped function {_fun_name(self.fun)} with its out_axes {m!r}"
                    ),
                )
            t = ArrayType.make(None, tuple(aval.shape), {n: own.get(n) for n in (names or ()) if n in own})
            what = out_label(i)
            try:
                xmap_out(t, m, own, what)
            except RuleError as e:
                if e.code != NC404:
                    raise _error(e) from None
                eqn = pas.producer.get(var)
                filename, line = _where(eqn, self.fun)
                raise NamedAxisError(NC404, e.message, e.hint, filename, line) from None
        return pas.collective_axes

    @staticmethod
    def _cooccur(
        names: frozenset[str], shape: Any, sizes: dict[str, Any], env: AxisEnv, what: Callable[[], str]
    ) -> None:
        """NC502 for an argument or a result of the body (named by `what()`, built only for the message)
        whose named axes share a resource, reported at the user's line that called the xmap."""
        if len(names) < 2:
            return
        try:
            check_cooccurrence(ArrayType.make(None, tuple(shape), {n: sizes.get(n) for n in names}), env)
        except RuleError as e:
            filename, line = _caller()
            raise NamedAxisError(e.code, f"{e.message}: {what()}", e.hint, filename, line) from None

    def _place(self, x: Any, m: AxisMapping, order: list[str] | None, mesh: Any, final: bool = False) -> Any:
        """Constrain a value's named dims to their resources (only when a mesh carries them)."""
        if mesh is None or not self.resources or (_explicit(mesh) and not final):
            return x  # Explicit axes: the body runs on the values as placed, results are resharded
        ndim = jnp.ndim(x)
        entries: list[tuple[str, ...]] = [()] * ndim
        positions = (
            _final_positions(m, ndim)
            if final
            else {n: i for i, n in enumerate([n for n in (order or []) if _has(m, n)])}
        )
        for name, pos in positions.items():
            entries[pos] = tuple(r for r in self.resources.get(name, ()) if isinstance(r, str) and r in mesh.axis_names)
        if not any(entries):
            return x
        sharding = NamedSharding(mesh, _spec(entries))
        if _explicit(mesh):  # `jax.make_mesh` axes: shardings are part of the type, moved by reshard
            return jax.sharding.reshard(x, sharding)
        return jax.lax.with_sharding_constraint(x, sharding)


def xmap(
    fun: Callable[..., Any],
    in_axes: Any,
    out_axes: Any,
    *,
    axis_sizes: Any = None,
    axis_resources: Any = None,
    donate_argnums: int | Sequence[int] = (),
    backend: str | None = None,
) -> XMapped:
    """Map `fun` over named axes: `in_axes` names positional axes of the arguments, `out_axes` places
    the named axes of the results; `axis_resources` partitions named axes over mesh axes."""
    mapped = XMapped(fun, in_axes, out_axes, axis_sizes, axis_resources, donate_argnums, backend)
    try:
        key = (fun, mapped.cache_key())
        hash(key)
    except TypeError:  # an unhashable callable: no sharing
        return mapped
    with _instances_lock:
        shared = _instances.pop(key, mapped)
        _instances[key] = shared  # most recently used last
        while len(_instances) > _MAX_SHARED:
            _instances.popitem(last=False)
    return shared


# xmaps of one function with equal arguments share one XMapped, so its compiled programs (jax 0.4.30
# traced a body once per function, mappings and argument signature, not once per `xmap(...)` call).
# Bounded: an XMapped holds its function, so a cache keyed weakly by the function would never free it.
_MAX_SHARED = 256
_instances: OrderedDict[Hashable, XMapped] = OrderedDict()
_instances_lock = threading.Lock()


# ---- argument kinds, meshes of enclosing bodies, unbound names ---------------------------------


_ARRAY_TYPES = (jax.Array, np.ndarray, np.generic, bool, int, float, complex)
_body_meshes = threading.local()


def _bound_meshes() -> list[Any]:
    """The meshes in scope of the xmaps whose bodies are being traced (outermost first)."""
    return getattr(_body_meshes, "stack", [])


@contextmanager
def _binding_mesh(mesh: Any) -> Iterator[None]:
    prev = _bound_meshes()
    _body_meshes.stack = [*prev, mesh]
    try:
        yield
    finally:
        _body_meshes.stack = prev


def _fun_name(fun: Any) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


def _caller() -> tuple[str | None, int | None]:
    """The innermost frame of the current stack outside jax and namedcheck (the user's line)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if (
            "/jax/" not in name
            and "/namedcheck/" not in name
            and "/jaxlib/" not in name
            and not name.startswith("<frozen")
        ):
            return name, frame.f_lineno
        frame = frame.f_back
    return None, None


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def _norm_spec(spec: Any, ndim: int) -> tuple[tuple[str, ...], ...]:
    """A PartitionSpec as one tuple of mesh axes per dim (trailing dims unsplit)."""
    entries = list(spec) + [None] * (ndim - len(spec))
    return tuple(() if e is None else (e,) if isinstance(e, str) else tuple(e) for e in entries[:ndim])


def _unbound(e: NameError, fun: Callable[..., Any], axis_env: list[tuple[str, int]]) -> Exception:
    """JAX's NameError for an unbound axis name, as NC705 at the user's line (other NameErrors as they are)."""
    found = re.search(r"unbound axis name: ([^.\s]+)", str(e))
    if not found:
        return e
    name = found.group(1)
    filename, line = _user_frame(e, fun)
    bound = ", ".join(repr(n) for n, _ in axis_env) or "none"
    return UnboundAxisError(
        NC705,
        f"the xmap body names axis {name!r}, which no enclosing xmap binds (bound here: {bound})",
        "bind it with in_axes or axis_sizes, or fix the name",
        filename,
        line,
    )


def _user_frame(e: BaseException, fun: Callable[..., Any]) -> tuple[str | None, int | None]:
    """The innermost traceback frame outside jax and namedcheck (the user's line)."""
    found: tuple[str | None, int | None] = (None, None)
    tb = e.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if "/jax/" not in name and "/namedcheck/" not in name and "/jaxlib/" not in name:
            found = (name, tb.tb_lineno)
        tb = tb.tb_next
    if found[0] is None:
        code = getattr(fun, "__code__", None)
        return (code.co_filename, code.co_firstlineno) if code else (None, None)
    return found


# ---- positions ----------------------------------------------------------------------------------


def _serially(f: Callable[..., Any], steps: int, in_has: list[bool], out_has: list[bool]) -> Callable[..., Any]:
    """Evaluate a vmapped level in `steps` sequential chunks (a `lax.scan`): arguments carrying the axis
    (at dim 0) are split into chunks; results carrying it are concatenated, the others are the same
    in every chunk. Only for axes no collective of the body uses (a chunk sees only its own slice)."""

    def run(*xs: Any) -> list[Any]:
        mapped = [i for i, h in enumerate(in_has) if h]

        def chunk(parts: tuple[Any, ...]) -> tuple[Any, ...]:
            args = list(xs)
            for i, part in zip(mapped, parts):
                args[i] = part
            return tuple(f(*args))

        split = tuple(jnp.reshape(xs[i], (steps, -1) + jnp.shape(xs[i])[1:]) for i in mapped)
        _, stacked = jax.lax.scan(lambda carry, parts: (carry, chunk(parts)), None, split, length=steps)
        return [jnp.reshape(o, (-1,) + o.shape[2:]) if h else o[0] for o, h in zip(stacked, out_has)]

    return run


def _has(m: AxisMapping, name: str) -> bool:
    return any(n == name for _, n in m.pairs)


def _order(maps: Sequence[AxisMapping], axis_sizes: dict[str, Any]) -> list[str]:
    """The nesting order of the vmaps: names by first appearance in in_axes, then axis_sizes."""
    seen: dict[str, None] = {}
    for m in maps:
        for _, n in m.pairs:
            seen.setdefault(n, None)
    for n in axis_sizes:
        seen.setdefault(n, None)
    return list(seen)


def _to_front(x: Any, m: AxisMapping, order: list[str]) -> Any:
    """Move an argument's mapped dims to the front, in nesting order."""
    if not m.pairs:
        return x
    nd = jnp.ndim(x)
    where = {n: p % nd for p, n in m.pairs}
    front = [where[n] for n in order if n in where]
    rest = [i for i in range(nd) if i not in front]
    perm = front + rest
    return x if perm == list(range(nd)) else jnp.transpose(x, perm)


def _final_positions(m: AxisMapping, nd_out: int) -> dict[str, int]:
    """Where out_axes puts each named axis in the result (the engine's placement)."""
    return {s: i for i, s in enumerate(out_positions(m, nd_out)) if s is not None}


def _from_front(y: Any, m: AxisMapping, order: list[str]) -> Any:
    """The vmapped result has its named dims first (nesting order); move them to their out_axes places."""
    if not m.pairs:
        return y
    nd = jnp.ndim(y)
    names_front = [n for n in order if _has(m, n)]
    final = _final_positions(m, nd)
    k = len(names_front)
    src = {n: i for i, n in enumerate(names_front)}
    perm: list[int] = []
    positional = iter(range(k, nd))
    by_pos = {p: n for n, p in final.items()}
    for i in range(nd):
        perm.append(src[by_pos[i]] if i in by_pos else next(positional))
    return y if perm == list(range(nd)) else jnp.transpose(y, perm)


class _Labels:
    """Names the leaves of one pytree in messages ("argument 0['w']", "result 1"): its paths are computed
    once, on the first label asked for (one `tree_flatten_with_path` per tree, not one per leaf)."""

    def __init__(self, tree: Any, kind: str) -> None:
        self.tree = tree
        self.kind = kind
        self._paths: list[Any] | None = None

    def __call__(self, i: int) -> str:
        tree, kind = self.tree, self.kind
        if tree.num_leaves == 1 and kind == "result":
            return "the result"
        if self._paths is None:
            skeleton = tree_util.tree_unflatten(tree, list(range(tree.num_leaves)))
            self._paths = [p for p, _ in tree_util.tree_flatten_with_path(skeleton)[0]]
        path = self._paths[i]
        if kind == "argument" and path and isinstance(path[0], tree_util.SequenceKey):
            rest = tree_util.keystr(path[1:])
            return f"argument {path[0].idx}{rest}"
        return f"{kind} {tree_util.keystr(path) or i}"


def _leaf_label(tree: Any, i: int, kind: str) -> str:
    """One leaf's name (for one message; several leaves of a tree: `_Labels`)."""
    return _Labels(tree, kind)(i)


def _where(eqn: Any, fun: Callable[..., Any]) -> tuple[str | None, int | None]:
    if eqn is not None:
        filename, line = user_line(eqn)
        if filename:
            return filename, line
    code = getattr(fun, "__code__", None)
    return (code.co_filename, code.co_firstlineno) if code else (None, None)
