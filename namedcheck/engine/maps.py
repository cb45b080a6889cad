"""Map boundaries and the axis environment: xmap, vmap and shard_map in and out, mesh resources,
named-axis co-occurrence, and loop-carry / branch agreement of varying sets."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from namedcheck.engine import dtypes, placement, spelling
from namedcheck.engine.algebra import differ, fmt_shape, is_int, norm_axis, union_named
from namedcheck.engine.codes import (
    NC401,
    NC402,
    NC403,
    NC404,
    NC405,
    NC406,
    NC407,
    NC408,
    NC501,
    NC502,
    NC503,
    NC504,
    NC601,
    NC602,
    NC604,
    NC705,
)
from namedcheck.engine.errors import RuleError, count
from namedcheck.engine.mesh import MeshInfo, Spec
from namedcheck.engine.trees import dict_like, keyed, map_leaves, paired, tree_leaves, union_varying
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, Dim, DimVal, Seq

REMOVE_SIZE_ONE = "jax_remove_size_one_mesh_axis_from_type"  # size-1 mesh axes leave varying sets and shardings
AUTO_PCAST = "jax_auto_pcast"  # ops and collectives cast invariant operands to varying themselves
X64 = "jax_enable_x64"  # 64-bit dtypes (analyzer/widths.py)
JAX_FLAG_DEFAULTS: dict[str, bool | None] = {REMOVE_SIZE_ONE: False, AUTO_PCAST: True, X64: False}


@dataclass(frozen=True, slots=True)
class AxisEnv:
    """What the code at hand runs under: named axes bound by enclosing maps, the mesh in scope,
    shard_map's manual axes, xmap's resource assignment."""

    named: tuple[tuple[str, Dim], ...] = ()  # xmap / vmap axis name -> size
    mesh: MeshInfo | None = None
    manual: frozenset[str] = frozenset()  # shard_map manual mesh axes
    resources: tuple[tuple[str, tuple[str, ...]], ...] = ()  # xmap axis -> mesh axes
    check_vma: bool = True
    definitive: bool = False  # every name the code may use is known here (NC705 can be proven)
    declared: frozenset[str] = field(default=frozenset())  # named axes of the function's annotations
    origin: Any = field(default=None, compare=False)  # the front end's record of the enclosing map (messages only)
    mesh_set: bool = False  # the mesh is `jax.set_mesh`'s (creation ops make arrays of its sharding type)
    eager: bool = False  # module-level code: it runs op by op, outside any trace (indexing is a gather)
    no_mesh: bool = False  # module-level code of a module that sets no context mesh: a bare P has no mesh (NC826)
    # JAX configuration flags the program sets that change the rules (`jax.config.update(name, value)`,
    # `with jax.config.<name>(value):`): name -> value, None where set to a value the checker cannot tell
    # (analyzer/jaxconfig.py); a flag not listed has JAX's default (`JAX_FLAG_DEFAULTS`)
    flags: tuple[tuple[str, bool | None], ...] = ()

    def flag(self, name: str) -> bool | None:
        """The flag's value here (None: not known)."""
        return dict(self.flags).get(name, JAX_FLAG_DEFAULTS[name])

    def with_flag(self, name: str, value: bool | None) -> AxisEnv:
        flags = dict(self.flags)
        flags[name] = value
        return replace(self, flags=tuple(sorted((k, v) for k, v in flags.items() if v != JAX_FLAG_DEFAULTS.get(k))))

    def size(self, name: str) -> Dim:
        d = dict(self.named)
        if name in d:
            return d[name]
        if self.mesh is not None and name in self.mesh.names:
            return self.mesh.size(name)
        return None

    def bound(self, name: str) -> bool:
        return (
            name in dict(self.named)
            or name in self.manual
            or name in self.declared
            or (self.mesh is not None and (self.mesh.open or name in self.mesh.names))
        )

    def check_bound(self, names: Sequence[str], what: str) -> None:
        """NC705: a collective or named reduction over a name nothing binds."""
        if not self.definitive:
            return
        for n in names:
            if not self.bound(n) and self.manual and self.mesh is not None:
                raise RuleError(
                    NC501,
                    f"{what} names axis {n!r}, but the mesh of this shard_map has axes {self.mesh.names!r}",
                    hint="use one of the mesh's axis names",
                    data={"axis": n, "known": list(self.mesh.names)},
                )
            if not self.bound(n):
                known = sorted(
                    {*dict(self.named), *self.manual, *self.declared, *(self.mesh.names if self.mesh else ())}
                )
                raise RuleError(
                    NC705,
                    f"{what} names axis {n!r}, which no enclosing map or mesh binds "
                    f"(bound here: {', '.join(map(repr, known)) or 'none'})",
                    hint="bind it with xmap/vmap(axis_name=...)/shard_map, or fix the name",
                    data={"axis": n, "known": known},
                )

    def with_names(self, names: dict[str, Dim], resources: dict[str, tuple[str, ...]] | None = None) -> AxisEnv:
        return replace(
            self,
            named=tuple(sorted({**dict(self.named), **names}.items())),
            resources=tuple(sorted({**dict(self.resources), **(resources or {})}.items())),
            definitive=True,
        )


EMPTY_ENV = AxisEnv()


# ---- named-axis co-occurrence (NC502) ------------------------------------------------------------


def check_cooccurrence(v: Any, env: AxisEnv) -> None:
    """Two named axes that share a resource never appear in one value's named shape."""
    if not env.resources or not isinstance(v, ArrayType) or len(v.named) < 2:
        if isinstance(v, Seq):
            for item in v.items:
                check_cooccurrence(item, env)
        return
    res = dict(env.resources)
    names = [n for n, _ in v.named if n in res]
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            shared = sorted(set(res[a]) & set(res[b]))
            if shared:
                raise RuleError(
                    NC502,
                    f"Named axes {a!r} and {b!r} both appear in this value ({spelling.shown(v)}) but share mesh resource "
                    f"{', '.join(map(repr, shared))} (axis_resources maps {a!r} to {_res(res[a])} and {b!r} to "
                    f"{_res(res[b])})",
                    hint=f"reduce over {a!r} or {b!r} before they meet, or map them to different resources",
                )


# ---- resources (NC501, NC503, NC504, NC406) ------------------------------------------------------


