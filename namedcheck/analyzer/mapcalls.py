"""Syntax of maps, meshes and control flow -> engine map boundaries.

xmap / vmap / shard_map construction and calls, `Mesh` / `jax.make_mesh` / PartitionSpec values,
and lax.scan / fori_loop / while_loop / cond. The rules themselves live in engine/maps.py.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import libcst as cst

from namedcheck.analyzer import carries, devices, mapargs, origins, placements, shard_map, widths
from namedcheck.analyzer.mapargs import POSITIONAL_PARAMS, Fail, at, lit, param_node, rebuild, required_positional
from namedcheck.analyzer.refs import DevicesVal, FuncRef, InstanceRef, MappedRef, MeshVal, QualRef
from namedcheck.analyzer.scope import FrameState as Frame
from namedcheck.analyzer.scope import label
from namedcheck.engine import maps, placement
from namedcheck.engine.codes import NC401, NC402, NC403, NC405, NC602, NC809, NC823
from namedcheck.engine.devices import check_mesh_shape, check_pmap_size
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import MeshInfo, Spec
from namedcheck.engine.signature import NORMAL, POSONLY, as_array
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, DimVal, NotLiteral, Seq, dim_of

XMAP = {"jax.experimental.maps.xmap", "namedcheck.xmap", "namedcheck.runtime.xmap.xmap"}
SHARD_MAP = {"jax.shard_map", "jax.experimental.shard_map.shard_map", "jax._src.shard_map.shard_map"}
MESH = {"jax.sharding.Mesh", "jax.experimental.maps.Mesh", "jax._src.mesh.Mesh", "jax.interpreters.pxla.Mesh"}
SPEC = {
    "jax.sharding.PartitionSpec",
    "jax.P",
    "jax.experimental.PartitionSpec",
    "jax.experimental.pjit.PartitionSpec",
    "jax._src.partition_spec.PartitionSpec",
}
DEVICES = {"jax.devices", "jax.local_devices"}
SET_MESH = {"jax.set_mesh", "jax.sharding.set_mesh", "jax.sharding.use_mesh", "jax.experimental.mesh_utils.use_mesh"}
CONTROL = {"jax.lax.scan", "jax.lax.fori_loop", "jax.lax.while_loop", "jax.lax.cond", "jax.lax.switch"}


def _static_int(v: Any) -> Any:
    try:
        return dim_of(v)
    except NotLiteral:
        return None


def construct(f: Frame, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """Values built by map constructors, meshes, specs and device lists; NotImplemented otherwise."""
    kind = (
        "xmap"
        if name in XMAP
        else "shard_map"
        if name in SHARD_MAP
        else "vmap"
        if name == "jax.vmap"
        else "pmap"
        if name == "jax.pmap"
        else None
    )
    if kind is not None:
        params = dict(kw)
        for i, key in enumerate(POSITIONAL_PARAMS[kind]):
            if len(pos) > i + 1:
                params[key] = pos[i + 1]
        ref = MappedRef(kind, pos[0] if pos else None, params, node)
        if isinstance(ref.func, MappedRef):
            ref.func.wrapped = True  # its body runs inside this map too
        if ref.func is not None:
            define(f, ref)
        return ref
    if name in DEVICES:
        if pos or kw:  # another backend's devices
            return DevicesVal((None,))
        return DevicesVal((devices.count(f.an),), every=name == "jax.devices")
    if name == "jax.experimental.mesh_utils.create_device_mesh":
        shape = lit(pos[0] if pos else kw.get("mesh_shape"))
        every = len(pos) < 2 and "devices" not in kw  # all devices, and JAX checks their number
        if every and isinstance(shape, tuple):
            _fits(f, node, shape, True, "create_device_mesh's")
        devs = DevicesVal(tuple(shape) if isinstance(shape, tuple) else (None,), every)
        note_device_count(f, devs)
        return devs
    if name in ("jax.numpy.array", "jax.numpy.asarray") and pos and isinstance(pos[0], DevicesVal):
        return pos[0]
    if name in MESH or name == "jax.make_mesh":
        given = pos[0] if pos and name in MESH else kw.get("devices")
        if isinstance(given, DevicesVal):
            note_device_count(f, given)
        if name == "jax.make_mesh" and "devices" not in kw:
            shape = lit(pos[0] if pos else kw.get("axis_shapes"))
            if isinstance(shape, tuple):
                _fits(f, node, shape, False, "jax.make_mesh's")
        return _mesh(name, pos, kw)
    if name in SPEC:
        spec = _spec(pos, kw)
        return replace(spec, origin=origins.Written(node)) if isinstance(spec, Spec) else spec
    if name in SET_MESH:
        if f.parent is not None:
            f.an.sets_mesh = True
        if pos and isinstance(pos[0], MeshVal):
            f.env = replace(f.env, mesh=pos[0].info, mesh_set=True)  # also the context manager's value
            return pos[0]
        return UNKNOWN
    if name in CONTROL:
        return control_flow(f, name, pos, kw, node)
    return placements.construct(f, name, pos, kw, node)  # the sharding API (analyzer/placements.py)


def _mesh(name: str, pos: list[Any], kw: dict[str, Any]) -> Any:
    if name == "jax.make_mesh":
        shape = lit(pos[0] if pos else kw.get("axis_shapes"))
        names = lit(pos[1] if len(pos) > 1 else kw.get("axis_names"))
    else:
        devs = pos[0] if pos else kw.get("devices")
        names = lit(pos[1] if len(pos) > 1 else kw.get("axis_names"))
        shape = devs.shape if isinstance(devs, DevicesVal) else None
    if isinstance(names, str):
        names = (names,)
    if not isinstance(names, tuple) or not all(isinstance(n, str) for n in names):
        return UNKNOWN
    if not isinstance(shape, tuple) or len(shape) != len(names):
        shape = (None,) * len(names)
    types_v = pos[2] if len(pos) > 2 else kw.get("axis_types")
    # jax.make_mesh makes Explicit axes by default, Mesh(...) Auto ones
    types = (
        _axis_types(types_v, len(names))
        if types_v is not None
        else ("explicit" if name == "jax.make_mesh" else "auto",) * len(names)
    )
    return MeshVal(MeshInfo(tuple(zip(names, shape)), types=types))


AXIS_TYPES = {"Explicit": "explicit", "Auto": "auto", "Manual": "manual"}


def _axis_types(v: Any, n: int) -> tuple[str, ...] | None:
    """`axis_types=(AxisType.Explicit, AxisType.Auto)` (or one AxisType for every axis) as type names."""
    items = v.items if isinstance(v, Seq) else (v,) * n
    out = tuple(AXIS_TYPES.get(i.name.rpartition(".")[2]) if isinstance(i, QualRef) else None for i in items)
    return out if len(out) == n and None not in out else None  # type: ignore[return-value]


def _spec(pos: list[Any], kw: dict[str, Any] | None = None) -> Any:
    sets: dict[str, frozenset[str]] = {}
    for key, v in (kw or {}).items():  # `unreduced={'x'}`, `reduced={'y'}`
        axes = lit(v, default=UNKNOWN)
        if (
            key not in ("unreduced", "reduced")
            or not isinstance(axes, tuple)
            or not all(isinstance(a, str) for a in axes)
        ):
            return UNKNOWN
        sets[key] = frozenset(axes)
    entries: list[tuple[str, ...] | None] = []
    for p in pos:
        v = lit(p, default=UNKNOWN)
        if v is None:
            entries.append(None)
        elif isinstance(v, str):
            entries.append((v,))
        elif isinstance(v, tuple) and all(isinstance(a, str) for a in v):
            entries.append(v)
        else:
            return UNKNOWN
    return Spec(tuple(entries), sets.get("unreduced", frozenset()), sets.get("reduced", frozenset()))


def _fits(f: Frame, node: cst.CSTNode, shape: tuple[Any, ...], exact: bool, what: str) -> None:
    """A mesh shape laid out over the run's devices against the count the run states (NC505)."""
    if not all(isinstance(d, int) and not isinstance(d, bool) for d in shape):
        return
    try:
        check_mesh_shape(shape, devices.configured(f.an), exact, what)
    except RuleError as e:
        f.report(node, e)


