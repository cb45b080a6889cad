"""Syntax of the modern sharding API -> the engine's spec rule (engine/placement.py).

`NamedSharding(mesh, P(...))` (and a bare `P(...)` under the mesh in scope) becomes a `ShardingVal`;
`jax.device_put`, `jax.lax.with_sharding_constraint`, `jax.sharding.reshard`, creation ops' `device=` /
`out_sharding=` and `jax.jit(f, in_shardings=, out_shardings=)` check each spec against the mesh and the
value it places, and give the value the spec (`ArrayType.spec`). What each API accepts follows the
installed JAX: `with_sharding_constraint` pads uneven dimensions under jit, `reshard` and creation ops
accept extra trailing None entries, and a creation op's `device=` pads under jit (so do `linspace`'s, always).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, replace
from typing import Any

import libcst as cst

from namedcheck.analyzer import origins
from namedcheck.analyzer.mapargs import keyword_arg
from namedcheck.analyzer.refs import FuncRef, JitRef, MeshVal, ShardingVal
from namedcheck.analyzer.scope import FrameState as Frame
from namedcheck.analyzer.scope import label
from namedcheck.engine import maps, placement
from namedcheck.engine.codes import NC807, NC808
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import Spec
from namedcheck.engine.mesh import MeshInfo
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, Seq

NAMED_SHARDING = {
    "jax.sharding.NamedSharding",
    "jax.NamedSharding",
    "jax._src.named_sharding.NamedSharding",
    "jax._src.sharding_impls.NamedSharding",
}
JIT = {"jax.jit", "jax.experimental.pjit.pjit"}
DEVICE_PUT = {"jax.device_put"}
CONSTRAINT = {
    "jax.lax.with_sharding_constraint",
    "jax.experimental.pjit.with_sharding_constraint",
    "equinox.filter_shard",  # with_sharding_constraint on the array leaves
}
RESHARD = {"jax.reshard", "jax.sharding.reshard"}
CREATION = {
    f"jax.numpy.{n}"
    for n in (
        "zeros",
        "ones",
        "empty",
        "full",
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "arange",
        "eye",
        "array",
        "asarray",
    )
}
SHARDING_KEYWORDS = ("in_shardings", "out_shardings")
AXES_SCOPES = {f"jax.{m}.{n}_axes" for m in ("sharding", "_src.pjit") for n in ("auto", "explicit")}
# creation ops whose result under `jax.set_mesh` of an Explicit mesh is replicated (`*_like` keep their input's)
REPLICATED_UNDER_SET_MESH = {
    f"jax.numpy.{n}" for n in ("zeros", "ones", "empty", "full", "arange", "eye", "array", "asarray")
} | {"jax.random.normal", "jax.random.uniform"}


@dataclass(frozen=True, slots=True)
class _How:
    """What one API accepts: uneven dimensions are an error (`divisible`), extra trailing None entries
    are not (`trailing_none_ok`)."""

    divisible: bool = True
    trailing_none_ok: bool = False
    asserts: bool = False  # with_sharding_constraint: over Explicit axes an assertion (NC807)
    committed: bool = False  # jit in_shardings on concrete (module-level) arguments: must match theirs (NC808)
    size_one: bool = False  # `jax_remove_size_one_mesh_axis_from_type` may be on: size-1 axes leave the type


STRICT = _How()


def _flags(f: Frame, how: _How) -> _How:
    """What the JAX configuration in force here changes in placing values."""
    return replace(how, size_one=True) if f.env.flag(maps.REMOVE_SIZE_ONE) is not False else how


def construct(f: Frame, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """Shardings, placements and jit with shardings; NotImplemented for every other call."""
    if name in NAMED_SHARDING:
        return _named_sharding(pos, kw, node, f)
    if name in JIT:
        return _jit(f, pos, kw, node)
    if name in DEVICE_PUT | RESHARD | CONSTRAINT and _bare_spec_without_mesh(f, name, pos, kw, node):
        return UNKNOWN
    if name in DEVICE_PUT:
        return _placement(f, pos, kw, ("x", "device"), node, "jax.device_put", STRICT)
    if name in CONSTRAINT:
        # under jit it pads an uneven dimension; only module-level code surely runs eagerly
        how = _How(divisible=f.parent is None or f.env.eager, asserts=True)
        key = "device_or_shardings" if name == "equinox.filter_shard" else "shardings"
        raw = pos[1] if len(pos) > 1 else kw.get(key)
        _check_axis_types(f, raw, node, "with_sharding_constraint")
        return _placement(f, pos, kw, ("x", key), node, "with_sharding_constraint", how)
    if name in RESHARD:
        _check_axis_types(f, pos[1] if len(pos) > 1 else kw.get("out_shardings"), node, "reshard")
        return _placement(f, pos, kw, ("xs", "out_shardings"), node, "reshard", _How(trailing_none_ok=True))
    if name in AXES_SCOPES and pos:
        return _axes_scope(f, name, pos, kw, node)
    if name in CREATION or name.startswith("jax.random."):
        return _creation(f, name, pos, kw, node)
    return NotImplemented


def states_shardings(kwargs: Any) -> bool:
    """Whether a `partial(jax.jit, ...)` decorator states in_shardings / out_shardings."""
    return any(k in SHARDING_KEYWORDS for k, _ in kwargs)


# ---- sharding values ---------------------------------------------------------------------------------


def _named_sharding(pos: list[Any], kw: dict[str, Any], node: cst.CSTNode, f: Frame) -> Any:
    mesh_v = pos[0] if pos else kw.get("mesh")
    spec = pos[1] if len(pos) > 1 else kw.get("spec")
    if not isinstance(spec, Spec):
        return UNKNOWN
    mesh = mesh_v.info if isinstance(mesh_v, MeshVal) else None
    try:  # JAX checks the axes when the NamedSharding is built
        placement.check_mesh_axes(spec, mesh, "NamedSharding")
        placement.check_repeats(spec, "NamedSharding")
    except RuleError as e:
        f.report(node, e)
        return UNKNOWN
    return ShardingVal(mesh, spec, origins.Written(node))


def _tree(f: Frame, v: Any) -> Any:
    """A pytree of shardings: ShardingVal leaves (a bare spec takes the mesh in scope), None where
    unconstrained, UNKNOWN where not known; Seq containers."""
    if v is None or (isinstance(v, Const) and v.value is None):
        return None
    if isinstance(v, ShardingVal):
        return v
    if isinstance(v, Spec):
        return ShardingVal(f.env.mesh, v)
    if isinstance(v, Seq):
        if v.kind == "dict":
            items = tuple(
                Seq((p.items[0], _tree(f, p.items[1])), "tuple")
                if isinstance(p, Seq) and len(p.items) == 2
                else UNKNOWN
                for p in v.items
            )
            return UNKNOWN if UNKNOWN in items else Seq(items, "dict")
        return Seq(tuple(_tree(f, i) for i in v.items), v.kind)
    return UNKNOWN


def _sharding_leaves(tree: Any) -> list[ShardingVal]:
    if isinstance(tree, ShardingVal):
        return [tree]
    if isinstance(tree, Seq):
        return [s for i in tree.items for s in _sharding_leaves(i.items[1] if tree.kind == "dict" else i)]
    return []


def _is_sharding_tree(v: Any) -> bool:
    return v is None or bool(_sharding_leaves(v))


def _unknown_target(tree: Any) -> bool:
    """A sharding tree with a part the checker cannot evaluate (a spec from a parameter, a device, a
    `.sharding` it does not know)."""
    if tree is None or isinstance(tree, ShardingVal):
        return False
    if isinstance(tree, Seq):
        return any(_unknown_target(i.items[1] if tree.kind == "dict" and isinstance(i, Seq) else i) for i in tree.items)
    return True


def forget_sharding(v: Any) -> Any:
    """A value (a pytree of arrays) whose sharding is no longer known: Unknown stays unknown, never the
    input's."""
    if isinstance(v, ArrayType):
        return v.with_spec(None).with_sharding(None)
    if isinstance(v, Seq):
        if v.kind == "dict":
            return Seq(
                tuple(
                    Seq((p.items[0], forget_sharding(p.items[1])), "tuple") if isinstance(p, Seq) else p
                    for p in v.items
                ),
                "dict",
            )
        return Seq(tuple(forget_sharding(i) for i in v.items), v.kind)
    return v


