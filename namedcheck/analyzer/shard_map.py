"""shard_map: its body analysed where it is defined (parameters known from in_specs alone) and at
each call (with the arguments' shapes); in_specs left out are taken from the arguments' stated
shardings. The rules (shard_in, shard_out, varying sets) live in engine/maps.py."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import libcst as cst

from namedcheck.analyzer import origins
from namedcheck.analyzer.mapargs import (
    Fail,
    argument_node,
    at,
    lit,
    param_node,
    rebuild,
    required_positional,
    return_nodes,
    source,
)
from namedcheck.analyzer.refs import FuncRef, MappedRef, MeshVal
from namedcheck.analyzer.scope import FrameState as Frame
from namedcheck.engine import maps, placement
from namedcheck.engine.codes import NC601, NC604
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import AxisEnv, MeshInfo, Spec
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, Seq


def spec_tree(v: Any) -> Any:
    """A pytree of PartitionSpecs as Spec / tuples of them; Unknown when any part is not known."""
    if isinstance(v, Spec):
        return v
    if isinstance(v, Seq) and v.kind in ("tuple", "list"):
        items = tuple(spec_tree(i) for i in v.items)
        return UNKNOWN if UNKNOWN in items else items
    return UNKNOWN


def _is_spec(s: Any) -> bool:
    return isinstance(s, Spec)


class _Setup:
    """A shard_map's static arguments, read once."""

    def __init__(self, f: Frame, ref: MappedRef) -> None:
        p = ref.params
        self.ref = ref
        mesh_v = p.get("mesh")
        self.mesh: MeshInfo | None = (
            mesh_v.info if isinstance(mesh_v, MeshVal) else (f.env.mesh if mesh_v is None else None)
        )
        names = lit(p.get("axis_names", Const(None)), default=UNKNOWN)
        self.check = bool(lit(p.get("check_vma", p.get("check_rep", Const(True))), default=True))
        self.omitted = "in_specs" not in p
        self.specs_in = None if self.omitted else spec_tree(p.get("in_specs"))
        self.specs_out = spec_tree(p.get("out_specs"))
        self.ok = names is not UNKNOWN and self.specs_in is not UNKNOWN and self.specs_out is not UNKNOWN
        # A mesh not known here (`mesh=self.mesh`) is known by the axes the code names: open, so no
        # name is proven missing, and varying sets are lower bounds.
        self.open = self.mesh is None or self.mesh.open
        if self.mesh is None and self.ok:
            self.mesh = MeshInfo(tuple((a, None) for a in sorted(_named_axes(ref, self))), open=True)
        mesh_names = self.mesh.names if self.mesh is not None else ()
        self.manual = frozenset(names) if names and names is not UNKNOWN else frozenset(mesh_names)

    def env(self, f: Frame) -> AxisEnv:
        assert self.mesh is not None
        return replace(
            f.env, mesh=self.mesh, manual=self.manual, check_vma=self.check, definitive=not self.open, origin=self.ref
        )


_COLLECTIVES = (
    "psum",
    "pmean",
    "pmax",
    "pmin",
    "all_gather",
    "ppermute",
    "axis_index",
    "psum_scatter",
    "all_to_all",
    "pcast",
    "pvary",
    "pshuffle",
)