def devices_reshaped(v: DevicesVal, out: Any) -> DevicesVal:
    """An array of devices after a reshape, from the reshape rule's result (which solved a -1 and checked the
    sizes against the device count): its shape, or unknown where the rule failed."""
    if isinstance(out, ArrayType) and not out.has_ellipsis:
        return DevicesVal(out.shape, v.every)
    return DevicesVal((None,), v.every)


def note_device_count(f: Frame, devs: DevicesVal) -> None:
    """All the devices laid out in a static shape by straight-line module code: the run has that many
    devices (JAX raises otherwise), so `jax.device_count()` is known. Conflicting layouts: unknown."""
    total: int | None = 1
    for d in devs.shape:
        total = total * d if isinstance(d, int) and isinstance(total, int) else None
    note = getattr(f.an, "note_device_count", None)
    if (
        devs.every
        and total is not None
        and f.parent is None
        and not f.cond_depth
        and not f.skip_depth
        and note is not None
    ):
        note(total)


def device_count(f: Frame) -> Any:
    """`jax.device_count()`: the count the run states, or that module code laid out, else the symbol `ndev`."""
    return devices.count_value(f.an)


# ---- calling a mapped function ---------------------------------------------------------------------


def call_mapped(f: Frame, ref: MappedRef, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    if ref.func is None:  # used as a decorator factory: `shard_map(mesh=..., ...)(f)`
        if len(pos) == 1 and not kw:
            mapped = MappedRef(ref.kind, pos[0], ref.params, ref.node)
            define(f, mapped)
            return mapped
        return UNKNOWN
    if kw and ref.kind not in ("vmap", "pmap"):
        return UNKNOWN  # xmap and shard_map take positional arguments
    try:
        if ref.kind == "xmap":
            return _call_xmap(f, ref, pos, node)
        if ref.kind in ("vmap", "pmap"):
            try:
                return _call_vmap(f, ref, pos, kw, node)
            except Fail as e:
                raise Fail(e.node, _relate_vmap(ref, e.err, node)) from None
        return shard_map.call(f, ref, pos, node)
    except Fail as e:
        f.report(e.node, e.err)
        return UNKNOWN


def _call_xmap(f: Frame, ref: MappedRef, pos: list[Any], node: cst.CSTNode) -> Any:
    p = ref.params
    in_axes = lit(p.get("in_axes"), default=UNKNOWN)
    out_axes = lit(p.get("out_axes"), default=UNKNOWN)
    if in_axes is UNKNOWN or out_axes is UNKNOWN or _has_pytree_dict(in_axes) or _has_pytree_dict(out_axes):
        return UNKNOWN  # dict prefixes of pytree arguments are not modelled
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    args = Seq(tuple(pos))
    leaves = at(
        param_node(ref, "in_axes"),
        maps.match_prefix,
        in_axes if not maps.is_axis_mapping(in_axes) or len(pos) != 1 else (in_axes,),
        args,
        maps.is_axis_mapping,
        "the arguments",
        NC401,
        "xmap in_axes",
    )
    mappings = [(at(param_node(ref, "in_axes"), maps.parse_mapping, s, w), v, w) for s, v, w in leaves]
    sizes: dict[str, tuple[Any, str]] = {}
    locals_: list[Any] = []
    for m, v, w in mappings:
        if isinstance(v, ArrayType) and not v.has_ellipsis:
            locals_.append(at(node, maps.xmap_in, v, m, w, sizes, f.env))
        else:
            at(param_node(ref, "in_axes"), maps.check_not_rebound, [n for _, n in m.pairs], f.env, w)
            for _, n in m.pairs:
                sizes.setdefault(n, (None, w))
            locals_.append(UNKNOWN)
    axis_sizes = lit(p.get("axis_sizes"), default=None) or {}
    if isinstance(axis_sizes, dict):
        at(param_node(ref, "axis_sizes"), maps.check_not_rebound, list(axis_sizes), f.env, "axis_sizes")
        at(node, maps.add_axis_sizes, sizes, axis_sizes)
    own = {n: s for n, (s, _) in sizes.items()}
    resources_raw = lit(p.get("axis_resources"), default=None) or {}
    resources = (
        {n: (r,) if isinstance(r, str) else tuple(r) for n, r in resources_raw.items()}
        if isinstance(resources_raw, dict)
        else {}
    )
    at(param_node(ref, "axis_resources"), maps.check_resources, resources, own, f.env.mesh)
    env = f.env.with_names(own, resources)
    for v in locals_:
        at(node, maps.check_cooccurrence, v, env)
    rebuilt = rebuild(pos, locals_)
    result = f.call_value(ref.func, rebuilt, {}, [None] * len(rebuilt), {}, node, env=env, as_map_body=True)
    if result is UNKNOWN:
        return UNKNOWN
    out_leaves = at(
        param_node(ref, "out_axes"),
        maps.match_prefix,
        out_axes,
        result,
        maps.is_axis_mapping,
        "the result",
        NC401,
        "xmap out_axes",
    )
    outs = []
    for s, v, w in out_leaves:
        m = at(param_node(ref, "out_axes"), maps.parse_mapping, s, w)
        outs.append(
            at(param_node(ref, "out_axes"), maps.xmap_out, v, m, own, w) if isinstance(v, ArrayType) else UNKNOWN
        )
    return maps.rebuild_from_leaves(result, outs)


def define(f: Frame, ref: MappedRef) -> None:
    """A map's body analysed where the map is written, before any call: shard_map from its specs;
    vmap / pmap with an axis_name for the collectives over names (their shapes need a call)."""
    if ref.kind == "shard_map":
        shard_map.define(f, ref)
        return
    if ref.kind == "xmap":
        _define_xmap(f, ref)
        return
    if (
        ref.kind not in ("vmap", "pmap")
        or not isinstance(ref.func, FuncRef)
        or (f.parent is not None and not f.env.definitive)
    ):
        return  # inside a function analysed on its own, an enclosing map may bind more names
    axis_name = lit(ref.params.get("axis_name", Const(None)), default=UNKNOWN)
    n = required_positional(ref.func)
    if not isinstance(axis_name, str) or axis_name in dict(f.env.named) or n is None:
        return
    args = [UNKNOWN] * n
    env = f.env.with_names({axis_name: None})
    env = env if env.origin is not None else replace(env, origin=ref)
    # an axis name the body uses that this map does not bind waits for the map's calls: the map may yet run
    # inside another that binds it (`@partial(vmap, axis_name='i')` over `@partial(vmap, axis_name='j')`,
    # `vmap(vmap(f, axis_name='j'), axis_name='i')`); a map that is called says so there
    owner = f.nc705_owner
    f.nc705_owner = owner if f.function is not None or owner is not None else ref
    try:
        f.call_value(ref.func, args, {}, [None] * n, {}, ref.node, env=env, as_map_body=True)
    finally:
        f.nc705_owner = owner


def _define_xmap(f: Frame, ref: MappedRef) -> None:
    """NC405 / NC406 where the xmap is written (jax 0.4.30 raised them before any call)."""
    p = ref.params
    in_axes = lit(p.get("in_axes"), default=UNKNOWN)
    out_axes = lit(p.get("out_axes"), default=UNKNOWN)
    axis_sizes = lit(p.get("axis_sizes"), default=None) if "axis_sizes" in p else {}
    resources = lit(p.get("axis_resources"), default=None) if "axis_resources" in p else {}
    if UNKNOWN in (in_axes, out_axes) or not isinstance(axis_sizes, dict) or not isinstance(resources, dict):
        return
    try:
        maps.check_xmap_written(in_axes, out_axes, axis_sizes, resources)
    except RuleError as e:
        f.report(param_node(ref, "out_axes" if e.code == NC405 else "axis_resources"), e)


def _has_pytree_dict(spec: Any) -> bool:
    """A dict that is a pytree node (string keys), not an axis mapping ({int: name})."""
    if isinstance(spec, dict):
        return not maps.is_axis_mapping(spec) or any(_has_pytree_dict(v) for v in spec.values())
    if isinstance(spec, (tuple, list)):
        return any(_has_pytree_dict(v) for v in spec)
    return False


def _call_vmap(f: Frame, ref: MappedRef, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    p = ref.params
    in_axes = lit(p.get("in_axes", Const(0)), default=UNKNOWN)
    out_axes = lit(p.get("out_axes", Const(0)), default=UNKNOWN)
    axis_name = lit(p.get("axis_name", Const(None)), default=UNKNOWN)
    if UNKNOWN in (in_axes, out_axes, axis_name) or (isinstance(in_axes, dict) and ref.kind == "pmap"):
        return UNKNOWN
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    static = mapargs.static_positions(ref, len(pos))
    if static is None:
        return UNKNOWN
    if static:  # pmap's static_broadcasted_argnums: passed as they are (hashable), in_axes over the others
        at(node, mapargs.check_static_hashable, pos, static)
        dynamic = [i for i in range(len(pos)) if i not in static]
        if isinstance(in_axes, tuple) and len(in_axes) == len(dynamic) != len(pos):
            entries = dict(zip(dynamic, in_axes))
            in_axes = tuple(entries.get(i) for i in range(len(pos)))
        elif isinstance(in_axes, tuple) and len(in_axes) != len(pos):
            return UNKNOWN
    per_arg = at(param_node(ref, "in_axes"), maps.vmap_axes_per_arg, in_axes, len(pos), ref.kind)
    per_arg = tuple(None if i in static else a for i, a in enumerate(per_arg))
    at(node, mapargs.check_arity, ref, len(pos), kw)
    at(node, mapargs.check_jax_types, f, ref, pos, per_arg, static)
    axis_size = lit(p.get("axis_size", Const(None)), default=UNKNOWN)
    if ref.kind == "vmap":
        at(param_node(ref, "in_axes"), maps.check_vmap_size_known, per_arg + (0,) * len(kw), axis_size)
    sizes: list[tuple[Any, str]] = []
    locals_: list[Any] = []
    for i, (ax, v) in enumerate(zip(per_arg, pos)):
        try:
            locals_.append(maps.vmap_in_spec(v, ax, f"argument {i}", sizes, ref.kind))
        except RuleError as e:  # a structure mismatch is in_axes' own; a size or rank the argument's
            raise Fail(param_node(ref, "in_axes") if e.code == NC401 else node, e) from None
    # keyword arguments are always mapped over their leading axis (in_axes covers positional ones only)
    kw_locals = {
        k: at(node, maps.vmap_in_tree, v, 0, f"keyword argument {k!r}", sizes, ref.kind) for k, v in kw.items()
    }
    if ref.kind == "vmap":
        at(node, maps.check_axis_size, sizes, axis_size)
    size = next((s for s, _ in sizes if s is not None), None)
    if ref.kind == "pmap" and "devices" not in p:
        at(node, check_pmap_size, size, devices.count(f.an))
    if size is None and ref.kind == "vmap" and isinstance(axis_size, int) and not isinstance(axis_size, bool):
        size = axis_size
    env = f.env
    if isinstance(axis_name, str):
        # (a vmap / pmap may bind a name an enclosing map binds: inside, the name is the inner map's axis, as
        # JAX shadows it; only xmap refused that, NC407)
        env = env.with_names({axis_name: size})
        env = env if env.origin is not None else replace(env, origin=ref)
        locals_ = _named_views(f, ref.func, locals_, per_arg, axis_name, size)
    elif axis_name is None:  # binds no name: a collective inside uses the caller's names or none
        env = mapargs.traced_env(f, ref)
    else:  # another kind of name (a tuple): what it binds is not modelled
        env = replace(env, definitive=False)
    result = f.call_value(ref.func, locals_, kw_locals, [None] * len(locals_), {}, node, env=env, as_map_body=True)
    if result is UNKNOWN:
        return UNKNOWN
    mapped_locals = [a for a, m in zip(locals_, per_arg) if m is not None] + list(kw_locals.values())

    def out(v: Any, ax: Any) -> Any:
        if not isinstance(v, ArrayType) or not (ax is None or isinstance(ax, int)):
            return UNKNOWN
        if ref.kind == "vmap":  # the body returns a mapped argument itself: proven mapped
            at(
                param_node(ref, "out_axes"),
                maps.check_unmapped_output,
                any(v is a for a in mapped_locals),
                ax,
            )
        if isinstance(axis_name, str) and axis_name in v.named_shape:
            v = v.with_named({n: s for n, s in v.named if n != axis_name})
        return at(ref.node, maps.vmap_out, v, ax, size)

    if isinstance(result, Seq) and isinstance(out_axes, tuple):  # one entry per item of a tuple result
        if result.kind == "dict" or len(out_axes) != len(result.items):
            return UNKNOWN
        return Seq(
            tuple(maps.map_leaves(v, lambda leaf, a=a: out(leaf, a)) for v, a in zip(result.items, out_axes)),
            result.kind,
        )
    return maps.map_leaves(result, lambda leaf: out(leaf, out_axes))


def _relate_vmap(ref: MappedRef, e: RuleError, call: cst.CSTNode) -> RuleError:
    """An error about a vmap / pmap's arguments names the arguments involved and where the map is written."""
    if e.code == NC403 and isinstance(call, cst.Call):
        what = e.data.get("other_arg")
        if what == "axis_size":
            e.relate(param_node(ref, "axis_size"), f"axis_size={e.data.get('other')}")
        arg = mapargs.argument_node(call, what) if isinstance(what, str) else None
        if arg is not None:
            e.relate(arg, f"{what}, mapped with size {e.data.get('other')}")
    fn = getattr(ref.func, "node", None)
    if e.code == NC402 and "parameters" in e.data and isinstance(fn, cst.FunctionDef):
        e.relate(fn.name, f"{fn.name.value} takes {', '.join(e.data['parameters']) or 'no parameters'}")
    if e.code in (NC402, NC403) and ref.node is not getattr(call, "func", None):
        where = param_node(ref, "in_axes")
        e.relate(where, f"in_axes of this {ref.kind}" if where is not ref.node else f"the {ref.kind} is written here")
    return e


def _named_views(
    f: Frame, func: Any, locals_: list[Any], per_arg: tuple[Any, ...], axis_name: str, size: Any
) -> list[Any]:
    """The mapped arguments as the body's annotations read them: with vmap's axis as a named axis where
    the parameter declares it."""
    signature = getattr(f.an, "signature", None)
    if not isinstance(func, FuncRef) or signature is None:
        return locals_
    params = [p for p in signature(func).params if p.kind in (POSONLY, NORMAL)]
    return [
        maps.vmap_named_view(v, axis_name, size, params[i].annotation) if isinstance(ax, int) and i < len(params) else v
        for i, (v, ax) in enumerate(zip(locals_, per_arg))
    ]


# ---- control flow (NC602) ----------------------------------------------------------------------------


def control_flow(f: Frame, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    # traced: numpy's float64 arrays are float32 inside and out (without x64)
    pos = [widths.traced(v, f.env) for v in pos]
    kw = {k: widths.traced(v, f.env) for k, v in kw.items()}

    def arg(i: int, key: str, default: Any = UNKNOWN) -> Any:
        return pos[i] if len(pos) > i else kw.get(key, default)

    def body(fn: Any, *args: Any) -> Any:
        return f.call_value(fn, list(args), {}, [None] * len(args), {}, node, as_map_body=True)

    short = name.replace("jax.lax.", "lax.")
    ign = maps.size_one_axes(f.env)  # `jax_remove_size_one_mesh_axis_from_type`: size-1 axes do not vary
    try:
        if name == "jax.lax.scan":
            init, xs = arg(1, "init"), arg(2, "xs", Const(None))
            length = _static_int(arg(3, "length", Const(None)))
            try:
                placement.check_scan_xs(xs, short)
            except RuleError as e:
                raise origins.relate_placements(e, [(None, maps.tree_leaves(xs)[e.data.get("leaf", 0)])]) from None
            x = Const(None) if isinstance(xs, Const) and xs.value is None else maps.scan_slice(xs)
            out = body(arg(0, "f"), carried(init), x)  # (the body sees a traced carry, not the Python number)
            if not (isinstance(out, Seq) and len(out.items) == 2):
                return UNKNOWN
            if not carries.check(f, short, init, out.items[0], arg(0, "f"), node, len(pos)):
                maps.check_carry(maps.drop_varying(init, ign), maps.drop_varying(out.items[0], ign), short)
            first = next((v for v, _ in maps.seq_leaves(xs, "xs") if isinstance(v, ArrayType)), None)
            n = (
                length
                if length is not None
                else (first.shape[0] if first is not None and first.shape and not first.has_ellipsis else None)
            )
            return Seq((carried(init), maps.scan_stack(out.items[1], n)))
        if name == "jax.lax.fori_loop":
            init = arg(3, "init_val")
            out = body(arg(2, "body_fun"), ArrayType.make("i*", ()), carried(init))  # the index: a weak int32
            if not carries.check(f, short, init, out, arg(2, "body_fun"), node, len(pos)):
                maps.check_carry(maps.drop_varying(init, ign), maps.drop_varying(out, ign), short)
            return carried(init)
        if name == "jax.lax.while_loop":
            init = arg(2, "init_val")
            carries.check_cond(f, short, body(arg(0, "cond_fun"), carried(init)), arg(0, "cond_fun"), node)
            out = body(arg(1, "body_fun"), carried(init))
            if not carries.check(f, short, init, out, arg(1, "body_fun"), node, len(pos)):
                maps.check_carry(maps.drop_varying(init, ign), maps.drop_varying(out, ign), short)
            return carried(init)
        if name == "jax.lax.cond":
            ops = pos[3:]
            outs = [body(fn, *ops) for fn in (arg(1, "true_fun"), arg(2, "false_fun"))]
            if UNKNOWN in outs:
                return UNKNOWN
            _check_branches([maps.drop_varying(o, ign) for o in outs], short)
            return outs[0] if outs[0] == outs[1] else UNKNOWN
        if name == "jax.lax.switch":
            branches = arg(1, "branches")
            if not isinstance(branches, Seq):
                return UNKNOWN
            outs = [body(fn, *pos[2:]) for fn in branches.items]
            if UNKNOWN in outs or not outs:  # no branches: JAX raises ValueError, not a sharding rule
                return UNKNOWN
            _check_branches([maps.drop_varying(o, ign) for o in outs], short)
            return outs[0] if all(o == outs[0] for o in outs) else UNKNOWN
    except RuleError as e:
        if e.data.get("kind") in ("init", "body") or e.code == NC809:
            _relate_init(e, node, short, arg(*_INIT[short]) if short in _INIT else None)
        f.report(node, shard_map.name_origin(f, e) if e.code == NC602 else e)
    return UNKNOWN


def carried(v: Any) -> Any:
    """What a loop's carry holds once the loop ran (scan, fori_loop, while_loop): the initial value's type, not
    its value. A Python number (or an int of known size) there is a weak 0-d array afterwards, whose value the
    iterations changed; arrays keep their types; tuples, lists, dicts and built instances part by part."""
    if isinstance(v, Const) and isinstance(v.value, bool | int | float | complex):
        return as_array(v)
    if isinstance(v, DimVal):
        return as_array(v)
    if isinstance(v, Seq):
        if v.kind == "dict":
            return Seq(
                tuple(
                    Seq((i.items[0], carried(i.items[1])), i.kind) if isinstance(i, Seq) and len(i.items) == 2 else i
                    for i in v.items
                ),
                v.kind,
            )
        return Seq(tuple(carried(i) for i in v.items), v.kind)
    if isinstance(v, InstanceRef) and v.values is not None:
        return InstanceRef(v.cls, tuple((k, carried(x)) for k, x in v.values))
    return v


def _check_branches(outs: list[Any], short: str) -> None:
    """Branch outputs must agree; NC823 names the placements of the outputs that differ."""
    try:
        maps.check_branches(outs, short)
    except RuleError as e:
        i, branches = e.data.get("output"), e.data.get("branches")
        if e.code == NC823 and isinstance(i, int) and isinstance(branches, list):
            origins.relate_placements(e, [(f"branch {b}'s output", maps.tree_leaves(outs[b])[i]) for b in branches])
        if e.code == NC602 and isinstance(i, int):  # where the other branches' output starts varying
            for out in outs:
                leaf = maps.tree_leaves(out)[i]
                for axis in e.data.get("axes", ()):
                    started = origins.started_varying(leaf, axis) if isinstance(leaf, ArrayType) else None
                    if started is not None:
                        e.relate(*started)
        raise


_INIT = {"lax.scan": (1, "init"), "lax.fori_loop": (3, "init_val"), "lax.while_loop": (2, "init_val")}


def _relate_init(e: RuleError, node: cst.CSTNode, op: str, init: Any) -> None:
    """A carry error names the carry's initial value (the item of a tuple written out) and, for a sharding
    change, the placement that gave it its sharding."""
    where = _INIT.get(op)
    if where is None or not isinstance(node, cst.Call):
        return
    arg = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == where[1]), None)
    positional = [a for a in node.args if a.keyword is None and not a.star]
    if arg is None and where[0] < len(positional):
        arg = positional[where[0]].value
    item = e.data.get("carry_item")
    leaves = maps.tree_leaves(init) if init is not None else []
    if isinstance(item, int):
        leaf = leaves[item] if item < len(leaves) else None
        if (
            isinstance(arg, cst.Tuple | cst.List)
            and len(arg.elements) == len(leaves)
            and not any(isinstance(x, cst.StarredElement) for x in arg.elements)
        ):
            arg = arg.elements[item].value
        what = f"carry item {item}'s initial value"
    else:
        leaf, what = (leaves[0] if len(leaves) == 1 else None), "the carry's initial value"
    if e.code == NC809 and leaf is not None:
        origins.relate_placements(e, [(label(arg) if arg is not None else None, leaf)])
    if arg is not None:
        e.relate(arg, what)


__all__ = ["construct", "call_mapped", "control_flow", "devices_reshaped"]


# ---- loop resources ---------------------------------------------------------------------------------


def serial_loop_axes(f: Frame, node: cst.BaseExpression) -> list[tuple[str | None, Any]]:
    """`with serial_loop('l', 4):` (namedcheck's or jax.experimental.maps'): the loop resource it
    defines, as (name, length); a name that is not a literal is None."""
    if not isinstance(node, cst.Call) or not node.args:
        return []
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    if name != "serial_loop":
        return []
    axis = lit(f.ev(node.args[0].value), default=None)
    size = lit(f.ev(node.args[1].value), default=None) if len(node.args) > 1 else None
    return [(axis if isinstance(axis, str) else None, size if isinstance(size, int) else None)]


def with_loops(mesh: MeshInfo | None, loops: list[tuple[str | None, Any]]) -> MeshInfo:
    """The resources in scope inside `with serial_loop(...)`: the mesh's axes and the loops (open when
    no mesh is known here, so axis_resources naming a mesh entered elsewhere stay unproven)."""
    known = tuple((n, s) for n, s in loops if n is not None)
    is_open = mesh is None or mesh.open or any(n is None for n, _ in loops)
    return MeshInfo((mesh.axes if mesh is not None else ()) + known, open=is_open)