# ---- which mesh axes a sharding API may name ---------------------------------------------------------


_MAY_SET_MESH: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()
_SETS_MESH_WORDS = ("set_mesh", "use_mesh", "use_abstract_mesh", "sharding_impls")


def may_set_mesh(f: Frame) -> bool:
    """Whether the module's text may set a context mesh anywhere (`jax.set_mesh`, `use_mesh`, ...)."""
    an: Any = f.an
    try:
        return _MAY_SET_MESH[an]
    except (KeyError, TypeError):
        pass
    source = getattr(an, "source", None)
    module = getattr(an, "module", None)
    text = source if isinstance(source, str) else module.code if module is not None else None
    found = text is None or any(w in text for w in _SETS_MESH_WORDS)
    try:
        _MAY_SET_MESH[an] = found
    except TypeError:  # pragma: no cover - an analyzer that takes no weak reference
        pass
    return found


def context_mesh(f: Frame) -> tuple[str, MeshInfo | None]:
    """JAX's context mesh where it is certain: ("set", mesh) under `jax.set_mesh` (mesh None when not known),
    ("none", None) in module-level code of a module that never sets one (a legacy `with mesh:` sets none),
    ("unknown", None) elsewhere (a function may run under its caller's `set_mesh`, inside shard_map)."""
    if f.env.manual:
        return "unknown", None
    if f.env.mesh_set:
        return "set", f.env.mesh
    if f.parent is None and not may_set_mesh(f):
        return "none", None
    return "unknown", None