def check_resources(resources: dict[str, tuple[str, ...]], defined: dict[str, Dim], mesh: MeshInfo | None) -> None:
    for name, axes in resources.items():
        if name not in defined:
            raise RuleError(
                NC406,
                f"axis_resources maps {name!r}, which neither in_axes nor axis_sizes "
                f"defines (defined: {', '.join(map(repr, sorted(defined))) or 'none'})",
            )
        if len(set(axes)) != len(axes):
            raise RuleError(NC504, f"axis_resources maps {name!r} to {axes!r}, repeating a mesh axis")
        if mesh is not None:
            for a in axes:
                if a not in mesh.names and not mesh.open:
                    raise RuleError(
                        NC501,
                        f"axis_resources maps {name!r} to mesh axis {a!r}, but the mesh in "
                        f"scope has axes {mesh.names!r}",
                        data={"axis": a, "known": list(mesh.names)},
                    )
            total: int | None = 1
            for a in axes:
                s = mesh.size(a)
                total = total * s if is_int(s) and is_int(total) else None
            size = defined[name]
            if is_int(size) and is_int(total) and total and size % total:
                raise RuleError(
                    NC503,
                    f"Named axis {name!r} has size {size}, not divisible by the {total} "
                    f"devices of its resources {axes!r}",
                    hint="pick a resource assignment whose size divides the axis size",
                )


# ---- pytree prefixes ----------------------------------------------------------------------------


def _axes_leaf_item(x: Any) -> bool:
    """A pytree leaf in jax 0.4.30's sense for axis specs: not a container and not None."""
    return x is not None and not isinstance(x, (list, tuple, dict))


def is_axis_mapping(v: Any) -> bool:
    """An xmap axis mapping leaf of an in_axes / out_axes tree, as jax 0.4.30 read it: a dict whose values
    are all leaves, or a list / tuple whose non-None items are all leaves (names, `...`). Anything else
    is a container of mappings (or, for a plain name, a malformed entry)."""
    if isinstance(v, AxisMapping):
        return True
    if isinstance(v, dict):
        return all(_axes_leaf_item(x) for x in v.values())
    return isinstance(v, (list, tuple)) and all(_axes_leaf_item(x) for x in v if x is not None)


def match_prefix(
    spec: Any, value: Any, is_leaf: Any, what: str, code: str, spec_name: str = "in_axes"
) -> list[tuple[Any, Any, str]]:
    """Match a pytree prefix of specs against a value: (spec, leaf value, label) triples.

    A leaf spec applies to every item of the value below it; a container must match item for item.
    """
    if is_leaf(spec):
        return [(spec, v, label) for v, label in seq_leaves(value, what)]
    if isinstance(spec, tuple):
        if not isinstance(value, Seq):
            if not isinstance(value, ArrayType) or value.is_partial:
                return []  # a value of unknown structure (a partial array may stand for a pytree)
            raise RuleError(
                code,
                f"{spec_name} gives {what} a container of {count(len(spec), 'entry', 'entries')}, "
                f"but {what} is a single array",
                hint="give a single array one entry, not a container",
            )
        if len(spec) != len(value.items):
            entries, n = count(len(spec), "entry", "entries"), len(value.items)
            found = (
                f"the function is called with {count(n, 'argument')}"
                if what == "the arguments"
                else f"{what} is a {value.kind} of {count(n, 'value')}"
            )
            raise RuleError(
                code,
                f"{spec_name} has {entries} but {found}",
                hint=f"give one entry per {'argument' if what == 'the arguments' else 'value'} "
                f"(or a single entry for all of them)",
            )
        out = []
        for i, (s, v) in enumerate(zip(spec, value.items)):
            out.extend(
                match_prefix(
                    s, v, is_leaf, f"{what}[{i}]" if what != "the arguments" else f"argument {i}", code, spec_name
                )
            )
        return out
    raise RuleError(code, f"{what}: cannot read the {spec_name} entry {format_mapping(spec)}")


def seq_leaves(value: Any, what: str) -> list[tuple[Any, str]]:
    """The leaves of a pytree of engine values with their labels (dict items: their values)."""
    if not isinstance(value, Seq):
        return [(value, what)]
    out: list[tuple[Any, str]] = []
    for i, item in enumerate(value.items):
        if value.kind == "dict":
            if not (isinstance(item, Seq) and len(item.items) == 2):
                out.append((UNKNOWN, f"{what}[?]"))
                continue
            key = item.items[0]
            out.extend(seq_leaves(item.items[1], f"{what}[{getattr(key, 'value', '?')!r}]"))
        else:
            out.extend(seq_leaves(item, f"{what}[{i}]"))
    return out


def seq_rebuild(template: Any, leaves: Any) -> Any:
    """`template`'s structure with its leaves replaced, in `seq_leaves` order (an iterator)."""
    if not isinstance(template, Seq):
        return next(leaves, UNKNOWN)
    items = []
    for item in template.items:
        if template.kind == "dict":
            if not (isinstance(item, Seq) and len(item.items) == 2):
                next(leaves, UNKNOWN)
                items.append(item)
                continue
            items.append(Seq((item.items[0], seq_rebuild(item.items[1], leaves)), "tuple"))
        else:
            items.append(seq_rebuild(item, leaves))
    return Seq(tuple(items), template.kind)


# ---- xmap ---------------------------------------------------------------------------------------


def check_not_rebound(names: Sequence[str], outer: AxisEnv, what: str) -> None:
    """NC407: a nested map binds a name an enclosing map already binds."""
    for n in names:
        if n in dict(outer.named):
            raise RuleError(
                NC407,
                f"{what} binds {n!r}, which an enclosing map already binds",
                hint="use a fresh name for the inner map",
            )


def add_axis_sizes(sizes: dict[str, tuple[Dim, str]], axis_sizes: Mapping[str, Dim]) -> None:
    """Merge xmap's axis_sizes into the sizes inferred from the arguments (NC403 on a conflict)."""
    for n, s in axis_sizes.items():
        if n in sizes and differ(sizes[n][0], s):
            raise RuleError(NC403, f"Axis {n!r} has size {sizes[n][0]} in {sizes[n][1]} but axis_sizes says {s}")
        if n not in sizes or sizes[n][0] is None:
            sizes[n] = (s, "axis_sizes")


@dataclass(frozen=True, slots=True)
class AxisMapping:
    """One xmap axis mapping: positional index -> name (a dict, or a list of names / None, optionally
    ending in `...`). `rank`: the exact rank a list without `...` asserts; `written`: the mapping as the
    user wrote it (for messages)."""

    pairs: tuple[tuple[int, str], ...]
    prefix: bool  # list form: the leading positional axes
    rank: int | None = None
    written: str = ""

    def __repr__(self) -> str:
        return self.written or format_mapping(dict((p, n) for p, n in self.pairs))