def _named_axes(ref: MappedRef, s: _Setup) -> set[str]:
    """The mesh axes a shard_map's code names: in its specs, and as literal axis names of collectives in
    its body (not names an inner vmap binds with `axis_name=`)."""
    out: set[str] = set()
    for tree in (s.specs_in, s.specs_out):
        for spec in _specs(tree):
            out |= set(spec.axes())
    fn = ref.func.node if isinstance(ref.func, FuncRef) else None
    if not isinstance(fn, cst.FunctionDef):
        return out
    inner: set[str] = set()

    class _Names(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            name = (
                func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
            )
            if name in ("vmap", "pmap"):  # names an inner map binds are not mesh axes
                for a in node.args:
                    if a.keyword is not None and a.keyword.value in ("axis_name", "spmd_axis_name"):
                        inner.update(_strings(a.value))
            if name in _COLLECTIVES:
                for i, a in enumerate(node.args):
                    if (a.keyword is None and i == (0 if name == "axis_index" else 1)) or (
                        a.keyword is not None and a.keyword.value in ("axis_name", "axes")
                    ):
                        out.update(_strings(a.value))

    fn.visit(_Names())
    return out - inner


def _strings(node: cst.BaseExpression) -> set[str]:
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return {node.evaluated_value}
    if isinstance(node, cst.Tuple | cst.List):
        return {s for e in node.elements for s in _strings(e.value)}
    return set()


def _specs(tree: Any) -> list[Spec]:
    if isinstance(tree, Spec):
        return [tree]
    if isinstance(tree, tuple):
        return [s for t in tree for s in _specs(t)]
    return []


def _check_names(f: Frame, ref: MappedRef, s: _Setup) -> bool:
    """Every spec's mesh axes, where the specs are written (no array needed); False on a failure."""
    assert s.mesh is not None
    for key, tree in (("in_specs", s.specs_in), ("out_specs", s.specs_out)):
        for i, spec in enumerate(_specs(tree)):
            try:
                maps.check_spec_names(
                    spec,
                    s.mesh,
                    s.manual,
                    f"{key}[{i}] of shard_map" if isinstance(tree, tuple) else f"{key} of shard_map",
                )
            except RuleError as e:
                f.report(param_node(ref, key), e)
                return False
    return True


def define(f: Frame, ref: MappedRef) -> None:
    """Analyse a shard_map body where it is written: each parameter is an array of unknown shape
    (rank at least its spec's length) varying over its in_spec's manual axes, so out_specs, carries,
    branches and collectives are checked without a call. The specs' axes are checked first."""
    s = _Setup(f, ref)
    if not s.ok or not _check_names(f, ref, s):
        return
    n = required_positional(ref.func)
    if n is None:
        return
    if s.omitted:
        args = [ArrayType.partial(exact=False) for _ in range(n)]  # known at the call, from their shardings
    elif isinstance(s.specs_in, Spec):
        args = [_param(s.specs_in, s.manual, not s.open) for _ in range(n)]
    else:
        assert s.specs_in is not None  # in_specs given (not omitted)
        if len(s.specs_in) != n:
            return  # the call reports the mismatch with the arguments in hand
        args = [_param_tree(t, s.manual, not s.open) for t in s.specs_in]
    try:
        _run(f, ref, s, args, ref.node)
    except Fail as e:
        f.report(e.node, e.err)


def _param(spec: Spec, manual: frozenset[str], exact: bool) -> ArrayType:
    return ArrayType.partial(frozenset(spec.axes()) & manual, exact=exact, min_rank=len(spec.entries))


def _param_tree(t: Any, manual: frozenset[str], exact: bool) -> Any:
    if isinstance(t, Spec):
        return _param(t, manual, exact)
    return Seq(tuple(_param_tree(i, manual, exact) for i in t), "tuple")


def call(f: Frame, ref: MappedRef, pos: list[Any], node: cst.CSTNode) -> Any:
    """A call of a shard_mapped function with the arguments' types."""
    s = _Setup(f, ref)
    if not s.ok:
        return UNKNOWN
    assert s.mesh is not None
    args_value = Seq(tuple(pos))
    if s.omitted:
        locals_ = [_from_sharding(v, s, f"{w} of shard_map") for v, w in maps.seq_leaves(args_value, "the arguments")]
    else:
        spec_in = s.specs_in if not isinstance(s.specs_in, Spec) or len(pos) != 1 else (s.specs_in,)
        leaves = at(
            param_node(ref, "in_specs"),
            maps.match_prefix,
            spec_in,
            args_value,
            _is_spec,
            "the arguments",
            NC604,
            "shard_map in_specs",
        )
        locals_ = []
        for spec, v, w in leaves:
            if isinstance(v, ArrayType) and not v.has_ellipsis:
                try:  # a spec's own axes (in the mesh, manual, once): where it is written, as `define` reports
                    maps.check_spec_names(spec, s.mesh, s.manual, "in_specs of shard_map")
                except RuleError as e:
                    raise Fail(param_node(ref, "in_specs"), e) from None
                try:  # its fit to the argument (rank, divisibility): here
                    locals_.append(maps.shard_in(v, spec, s.mesh, s.manual, f"{w} of shard_map"))
                except RuleError as e:
                    if e.code == NC604 and v.shape == ():
                        raise _scalar_spec(f, ref, node, w, e) from None
                    if e.code == NC604:
                        e.relate(_in_spec_node(ref, w), f"the in_specs entry for {w}")
                    raise Fail(
                        node, origins.relate_placements(e, [(w, v)]) if e.code.startswith("NC8") else e
                    ) from None
            else:
                if isinstance(v, Const) and isinstance(v.value, (bool, int, float, complex)):
                    try:  # a Python number is a scalar: a spec with entries does not fit it (JAX raises)
                        placement.check_rank(spec, (), f"{w} of shard_map (a Python scalar)")
                    except RuleError as e:
                        raise _scalar_spec(f, ref, node, w, e) from None
                locals_.append(UNKNOWN)
    if s.open:  # the mesh's other axes are unknown: varying sets are lower bounds
        locals_ = [v.with_varying(v.varying, exact=False) if isinstance(v, ArrayType) else v for v in locals_]
    return _run(f, ref, s, rebuild(pos, locals_), node)


def _scalar_spec(f: Frame, ref: MappedRef, call: cst.CSTNode, what: str, e: RuleError) -> Fail:
    """An in_specs entry with entries for a scalar argument: the entry is what to change (a scalar is never
    split; P() fits it), reported there with the call's argument related (at the call where in_specs is
    written in another module)."""
    entry = _in_spec_node(ref, what)
    e = e.derived(hint="a scalar has no dimension to split: give it P()")
    arg = argument_node(call, what) if isinstance(call, cst.Call) else None
    try:
        f.an.positions()[entry]  # type: ignore[attr-defined]
    except (AttributeError, KeyError):
        return Fail(call, e.relate(entry, f"the in_specs entry for {what}"))
    return Fail(entry, e.relate(arg if arg is not None else call, f"{what} is a scalar here"))


def _in_spec_node(ref: MappedRef, what: str) -> cst.CSTNode:
    """Where the in_specs entry of `argument i` is written: the tuple's item when in_specs is a tuple written
    out, else in_specs itself."""
    node = param_node(ref, "in_specs")
    head = what.split("[", 1)[0]
    i = int(head.rpartition(" ")[2]) if head.startswith("argument ") and head.rpartition(" ")[2].isdigit() else None
    if (
        i is not None
        and isinstance(node, cst.Tuple)
        and i < len(node.elements)
        and not any(isinstance(e, cst.StarredElement) for e in node.elements)
    ):
        return node.elements[i].value
    return node


def _from_sharding(v: Any, s: _Setup, what: str) -> Any:
    """in_specs left out: an argument's stated sharding is its spec (JAX reads it off the array)."""
    assert s.mesh is not None
    if isinstance(v, ArrayType) and v.spec is not None and not v.has_ellipsis:
        # partly Manual (`axis_names=`): JAX takes only the manual axes of the argument's sharding as its in_spec;
        # the other axes stay the value's Explicit sharding inside the body
        entries = tuple(tuple(a for a in e if a in s.manual) or None if e else None for e in v.spec)
        return maps.shard_in(v, Spec(entries), s.mesh, s.manual, what)
    return ArrayType.partial(exact=False)


def _run(f: Frame, ref: MappedRef, s: _Setup, args: list[Any], node: cst.CSTNode) -> Any:
    """The body under the shard_map's axes, and its outputs against out_specs."""
    assert s.mesh is not None
    params = ref.func.node.params.params if isinstance(ref.func, FuncRef) else ()
    args = [
        origins.varying_from(a, p, f"`{p.name.value}` varies over {{axis}} by its in_specs")
        for a, p in zip(args, params)
    ] + args[len(params) :]
    result = f.call_value(ref.func, args, {}, [None] * len(args), {}, node, env=s.env(f), as_map_body=True)
    if result is UNKNOWN:
        return UNKNOWN
    where = param_node(ref, "out_specs")
    outs = []
    try:
        for spec, v, w in maps.match_prefix(s.specs_out, result, _is_spec, "the result", NC604, "shard_map out_specs"):
            outs.append(
                maps.shard_out(
                    maps.drop_varying(v, maps.size_one_axes(f.env, s.mesh)),
                    spec,
                    s.mesh,
                    s.manual,
                    s.check,
                    f"{w} of shard_map",
                )
                if isinstance(v, ArrayType)
                else UNKNOWN
            )
    except RuleError as e:
        if e.code == NC601 and isinstance(ref.func, FuncRef):
            rets = return_nodes(ref.func.node)
            if len(rets) == 1 and rets[0].value is not None:
                e = e.derived(f"{e.message}; it is returned by `return {source(rets[0].value)}`")
            for r in rets:
                e.relate(r, "returned here")
            started = origins.started_varying(v, e.data.get("axis", "")) if isinstance(v, ArrayType) else None
            if started is not None:
                e.relate(*started)
        raise Fail(where, e) from None
    return maps.rebuild_from_leaves(result, outs)


def name_origin(f: Frame, err: RuleError) -> RuleError:
    """A varying-set error inside a shard_map body, naming the shard_map whose in_specs make values vary."""
    ref = f.env.origin
    if not isinstance(ref, MappedRef) or ref.kind != "shard_map" or "in_specs" not in ref.params:
        return err
    try:
        line = f.an.positions()[ref.node].start.line  # type: ignore[attr-defined]
    except (AttributeError, KeyError):
        return err
    specs = source(param_node(ref, "in_specs"))
    return err.derived(
        f"{err.message} (inside the shard_map at line {line}, whose in_specs={specs} make its inputs vary)"
    ).relate(param_node(ref, "in_specs"), "the in_specs that make the inputs vary")


__all__ = ["define", "call", "spec_tree", "name_origin"]