def _bare_spec_without_mesh(f: Frame, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> bool:
    """NC826: a bare PartitionSpec given to device_put / reshard (which need `jax.set_mesh`) or
    with_sharding_constraint (which a legacy `with mesh:` also serves) where surely no mesh is in context."""
    if context_mesh(f)[0] != "none" or (name in CONSTRAINT and f.env.mesh is not None):
        return False
    keys = {"jax.device_put": "device", "equinox.filter_shard": "device_or_shardings"}
    key = keys.get(name, "shardings" if name in CONSTRAINT else "out_shardings")
    raw = pos[1] if len(pos) > 1 else kw.get(key)
    if not _has_bare_spec(raw):
        return False
    f.report(node, placement.no_mesh_error(name.rpartition(".")[2], _first_bare(raw)))
    return True


def _first_bare(v: Any) -> Spec | None:
    if isinstance(v, Spec):
        return v
    if isinstance(v, Seq):
        for i in v.items:
            found = _first_bare(i.items[1] if v.kind == "dict" and isinstance(i, Seq) and len(i.items) == 2 else i)
            if found is not None:
                return found
    return None


def _check_axis_types(f: Frame, raw: Any, node: cst.CSTNode, api: str) -> None:
    """NC824 (`reshard` naming an Auto / Manual axis) and NC825 (`with_sharding_constraint` naming an
    Explicit axis outside an all-Explicit context mesh), on shardings whose mesh types are certain."""
    ctx, cmesh = context_mesh(f)
    if raw is None or (ctx == "unknown" and api != "reshard"):
        return  # reshard checks a NamedSharding's own mesh, whatever the context
    tree = _tree(f, raw)
    leaves = _sharding_leaves(tree)
    constraint = api == "with_sharding_constraint"
    if constraint and ctx == "set" and (cmesh is None or cmesh.types is None or cmesh.open or cmesh.explicit):
        return  # all-Explicit context: an assertion (NC807); a context not known: silent
    raws = _raw_leaves(raw)
    for i, s in enumerate(leaves):
        r = raws[i] if len(raws) == len(leaves) else None
        legacy = constraint and ctx == "none" and f.env.mesh is not None  # wsc takes a legacy mesh
        if ctx != "set" and not isinstance(r, ShardingVal) and not legacy:
            continue  # a bare spec with no context mesh (another error), or under one not known
        mesh = s.mesh  # a NamedSharding's own; a bare spec's the context mesh (set_mesh's, or a legacy one)
        if mesh is None:
            continue
        try:
            if constraint:
                # reshard takes a NamedSharding anywhere, a bare spec only under jax.set_mesh
                placement.check_auto_constraint(s.spec, mesh, api, isinstance(r, ShardingVal) or ctx == "set")
            else:
                placement.check_explicit_target(s.spec, mesh, api)
        except RuleError as e:
            f.report(node, e)
            return


def _raw_leaves(v: Any) -> list[Any]:
    """The leaves of a sharding pytree as written (ShardingVal or Spec), in `_sharding_leaves`' order."""
    if isinstance(v, ShardingVal | Spec):
        return [v]
    if isinstance(v, Seq):
        return [r for i in v.items for r in _raw_leaves(i.items[1] if v.kind == "dict" and isinstance(i, Seq) else i)]
    return []


# ---- placing values ----------------------------------------------------------------------------------


def place_leaf(v: ArrayType, s: ShardingVal, what: str, how: _How = STRICT) -> ArrayType:
    """One array placed with one sharding: the engine's spec rule, then the spec on the value (and, over an
    Explicit mesh, the sharding in its type)."""
    shape = None if v.has_ellipsis else v.shape
    placement.check_spec(s.spec, s.mesh, shape, what, divisible=how.divisible, trailing_none_ok=how.trailing_none_ok)
    if how.asserts:
        placement.check_constraint(v, s.spec, s.mesh, what)
    if how.committed:
        placement.check_committed(v, s.spec, s.mesh, what)
    out = v.with_spec(placement.placed_entries(s.spec, shape)).with_sharding(
        placement.placed_sharding(s.spec, s.mesh, v), placement.known_mesh(s.mesh)
    )
    out = origins.written(out, s.written, s.spec.origin)
    if (
        how.size_one
        and out.sharding is not None
        and (s.mesh is None or any(s.mesh.size(a) in (1, None) for a in s.spec.axes()))
    ):
        out = out.with_sharding(None)  # JAX may type it without its size-1 axes: not modelled, so not known
    # the spec's unreduced / reduced sets (a reshard without them reduces the value)
    return replace(out, unreduced=s.spec.unreduced, reduced=s.spec.reduced) if out.sharding is not None else out


def place_tree(sh: Any, v: Any, what: str, how: _How = STRICT) -> Any:
    """A pytree of values placed by a pytree prefix of shardings (one sharding applies to every array
    below it; None leaves a part unconstrained; a structure that does not line up is left alone)."""
    if isinstance(sh, ShardingVal):
        if isinstance(v, ArrayType):
            return place_leaf(v, sh, what, how)
        if isinstance(v, Seq):
            leaves = [place_leaf(x, sh, w, how) if isinstance(x, ArrayType) else x for x, w in maps.seq_leaves(v, what)]
            return maps.seq_rebuild(v, iter(leaves))
        return v
    if sh is None:
        return v
    if not (isinstance(sh, Seq) and isinstance(v, Seq) and len(sh.items) == len(v.items)):
        return forget_sharding(v)
    if sh.kind == "dict" and v.kind == "dict":
        by_key = {_key(p): p.items[1] for p in sh.items}
        out = []
        for p in v.items:
            k = _key(p) if isinstance(p, Seq) and len(p.items) == 2 else None
            if k is None or k not in by_key:
                return forget_sharding(v)
            out.append(Seq((p.items[0], place_tree(by_key[k], p.items[1], f"{what}[{k!r}]", how)), "tuple"))
        return Seq(tuple(out), "dict")
    if sh.kind == "dict" or v.kind == "dict":
        return forget_sharding(v)
    return Seq(tuple(place_tree(s, x, f"{what}[{i}]", how) for i, (s, x) in enumerate(zip(sh.items, v.items))), v.kind)


def _key(pair: Seq) -> Any:
    k = pair.items[0]
    return k.value if isinstance(k, Const) else None


def _placement(
    f: Frame, pos: list[Any], kw: dict[str, Any], params: tuple[str, str], node: cst.CSTNode, short: str, how: _How
) -> Any:
    """device_put / with_sharding_constraint / reshard: the value keeps its type and gains the spec."""
    x = pos[0] if pos else kw.get(params[0])
    target = pos[1] if len(pos) > 1 else kw.get(params[1])
    sh = _tree(f, target)
    if isinstance(x, ArrayType | Seq) and target is not None and _unknown_target(sh):
        return forget_sharding(x)  # placed where the checker cannot tell: not the input's sharding any more
    if not isinstance(x, ArrayType | Seq) or sh is None or not _is_sharding_tree(sh):
        return NotImplemented
    lab = label(_arg(node, 0)) or params[0]
    how = _flags(f, how)
    try:
        return origins.placed(place_tree(sh, x, f"{short} of {lab}", how), node)
    except RuleError as e:
        f.report(node, origins.relate_placements(e, [(lab, x)]) if e.code in (NC807, NC808) else e)
        return UNKNOWN


def _creation(f: Frame, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`jnp.zeros(shape, device=sharding)` / `out_sharding=`: the op's type, checked and placed."""
    key = (
        "out_sharding"
        if isinstance(kw.get("out_sharding"), ShardingVal | Spec)
        else "device"
        if isinstance(kw.get("device"), ShardingVal)
        else None
    )
    if (
        key is None
        and name in REPLICATED_UNDER_SET_MESH
        and not {"device", "out_sharding"} & set(kw)
        and f.env.mesh_set
        and f.env.mesh is not None
        and f.env.mesh.explicit
        and not f.env.manual
    ):
        key = "mesh"  # under `jax.set_mesh` of an Explicit mesh: committed, replicated
    if key is None or not isinstance(node, cst.Call) or any(a.star for a in node.args):
        return NotImplemented
    nodes = [a.value for a in node.args if a.keyword is None]
    kwl = {a.keyword.value: lab for a in node.args if a.keyword is not None and (lab := label(a.value))}
    out = f.apply_named(name, pos, kw, nodes, node, kwl)
    if not isinstance(out, ArrayType):
        return out
    if key == "mesh":
        if out.has_ellipsis:
            return out
        src = pos[0] if pos else None
        if name in ("jax.numpy.array", "jax.numpy.asarray") and isinstance(src, ArrayType):
            return out.with_sharding(placement.of(src), src.mesh)  # an array keeps its own sharding
        return origins.placed(
            out.with_sharding(((),) * len(out.shape), placement.known_mesh(f.env.mesh)), node, keep_written=False
        )
    s = _tree(f, kw[key])
    # `device=` pads an uneven dimension under jit; only module-level code surely runs eagerly
    how = _flags(f, _How(divisible=key == "out_sharding" or f.parent is None or f.env.eager, trailing_none_ok=True))
    try:
        return origins.placed(place_leaf(out, s, f"the result of {name.rpartition('.')[2]}({key}=...)", how), node)
    except RuleError as e:
        f.report(node, e)
        return UNKNOWN


def _arg(node: cst.CSTNode, i: int) -> Any:
    if isinstance(node, cst.Call):
        args = [a.value for a in node.args if a.keyword is None and not a.star]
        if len(args) > i:
            return args[i]
    return None


# ---- jit with shardings ------------------------------------------------------------------------------


def _jit(f: Frame, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`jax.jit(f, in_shardings=..., out_shardings=...)` -> JitRef; plain jit stays transparent."""
    if not pos or not any(k in kw for k in SHARDING_KEYWORDS):
        return NotImplemented
    static = any(k in kw for k in ("static_argnums", "static_argnames"))
    trees = []
    for key in SHARDING_KEYWORDS:
        raw = kw.get(key)
        tree = _tree(f, raw) if f.env.mesh is not None or not _has_bare_spec(raw) else raw
        try:  # what JAX checks of the shardings themselves, reported at the keyword
            for s in _sharding_leaves(_tree(f, tree)):
                placement.check_mesh_axes(s.spec, s.mesh, f"jit {key}")
                placement.check_repeats(s.spec, f"jit {key}")
        except RuleError as e:
            f.report(kw_node(node, key), e)
            tree = UNKNOWN
        trees.append(UNKNOWN if static and key == "in_shardings" else tree)
    return JitRef(pos[0], trees[0], trees[1], node)


def _axes_scope(f: Frame, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`auto_axes(f, out_sharding=s)` calls f over Auto axes (its arguments' shardings leave their types) and
    places the result by s; `explicit_axes(f, in_sharding=s)` places f's arguments by s."""
    axes: Any = None
    if "axes" in kw:  # `axes='data'` / `axes=('data', 'model')`: only those axes change type
        v = kw["axes"]
        items = v.items if isinstance(v, Seq) else (v,)
        names = [i.value for i in items if isinstance(i, Const) and isinstance(i.value, str)]
        axes = tuple(names) if len(names) == len(items) and names else UNKNOWN
    if name.endswith("auto_axes"):  # a bare spec: the call's mesh
        return JitRef(pos[0], None, kw.get("out_sharding", UNKNOWN), node, auto=True, axes=axes)
    return JitRef(pos[0], kw.get("in_sharding", UNKNOWN), None, node, explicit=True, axes=axes)


def region_env(f: Frame, kind: str, axes: Any = None) -> Any:
    """The axes in scope inside `auto_axes` / `explicit_axes` (kind "auto" / "explicit") called under
    `jax.set_mesh` of a known mesh: that mesh with the axes `axes` (None: every axis) of the kind (JAX's
    `use_abstract_mesh`); None where the context mesh or the axes are not known."""
    ctx, mesh = context_mesh(f)
    if ctx != "set" or mesh is None or mesh.types is None or mesh.open or "manual" in mesh.types:
        return None
    if axes is UNKNOWN or (axes is not None and not set(axes) <= set(mesh.names)):
        return None
    types = tuple(kind if axes is None or n in axes else t for n, t in zip(mesh.names, mesh.types))
    return replace(f.env, mesh=replace(mesh, types=types), mesh_set=True)


def _has_bare_spec(v: Any) -> bool:
    return isinstance(v, Spec) or (
        isinstance(v, Seq)
        and any(
            _has_bare_spec(i.items[1] if v.kind == "dict" and isinstance(i, Seq) and len(i.items) == 2 else i)
            for i in v.items
        )
    )


def kw_node(node: cst.CSTNode, key: str) -> cst.CSTNode:
    """The `key=` argument of the call (or decorator) at `node`, else `node` itself."""
    return keyword_arg(node, key) or node


def _param_names(func: Any) -> list[str]:
    if isinstance(func, FuncRef) and isinstance(func.node, cst.FunctionDef):
        return [p.name.value for p in func.node.params.params]
    return []


def _own_types(placed: Any, given: Any) -> Any:
    """Arguments inside a jit with in_shardings: each keeps its own type (JAX 0.10 traces the argument's type,
    an uncommitted one unsharded; a committed one that differs is an error, NC808), and the stated spec."""
    if isinstance(placed, ArrayType) and isinstance(given, ArrayType):
        return replace(given, spec=placed.spec)
    if isinstance(placed, Seq) and isinstance(given, Seq) and len(placed.items) == len(given.items):
        return Seq(tuple(_own_types(p, g) for p, g in zip(placed.items, given.items)), given.kind)
    return given


def call_jit(
    f: Frame,
    ref: JitRef,
    pos: list[Any],
    kw: dict[str, Any],
    nodes: list[Any],
    kwl: dict[str, str],
    node: cst.CSTNode,
    as_map_body: bool = False,
) -> Any:
    """Call the jitted function as a plain call, its arguments placed by in_shardings and its results
    by out_shardings."""
    fname = getattr(ref.func, "name", "f")
    if ref.auto or ref.explicit:
        return _call_region(f, ref, pos, kw, nodes, kwl, node, as_map_body)
    if context_mesh(f)[0] == "none" and (_has_bare_spec(ref.in_shardings) or _has_bare_spec(ref.out_shardings)):
        bare = _first_bare(ref.in_shardings) or _first_bare(ref.out_shardings)
        f.report(node, placement.no_mesh_error(f"jit({fname})", bare))  # JAX raises when it is called
        return UNKNOWN
    args = pos
    ins = _tree(f, ref.in_shardings)
    if ins is UNKNOWN or (ins is not None and kw):  # placed by shardings the checker cannot evaluate
        args = [forget_sharding(v) for v in args]
    elif ins is not None:
        names = _param_names(ref.func)
        per_arg = list(ins.items) if isinstance(ins, Seq) and ins.kind != "dict" else [ins] * len(pos)
        if len(per_arg) != len(pos):
            args = [forget_sharding(v) for v in args]
        else:
            how = _flags(f, _How(committed=f.parent is None or f.env.eager))
            placed = []
            try:
                for i, (s, v) in enumerate(zip(per_arg, pos)):
                    what = f"argument {names[i] if i < len(names) else i!r} of jit({fname})"
                    placed.append(_own_types(place_tree(s, v, what, how), v))
                args = placed
            except RuleError as e:
                origins.relate_placements(e, [(label(n) if n is not None else None, v) for n, v in zip(nodes, pos)])
                for sv in _sharding_leaves(per_arg[len(placed)]):  # the in_shardings entry it was checked against
                    for w in (sv.written, sv.spec.origin):
                        if isinstance(w, origins.Written):
                            e.relate(origins.Aside(w.node), "the sharding passed to jit is written here")
                f.report(node, e)
    out = f.call_value(ref.func, args, kw, nodes, kwl, node, None, as_map_body)
    outs = _tree(f, ref.out_shardings)
    if outs is UNKNOWN:
        return forget_sharding(out)
    if out is UNKNOWN or outs is None:
        return out
    try:
        return origins.placed(
            place_tree(outs, out, f"the result of jit({fname})", _flags(f, STRICT)), kw_node(ref.node, "out_shardings")
        )
    except RuleError as e:
        f.report(kw_node(ref.node, "out_shardings"), e)
        return out


def _call_region(
    f: Frame,
    ref: JitRef,
    pos: list[Any],
    kw: dict[str, Any],
    nodes: list[Any],
    kwl: dict[str, str],
    node: cst.CSTNode,
    as_map_body: bool,
) -> Any:
    """`auto_axes(f, out_sharding=s)(...)`: f runs with the context mesh's axes Auto (its arguments'
    shardings leave their types), its result resharded by s. `explicit_axes(f, in_sharding=s)(...)`: f runs
    with the axes Explicit, its arguments resharded by s; the result leaves the region with its sharding
    not known here. Where the context mesh is not known, the body runs with shardings not known."""
    env = region_env(f, "auto" if ref.auto else "explicit", ref.axes)
    args = [v.with_sharding(None) if isinstance(v, ArrayType) else v for v in pos]
    if ref.explicit and env is not None and not kw:
        saved, f.env = f.env, env
        try:
            ins = _tree(f, ref.in_shardings)
            for leaf in _sharding_leaves(ins):  # the arguments are resharded inside: Explicit axes only
                placement.check_explicit_target(leaf.spec, leaf.mesh, "explicit_axes in_sharding")
            if isinstance(ins, ShardingVal | Seq):
                per_arg = list(ins.items) if isinstance(ins, Seq) and ins.kind != "dict" else [ins] * len(pos)
                if len(per_arg) == len(args) and not (isinstance(ins, Seq) and ins.kind == "dict"):
                    how = _How(trailing_none_ok=True)
                    args = [
                        place_tree(s, v, f"argument {i} of explicit_axes", how)
                        for i, (s, v) in enumerate(zip(per_arg, args))
                    ]
        except RuleError as e:
            f.report(node, e)
            return UNKNOWN
        finally:
            f.env = saved
    out = f.call_value(ref.func, args, kw, nodes, kwl, node, env, as_map_body)
    if ref.explicit:
        return map_tree_arrays(out, lambda a: a.with_sharding(None))
    outs = _tree(f, ref.out_shardings)
    if out is UNKNOWN or outs is None or outs is UNKNOWN:
        return out
    try:
        return origins.placed(
            place_tree(outs, out, f"the result of auto_axes({getattr(ref.func, 'name', 'f')})"),
            kw_node(ref.node, "out_sharding"),
        )
    except RuleError as e:
        f.report(kw_node(ref.node, "out_sharding"), e)
        return out


def map_tree_arrays(v: Any, fn: Any) -> Any:
    if isinstance(v, ArrayType):
        return fn(v)
    if isinstance(v, Seq):
        return maps.seq_rebuild(v, iter([fn(x) if isinstance(x, ArrayType) else x for x, _ in maps.seq_leaves(v, "")]))
    return v


__all__ = ["construct", "call_jit", "place_leaf", "place_tree", "states_shardings", "kw_node", "region_env"]