def format_mapping(v: Any) -> str:
    """An axis mapping (or any in_axes / out_axes value) as written: `['i', None, ...]`, `{0: 'i'}`."""
    if v is ...:
        return "..."
    if isinstance(v, AxisMapping):
        return repr(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{format_mapping(k)}: {format_mapping(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(format_mapping(x) for x in v) + "]"
    if isinstance(v, tuple):
        return "(" + ", ".join(format_mapping(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    return repr(v)


_GRAMMAR = (
    "an axis mapping is a list of names (None for a dim that stays positional), optionally ending in "
    "`...`, or a dict {position: name}"
)


def parse_mapping(v: Any, what: str) -> AxisMapping:
    """One mapping, read as jax 0.4.30 read it: {0: 'x', 2: 'y'}; ['a', None, 'b'] (exactly that rank);
    ['a', 'b', ...] (at least). NC401 for anything else, NC402 for a repeated name or a negative position."""
    if isinstance(v, AxisMapping):
        return v
    written = format_mapping(v)
    if isinstance(v, dict) and all(isinstance(k, int) and not isinstance(k, bool) for k in v):
        pairs = tuple(v.items())
        m = AxisMapping(pairs, False, None, written)
    elif isinstance(v, (list, tuple)):
        ellipsis = bool(v) and v[-1] is ...
        entries = list(v[:-1]) if ellipsis else list(v)
        m = AxisMapping(
            tuple((i, n) for i, n in enumerate(entries) if n is not None),
            True,
            None if ellipsis else len(entries),
            written,
        )
    else:
        raise RuleError(
            NC401,
            f"{what}: cannot read {written} as an axis mapping: expected a list or a dict",
            hint=f"write [{v!r}, ...] to map the leading axis to {v!r}" if isinstance(v, str) else _GRAMMAR,
        )
    for pos, n in m.pairs:
        if not isinstance(n, str):
            raise RuleError(
                NC401,
                f"{what}: axis mapping {written} holds {format_mapping(n)} where an axis name (a str) belongs",
                hint=_GRAMMAR,
            )
        if pos < 0:
            raise RuleError(
                NC402,
                f"{what}: axis mapping {written} maps the negative position {pos}; xmap takes positions >= 0",
                hint="count positions from the front",
            )
    times = Counter(n for _, n in m.pairs)  # linear in the mapping's size
    dup = sorted(n for n, k in times.items() if k > 1)
    if dup:
        raise RuleError(
            NC402,
            f"{what}: axis name {dup[0]!r} appears twice in one mapping ({written})",
            hint="give each mapped positional axis its own name",
        )
    return m


def check_rank(m: AxisMapping, nd: int, what: str, role: str) -> None:
    """NC402: a list mapping without `...` states the exact rank of its value (`role`: in_axes / out_axes)."""
    if m.rank is not None and nd != m.rank:
        raise RuleError(
            NC402,
            f"{what}: {role} {m!r} lists {m.rank} dimension{'s' if m.rank != 1 else ''}, "
            f"so the value must have rank {m.rank}, but it has rank {nd}",
            hint=f"end the list with `...` ({format_mapping([*[dict(m.pairs).get(i) for i in range(m.rank)], ...])}) "
            "to leave further dimensions positional",
        )


def mapping_leaves(spec: Any) -> list[Any]:
    """The axis mappings of a literal in_axes / out_axes tree (containers walked; NC401 for another leaf)."""
    if is_axis_mapping(spec):
        return [spec]
    if isinstance(spec, (list, tuple)):
        return [m for s in spec for m in mapping_leaves(s)]
    if isinstance(spec, dict):
        return [m for s in spec.values() for m in mapping_leaves(s)]
    raise RuleError(NC401, f"cannot read {format_mapping(spec)} as an axis mapping")


def check_xmap_written(in_axes: Any, out_axes: Any, axis_sizes: Any, resources: Any) -> None:
    """What an xmap's own arguments prove before any call: out_axes (NC405) and axis_resources (NC406)
    name only axes in_axes or axis_sizes define. Mappings that do not parse are left to the call."""
    try:
        ins = [parse_mapping(m, "in_axes") for m in mapping_leaves(in_axes)]
    except RuleError:
        return
    try:
        outs = [parse_mapping(m, "out_axes") for m in mapping_leaves(out_axes)]
    except RuleError:
        outs = []
    check_defined(outs, resources, defined_names(ins, axis_sizes))


def check_sizes_known(names: Sequence[str], sizes: dict[str, tuple[Any, str]]) -> None:
    """Every name an xmap maps has a size: from an argument that carries it, or from axis_sizes (NC403;
    jax 0.4.30: "Failed to infer size of axes")."""
    unknown = [n for n in names if n not in sizes]
    if unknown:
        raise RuleError(
            NC403,
            f"the size of named axis {unknown[0]!r} is unknown: in_axes maps it, but no "
            f"argument array carries it and axis_sizes does not give it",
            hint=f"pass an array whose mapped axis is {unknown[0]!r}, or give axis_sizes={{{unknown[0]!r}: n}}",
        )


def defined_names(in_maps: Sequence[AxisMapping], axis_sizes: Any) -> set[str]:
    """The names an xmap defines: in its in_axes mappings and its axis_sizes."""
    return {n for m in in_maps for _, n in m.pairs} | set(axis_sizes or ())


MAX_LISTED = 20  # names a message lists before "and N more"


def listed(names: Sequence[str]) -> str:
    """`'a', 'b', 'c'`, the first MAX_LISTED of them and how many more (a message stays short)."""
    shown = ", ".join(map(repr, names[:MAX_LISTED]))
    return shown + (f", and {len(names) - MAX_LISTED} more" if len(names) > MAX_LISTED else "")


def check_defined(out_maps: Sequence[AxisMapping], resources: Any, defined: set[str]) -> None:
    """What jax 0.4.30 checked when xmap was called with its arguments: out_axes (NC405) and
    axis_resources (NC406) name only axes that in_axes or axis_sizes define."""
    known = listed(sorted(defined)) or "none"
    for m in out_maps:
        for _, n in m.pairs:
            if n not in defined:
                raise RuleError(
                    NC405,
                    f"out_axes {m!r} names {n!r}, which neither in_axes nor axis_sizes defines (defined: {known})",
                    hint=f"map {n!r} in in_axes, or give its size in axis_sizes",
                )
    for n in resources or ():
        if n not in defined:
            raise RuleError(
                NC406, f"axis_resources maps {n!r}, which neither in_axes nor axis_sizes defines (defined: {known})"
            )


def xmap_in(arg: ArrayType, m: AxisMapping, what: str, sizes: dict[str, tuple[Any, str]], outer: AxisEnv) -> ArrayType:
    """The per-instance type of one xmap argument: mapped positional axes become named axes."""
    if arg.has_ellipsis:
        raise ValueError
    nd = len(arg.shape)
    check_rank(m, nd, what, "in_axes")
    idx = []
    for pos, name in m.pairs:
        if not -nd <= pos < nd:
            raise RuleError(
                NC402,
                f"{what}: in_axes maps positional axis {pos} to {name!r}, but the argument has "
                f"{nd} positional dimension{'s' if nd != 1 else ''} {fmt_shape(arg.shape)}",
            )
        idx.append(pos % nd)
    if len(set(idx)) != len(idx):
        twice = next(i for i in idx if idx.count(i) > 1)
        names = " and ".join(repr(n) for (_, n), i in zip(m.pairs, idx) if i == twice)
        raise RuleError(
            NC402,
            f"{what}: positional axis {twice} is mapped twice (to {names}); the argument has "
            f"shape {fmt_shape(arg.shape)}",
            hint="map each positional axis once; negative positions count from the end",
        )
    check_not_rebound([n for _, n in m.pairs], outer, f"{what}: in_axes")
    named = dict(arg.named)
    for (_, name), i in zip(m.pairs, idx):
        size = arg.shape[i]
        if name in sizes and differ(sizes[name][0], size):
            raise RuleError(NC403, f"Axis {name!r} has size {size} in {what} but {sizes[name][0]} in {sizes[name][1]}")
        if name not in sizes or not is_int(sizes[name][0]):
            sizes[name] = (size, what)
        named[name] = size
    shape = tuple(d for i, d in enumerate(arg.shape) if i not in idx)
    return ArrayType.make(arg.dtype_code, shape, named).with_varying(arg.varying)


def xmap_out(res: ArrayType, m: AxisMapping, own: dict[str, Dim], what: str) -> ArrayType:
    """A result of the xmapped body back outside: its named axes bound here become positional."""
    names_here = [n for _, n in m.pairs]
    for n in names_here:
        if n not in own:
            raise RuleError(
                NC405,
                f"{what}: out_axes names {n!r}, which this xmap does not define "
                f"(it defines {', '.join(map(repr, sorted(own))) or 'nothing'})",
            )
    named = dict(res.named)
    missing = sorted(n for n in named if n in own and n not in names_here)
    if missing:
        raise RuleError(
            NC404,
            f"{what} carries named axis {missing[0]!r}, which out_axes does not place",
            hint=f"add {missing[0]!r} to out_axes, or reduce over it (e.g. psum) before returning",
            data={"axis": missing[0]},
        )
    if res.has_ellipsis:
        raise ValueError
    nd_out = len(res.shape) + len(m.pairs)
    check_rank(m, nd_out, what, "out_axes")
    for pos, n in m.pairs:
        if pos >= nd_out:
            have = len(res.shape)
            raise RuleError(
                NC402,
                f"{what}: out_axes {m!r} puts {n!r} at position {pos}, which needs the body's "
                f"result to have at least {pos + 1 - len(m.pairs)} positional dimension"
                f"{'s' if pos + 1 - len(m.pairs) != 1 else ''}, but it has {have}",
                hint=f"place {n!r} at a position from 0 to {nd_out - 1}",
            )
    slots = out_positions(m, nd_out)
    dims = iter(res.shape)
    shape = [next(dims) if s is None else (named.pop(s) if s in named else own[s]) for s in slots]
    return ArrayType.make(res.dtype_code, tuple(shape), named)


def out_positions(m: AxisMapping, nd_out: int) -> list[str | None]:
    """The dims of an xmap result with `nd_out` dims: the name out_axes places at each position, None
    where the body's positional dims go (in order)."""
    slots: list[str | None] = [None] * (nd_out - len(m.pairs))
    for pos, n in sorted(m.pairs) if not m.prefix else list(m.pairs):
        slots.insert(norm_axis(pos, nd_out, "out_axes"), n)
    return slots


# ---- vmap ---------------------------------------------------------------------------------------


def vmap_axes_per_arg(in_axes: Any, n_args: int, kind: str = "vmap") -> tuple[Any, ...]:
    """vmap's in_axes as one entry per positional argument (an int or None broadcasts to all; NC401 otherwise:
    a tuple of another length, or a dict)."""
    if isinstance(in_axes, dict):
        raise RuleError(
            NC401,
            f"{kind} in_axes must be an int, None, or a tuple of entries corresponding to the positional "
            f"arguments, but it is a dict",
            hint="wrap it in a tuple with one entry per positional argument: in_axes=({...},)",
        )
    per_arg = in_axes if isinstance(in_axes, tuple) else (in_axes,) * n_args
    if len(per_arg) != n_args:
        raise RuleError(
            NC401,
            f"{kind} in_axes has {count(len(per_arg), 'entry', 'entries')} but the function is "
            f"called with {count(n_args, 'positional argument')}",
            hint="give one in_axes entry per positional argument (keyword arguments are always mapped over axis 0)",
            data={"entries": len(per_arg), "arguments": n_args},
        )
    return per_arg


def _rank0(axis: int, what: str, kind: str) -> RuleError:
    return RuleError(
        NC402,
        f"{what}: {kind} maps it along axis {axis}, which needs rank at least {axis + 1 if axis >= 0 else -axis}, "
        f"but it is a scalar (rank 0, shape ())",
        hint="give this argument in_axes None (it is then the same for every instance), or pass an array "
        "with the mapped axis",
        data={"axis": axis},
    )


def vmap_in(arg: ArrayType, axis: int, what: str, sizes: list[tuple[Any, str]], kind: str = "vmap") -> ArrayType:
    if arg.has_ellipsis:
        raise ValueError
    nd = len(arg.shape)
    if nd == 0:
        raise _rank0(axis, what, kind)
    if not -nd <= axis < nd:
        raise RuleError(
            NC402,
            f"{what}: vmap in_axes {axis} is out of range for an argument with {nd} "
            f"positional dimension{'s' if nd != 1 else ''} {fmt_shape(arg.shape)}",
        )
    i = axis % nd
    size = arg.shape[i]
    for s, w in sizes:
        if differ(s, size):
            raise RuleError(
                NC403,
                f"{kind} maps an axis of size {size} in {what} but of size {s} in {w}",
                hint="all mapped axes must have one size",
                data={"size": repr(size), "other": repr(s), "other_arg": w},
            )
    sizes.append((size, what))
    return arg.with_shape(arg.shape[:i] + arg.shape[i + 1 :])


def vmap_in_tree(arg: Any, axis: int, what: str, sizes: list[tuple[Any, str]], kind: str = "vmap") -> Any:
    """vmap_in over every array of a pytree argument (tuples, lists, dicts); a Python number is a scalar
    (rank 0) that cannot be mapped."""
    if isinstance(arg, ArrayType) and not arg.has_ellipsis:
        return vmap_in(arg, axis, what, sizes, kind)
    if isinstance(arg, Const) and isinstance(arg.value, (bool, int, float, complex)):
        raise _rank0(axis, what, kind)
    if isinstance(arg, Seq) and arg.kind == "dict":
        return Seq(
            tuple(
                Seq(
                    (
                        p.items[0],
                        vmap_in_tree(p.items[1], axis, f"{what}[{getattr(p.items[0], 'value', '?')!r}]", sizes, kind),
                    )
                )
                for p in arg.items
            ),
            "dict",
        )
    if isinstance(arg, Seq):
        return Seq(tuple(vmap_in_tree(v, axis, f"{what}[{i}]", sizes, kind) for i, v in enumerate(arg.items)), arg.kind)
    return UNKNOWN


def _keys(keys: Any) -> str:
    return ", ".join(repr(k) for k in sorted(keys, key=repr)) or "none"


def vmap_in_spec(arg: Any, spec: Any, what: str, sizes: list[tuple[Any, str]], kind: str = "vmap") -> Any:
    """One argument's per-instance value under its in_axes entry, a pytree prefix of it: None (not mapped),
    an int (every array below is mapped along it), or a tuple / dict matching the argument item for item
    (NC401 where the argument's structure is known and differs)."""
    if spec is None:
        return arg
    if isinstance(spec, int) and not isinstance(spec, bool):
        return vmap_in_tree(arg, spec, what, sizes, kind)
    if not isinstance(spec, (tuple, dict)):
        return UNKNOWN
    container = "a tuple" if isinstance(spec, tuple) else "a dict"
    if isinstance(arg, ArrayType) and not arg.is_partial:
        raise RuleError(
            NC401,
            f"{kind} in_axes gives {what} {container} of entries, but {what} is a single array: "
            f"in_axes must be a tree prefix of the arguments",
            hint="give a single array one entry (an int or None), not a container",
        )
    if not isinstance(arg, Seq) or arg.kind not in ("tuple", "list", "dict"):
        return UNKNOWN
    if isinstance(spec, tuple):
        if arg.kind == "dict" or len(spec) != len(arg.items):
            found = (
                f"a dict of {count(len(arg.items), 'item')}"
                if arg.kind == "dict"
                else f"a {arg.kind} of {count(len(arg.items), 'item')}"
            )
            raise RuleError(
                NC401,
                f"{kind} in_axes gives {what} a tuple of {count(len(spec), 'entry', 'entries')}, but {what} is "
                f"{found}: in_axes must be a tree prefix of the arguments",
                hint="give one entry per item of the argument (or a single int / None for all of them)",
            )
        return Seq(
            tuple(vmap_in_spec(v, a, f"{what}[{i}]", sizes, kind) for i, (v, a) in enumerate(zip(arg.items, spec))),
            arg.kind,
        )
    keys: list[Any] = []
    for p in arg.items:
        k = p.items[0] if isinstance(p, Seq) and len(p.items) == 2 else None
        if not isinstance(k, Const):
            return UNKNOWN
        keys.append(k.value)
    if arg.kind != "dict" or set(keys) != set(spec):
        found = f"a dict with keys {_keys(keys)}" if arg.kind == "dict" else f"a {arg.kind}"
        raise RuleError(
            NC401,
            f"{kind} in_axes gives {what} a dict with keys {_keys(spec)}, but {what} is {found}: "
            f"in_axes must be a tree prefix of the arguments",
            hint="give the in_axes dict the argument's keys",
        )
    return Seq(
        tuple(
            Seq((p.items[0], vmap_in_spec(p.items[1], spec[k], f"{what}[{k!r}]", sizes, kind)))
            for p, k in zip(arg.items, keys)
        ),
        "dict",
    )


def vmap_named_view(local: Any, axis_name: str, size: Any, declared: Any) -> Any:
    """vmap(axis_name=n) read the xmap way: a body parameter whose annotation declares named axis `n` sees
    the mapped axis as that named axis, of the mapped size (a size the annotation contradicts stays NC302)."""
    if (
        isinstance(local, ArrayType)
        and isinstance(declared, ArrayType)
        and axis_name in declared.named_shape
        and axis_name not in local.named_shape
    ):
        return local.with_named({**local.named_shape, axis_name: size})
    return local


def check_vmap_size_known(per_arg: tuple[Any, ...], axis_size: Any) -> None:
    """vmap needs its mapped size: from a mapped argument (an in_axes entry that is not None) or axis_size."""
    if per_arg and all(a is None for a in per_arg) and axis_size is None:
        raise RuleError(
            NC402,
            "vmap in_axes maps no argument (every entry is None) and axis_size is not given, "
            "so the mapped size is unknown",
            hint="map an argument or pass axis_size=",
        )


def check_axis_size(sizes: list[tuple[Any, str]], axis_size: Any) -> None:
    """vmap's axis_size= must be the size of every mapped axis (NC403)."""
    if not is_int(axis_size) or isinstance(axis_size, bool):
        return
    for s, w in sizes:
        if differ(s, axis_size):
            raise RuleError(
                NC403,
                f"vmap maps an axis of size {s} in {w}, but its axis_size is {axis_size}",
                hint="give axis_size the mapped axes' size, or leave it out (it is needed only when no argument "
                "is mapped)",
                data={"size": repr(s), "other": repr(axis_size), "other_arg": "axis_size"},
            )


def check_unmapped_output(mapped: bool, axis: Any) -> None:
    """out_axes=None promises an output that does not depend on the mapped axis."""
    if mapped and axis is None:
        raise RuleError(
            NC402,
            "vmap out_axes is None for an output that is mapped (it is a mapped argument)",
            hint="give the output an out_axes entry, or return a value that does not depend on the mapped arguments",
        )


def vmap_out(res: ArrayType, axis: int | None, size: Any) -> ArrayType:
    if axis is None or res.has_ellipsis:
        return res
    nd = len(res.shape) + 1
    i = norm_axis(axis, nd, "vmap out_axes")
    return res.with_shape(res.shape[:i] + (size,) + res.shape[i:])


# ---- shard_map ----------------------------------------------------------------------------------


def _spec_axes_checked(
    spec: Spec, mesh: MeshInfo, manual: frozenset[str], what: str, rank: int | tuple[Any, ...] | None
) -> None:
    """A shard_map spec: rank (when known), mesh axes, manual axes, repeats."""
    if rank is not None:
        placement.check_rank(spec, rank if isinstance(rank, tuple) else (None,) * rank, what)
    placement.check_mesh_axes(spec, mesh, what)
    for a in spec.axes():
        if a not in manual:
            raise RuleError(
                NC604,
                f"{what}: {spec!r} names mesh axis {a!r}, which is not manual in this "
                f"shard_map (axis_names={tuple(sorted(manual))!r})",
            )
    placement.check_repeats(spec, what)


def check_spec_names(spec: Spec, mesh: MeshInfo, manual: frozenset[str], what: str) -> None:
    """A shard_map spec's axes, whatever the array: in the mesh (NC501), manual (NC604), once (NC504)."""
    _spec_axes_checked(spec, mesh, manual, what, None)


_split_size = placement.split_size


def shard_in(arg: ArrayType, spec: Spec, mesh: MeshInfo, manual: frozenset[str], what: str) -> ArrayType:
    """The local block an input's instance sees: global dims divided by their mesh axes' sizes."""
    if arg.has_ellipsis:
        raise ValueError
    _spec_axes_checked(spec, mesh, manual, what, arg.shape)
    placement.check_divisible(spec, mesh, arg.shape, what)
    if set(mesh.names) <= manual:
        placement.check_shard_map_arg(arg, spec, mesh, what)
    shape = list(arg.shape)
    for i, e in enumerate(spec.entries):
        k, d = _split_size(e, mesh), shape[i]
        if e and is_int(k) and is_int(d):
            shape[i] = d // k
        elif e and k != 1:
            shape[i] = None
    local = arg.with_shape(tuple(shape)).with_varying(frozenset(spec.axes()) & manual, exact=True)
    return local.with_sharding(_local_sharding(arg, spec, mesh, manual))


def _local_sharding(arg: ArrayType, spec: Spec, mesh: MeshInfo, manual: frozenset[str]) -> Any:
    """Partly-Manual shard_map (`axis_names=` a subset of an Explicit mesh): inside the body an argument keeps
    its sharding over the other (Explicit) axes, per dim; its manual axes are those in_specs splits the dim
    over (an entry left None drops them). Unknown where in_specs moves a manual axis to another dim."""
    have = placement.of(arg)
    if not mesh.explicit or set(mesh.names) <= manual or have is None:
        return None
    entries = spec.entries + (None,) * (len(have) - len(spec.entries))
    out = []
    for axes, e in zip(have, entries):
        on_dim = tuple(a for a in axes if a in manual)
        if e and tuple(e) != on_dim:
            return None
        out.append(tuple(a for a in axes if a not in manual))
    return tuple(out)


def size_one_axes(env: AxisEnv, mesh: MeshInfo | None = None) -> frozenset[str]:
    """Mesh axes JAX may leave out of varying sets and shardings here: those of size 1 (or of a size not known)
    where `jax_remove_size_one_mesh_axis_from_type` is set or may be; none where it is surely off."""
    mesh = mesh if mesh is not None else env.mesh
    if env.flag(REMOVE_SIZE_ONE) is False or mesh is None:
        return frozenset()
    return frozenset(n for n, s in mesh.axes if s is None or s == 1)


def drop_varying(v: Any, axes: frozenset[str]) -> Any:
    """A pytree whose arrays' varying sets leave `axes` out (how JAX types them with size-1 axes removed)."""
    if not axes:
        return v
    return map_leaves(
        v, lambda a: a.with_varying(a.varying - axes) if isinstance(a, ArrayType) and a.varying & axes else a
    )


def shard_out(
    res: ArrayType, spec: Spec, mesh: MeshInfo, manual: frozenset[str], check_vma: bool, what: str
) -> ArrayType:
    """An output's global type; NC601 when it varies over a manual axis its out_spec leaves out (a
    lower bound of its varying set proves it, whatever its shape)."""
    _spec_axes_checked(spec, mesh, manual, what, res.shape)
    missing = sorted(res.varying - set(spec.axes()))
    if check_vma and missing:
        a = missing[0]
        raise RuleError(
            NC601,
            f"{what} varies over mesh axis {a!r}, but its out_specs {spec!r} leaves {a!r} out "
            f"(out_specs without an axis promise a value replicated over it)",
            hint=f"add {a!r} to out_specs, or psum over {a!r} before returning",
            data={"axis": a, "spec": [list(e) if e else None for e in spec.entries]},
        )
    if res.has_ellipsis:
        return replace(res, varying=frozenset(), vary_exact=True, spec=None)
    shape = list(res.shape)
    for i, e in enumerate(spec.entries):
        k, d = _split_size(e, mesh), shape[i]
        if e:
            shape[i] = d * k if is_int(d) and is_int(k) else None
    out = replace(ArrayType.make(res.dtype_code, tuple(shape), dict(res.named)), named_open=res.named_open)
    if set(mesh.names) <= manual:
        return out.with_sharding(placement.type_sharding(spec, mesh, out), placement.known_mesh(mesh))
    placed, inner = placement.type_sharding(spec, mesh, out), placement.of(res)
    if placed is None or inner is None or len(inner) != len(placed):  # partly Manual: out_specs' axes, then the body's
        return out
    return out.with_sharding(tuple(p + i for p, i in zip(placed, inner)), placement.known_mesh(mesh))


# ---- loop carries and branches (NC602) -------------------------------------------------------------


def check_carry(init: Any, out: Any, what: str) -> None:
    """A loop carry must keep its varying set (and its sharding over Explicit axes, NC809) across the body."""
    for i, (a, b) in enumerate(zip(tree_leaves(init), tree_leaves(out))):
        n = len(tree_leaves(init))
        try:
            placement.check_carry_sharding(a, b, what if n == 1 else f"{what}, carry item {i}")
        except RuleError as e:
            e.data.update(op=what, carry_item=None if n == 1 else i)
            raise
        if isinstance(a, ArrayType) and isinstance(b, ArrayType) and a.varying != b.varying:
            # gaining an axis is proven when the initial set is exact; losing one when the body's is
            extra = sorted(b.varying - a.varying) if a.vary_exact else []
            if not extra and not (b.vary_exact and a.varying - b.varying):
                continue
            where = f"carry item {i}" if len(tree_leaves(init)) > 1 else "the carry"
            if extra:
                axes = tuple(extra)
                raise RuleError(
                    NC602,
                    f"{what}: {where} starts invariant over {_axes(axes)} but the body returns "
                    f"it varying over {_axes(axes)}; a loop carry must keep its varying set",
                    hint=f"start from a varying carry: lax.pcast(init, {axes!r}, to='varying')",
                    data={
                        "op": what,
                        "kind": "init",
                        "axes": list(axes),
                        "carry_item": i if len(tree_leaves(init)) > 1 else None,
                    },
                )
            lost = tuple(sorted(a.varying - b.varying))
            raise RuleError(
                NC602,
                f"{what}: {where} starts varying over {_axes(lost)} but the body returns it "
                f"invariant over {_axes(lost)}; a loop carry must keep its varying set",
                hint=f"apply lax.pcast(..., {lost!r}, to='varying') to the body's carry output",
                data={
                    "op": what,
                    "kind": "body",
                    "axes": list(lost),
                    "carry_item": i if len(tree_leaves(init)) > 1 else None,
                },
            )


# ---- loop carries keep their type (NC408) ------------------------------------------------------------

_DEFAULT_DTYPES = frozenset({"i32", "i64", "f32", "f64", "c64", "c128"})  # what a weak (Python scalar) type becomes


def _carry_leaf(v: Any) -> tuple[str, ArrayType | None]:
    """What one part of a carry is: "None", an array (Python scalars: weak 0-d arrays), a container ("seq"), or
    "?" when not known (Unknown, an array of unknown rank, which may stand for a pytree, another object)."""
    if isinstance(v, Const):
        x = v.value
        if x is None:
            return "None", None
        if isinstance(x, bool):
            return "array", ArrayType("bool_", ())
        if isinstance(x, int):
            return "array", ArrayType("i*", ())
        if isinstance(x, float):
            return "array", ArrayType("f*", ())
        if isinstance(x, complex):
            return "array", ArrayType("c*", ())
        return "?", None
    if isinstance(v, DimVal):
        return "array", ArrayType("i*", ())
    if isinstance(v, ArrayType):
        return ("?", None) if v.has_ellipsis else ("array", v)
    if isinstance(v, Seq):
        return "seq", None
    return "?", None


def _describe(v: Any) -> str:
    kind, t = _carry_leaf(v)
    if isinstance(v, Const) and t is not None and dtypes.is_weak(t.dtype_code):
        return f"a Python {type(v.value).__name__} ({spelling.spell(ArrayType(dtypes.materialize(t.dtype_code), ()))})"
    if t is not None:
        code = dtypes.materialize(t.dtype_code)
        return spelling.spell(ArrayType(code, t.shape, t.named, family=t.family, variadic=t.variadic))
    if kind == "None":
        return "None"
    if isinstance(v, Seq) and dict_like(v):
        keys = keyed(v)
        name = "dict" if v.kind == "dict" else v.kind[len("class ") :]
        what = f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"
        if keys is None:
            return what
        return f"{what} with {'keys' if v.kind == 'dict' else 'fields'} {', '.join(map(str, (repr(k) if v.kind == 'dict' else k for k in keys)))}"
    if isinstance(v, Seq):
        return f"a {v.kind} of {len(v.items)} item{'s' if len(v.items) != 1 else ''}"
    return "a value"


def _structure_differs(a: Any, b: Any) -> bool:
    """Two parts of carries that `paired` did not walk into provably differ in pytree structure."""
    ka, kb = _carry_leaf(a)[0], _carry_leaf(b)[0]
    if "?" in (ka, kb):
        return False
    if ka != kb:
        return True
    if ka != "seq":
        return False
    assert isinstance(a, Seq) and isinstance(b, Seq)
    if dict_like(a) or dict_like(b):
        if dict_like(a) and dict_like(b):  # one kind: the keys differ (when known); two kinds: dict vs class
            return a.kind != b.kind or (keyed(a) is not None and keyed(b) is not None)
        return True  # a dict or class instance against a tuple or list
    # a tuple against a list of as many items: ops' results are not told apart reliably (top_k gives a list)
    return len(a.items) != len(b.items)


def _dtype_differs(init: ArrayType, out: ArrayType, strong: bool = False) -> bool:
    """The body's carry dtype provably differs from the initial one, as JAX decides: a weakly typed initial
    carry (a Python scalar, or any array of a default dtype not proven `strong`, which may be weak:
    `jnp.array(0)`) is first promoted with the body's output dtype; where that changes it, JAX traces the body
    again (silent)."""
    a, b = init.dtype_code, out.dtype_code
    if a is None or b is None:
        return False
    ma, mb = dtypes.materialize(a), dtypes.materialize(b)
    if ma is None or mb is None or ma == mb or frozenset({ma, mb}) in dtypes.X64_PAIRS:
        return False
    if dtypes.is_weak(a) or (ma in _DEFAULT_DTYPES and not strong):
        weak = {"i": dtypes.WEAK_INT, "f": dtypes.WEAK_FLOAT, "c": dtypes.WEAK_COMPLEX}.get(dtypes.kind(a) or "")
        promoted = dtypes.materialize(dtypes.promote(weak, b)) if weak else None
        if promoted is None or (promoted != ma and frozenset({promoted, ma}) not in dtypes.X64_PAIRS):
            return False
    return True


def _carry_where(path: tuple[tuple[str, Any], ...]) -> str:
    if not path:
        return "the carry"
    first = path[0][1] if isinstance(path[0][1], int) else path[0][0]
    return " ".join([f"carry item {first}", *(p[0] for p in path[1:])])


def check_carry_type(init: Any, out: Any, what: str, strong: Collection[tuple[Any, ...]] = ()) -> None:
    """NC408: a loop body returns its carry with the pytree structure, shapes and dtypes it received. Parts not
    known (Unknown, an unknown rank, dims or dtype) prove nothing. `strong`: the paths (indices and keys) of
    initial carry leaves known not to be weakly typed (built with an explicit dtype)."""
    for path, a, b in paired(init, out):
        ta, tb = _carry_leaf(a)[1], _carry_leaf(b)[1]
        if ta is not None and tb is not None:
            if len(ta.shape) != len(tb.shape) or any(differ(x, y) for x, y in zip(ta.shape, tb.shape)):
                part = "shape"
            elif _dtype_differs(ta, tb, tuple(p[1] for p in path) in strong):
                part = "dtype"
            else:
                continue
        elif _structure_differs(a, b):
            part = "structure"
        else:
            continue
        where, fa, fb = _carry_where(path), _describe(a), _describe(b)
        if part == "dtype":
            assert ta is not None and tb is not None
            hint = (
                f"cast the body's carry output back with .astype({dtypes.numpy_name(dtypes.materialize(ta.dtype_code))!r}), "
                f"or start the carry as {dtypes.numpy_name(dtypes.materialize(tb.dtype_code))}"
            )
        elif part == "shape":
            hint = f"return {where} with its initial shape {fmt_shape(ta.shape) if ta else ''}, or start it with the shape the body returns"
        else:
            hint = f"return {where} with the pytree structure of its initial value ({fa})"
        raise RuleError(
            NC408,
            f"{what}: {where} starts as {fa} but the body returns {fb}; a loop carry must keep its "
            f"{'pytree structure' if part == 'structure' else part} across iterations",
            hint=hint,
            data={
                "op": what,
                "kind": "type",
                "part": part,
                "path": [p[1] for p in path],
                "where": where,
                "init": fa,
                "out": fb,
            },
        )


def check_loop_cond(out: Any, what: str) -> None:
    """NC408: a while_loop's cond_fun returns a boolean scalar (a Python bool included)."""
    kind, t = _carry_leaf(out)
    bad = kind in ("None", "seq") or (
        t is not None and (t.shape != () or (t.dtype_code is not None and dtypes.materialize(t.dtype_code) != "bool_"))
    )
    if bad:
        raise RuleError(
            NC408,
            f"{what}: cond_fun must return a boolean scalar, but it returns {_describe(out)}",
            hint="reduce the condition to one boolean: (...).all(), (...).any(), or compare a scalar",
            data={"op": what, "kind": "cond", "out": _describe(out)},
        )


def _res(axes: Sequence[str]) -> str:
    """A resource assignment as written: `'x'` or `('x', 'y')`."""
    return repr(axes[0]) if len(axes) == 1 else repr(tuple(axes))


def _axes(axes: Sequence[str]) -> str:
    """Mesh axes for a message: `'x'`, `'x' and 'y'`."""
    names = [repr(a) for a in axes]
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 2 else names)


def _varies(axes: frozenset[str]) -> str:
    return f"varies over {_axes(sorted(axes))}" if axes else "is invariant (varies over no mesh axis)"


def check_branches(outs: Sequence[Any], what: str) -> None:
    """lax.cond / switch branches must agree on their outputs' varying sets (and shardings, NC823)."""
    placement.check_branch_shardings(outs, what)
    per_out = [tree_leaves(o) for o in outs]
    for i, group in enumerate(zip(*per_out)):
        arrays = [g for g in group if isinstance(g, ArrayType)]
        if len(arrays) == len(group) and len({a.varying for a in arrays}) > 1:
            union = frozenset().union(*(a.varying for a in arrays))
            for b, a in enumerate(arrays):
                if a.varying != union and a.vary_exact:
                    axes = tuple(sorted(union - a.varying))
                    other = next(o for o in arrays if o.varying - a.varying)
                    raise RuleError(
                        NC602,
                        f"{what}: output {i} of branch {b} {_varies(a.varying)}, but in branch "
                        f"{arrays.index(other)} it {_varies(other.varying)}; branches must return "
                        f"outputs varying over the same axes",
                        hint=f"apply lax.pcast(..., {axes!r}, to='varying') to branch {b}'s output",
                        data={
                            "op": what,
                            "kind": "branch",
                            "axes": list(axes),
                            "output": i,
                            "branch": b,
                            "union": sorted(union),
                        },
                    )


def scan_slice(v: Any) -> Any:
    """What a scan body sees of `xs`: every leaf without its leading dimension."""
    if isinstance(v, Seq):
        return map_leaves(v, scan_slice)
    if isinstance(v, ArrayType) and v.shape and not v.has_ellipsis:
        return placement.sliced(v, v.with_shape(v.shape[1:]))
    if isinstance(v, ArrayType) and v.has_ellipsis:  # unknown rank (or a pytree stand-in): same varying set
        return ArrayType.partial(v.varying, v.vary_exact, v.dtype_code)
    return UNKNOWN


def scan_stack(v: Any, n: Any) -> Any:
    """A scan's stacked outputs: every leaf with a leading dimension of the scan length."""
    if isinstance(v, Seq):
        return map_leaves(v, lambda leaf: scan_stack(leaf, n))
    if isinstance(v, ArrayType) and not v.has_ellipsis:
        return placement.stacked(v, v.with_shape((n,) + v.shape))
    return UNKNOWN


def rebuild_from_leaves(template: Any, leaves: list[Any]) -> Any:
    """`template` with its leaves (in `seq_leaves` order) replaced; Unknown when the counts differ."""
    if not isinstance(template, Seq):
        return leaves[0] if len(leaves) == 1 else UNKNOWN
    if len(leaves) != len(seq_leaves(template, "")):
        return UNKNOWN
    return seq_rebuild(template, iter(leaves))


__all__ = [
    "AxisEnv",
    "EMPTY_ENV",
    "MeshInfo",
    "Spec",
    "AxisMapping",
    "check_cooccurrence",
    "check_resources",
    "parse_mapping",
    "format_mapping",
    "check_rank",
    "check_defined",
    "defined_names",
    "xmap_in",
    "xmap_out",
    "vmap_in",
    "vmap_out",
    "shard_in",
    "shard_out",
    "check_carry",
    "check_carry_type",
    "check_loop_cond",
    "check_branches",
    "union_varying",
    "union_named",
]
