"""einops as shape rules: `rearrange`, `reduce`, `repeat` (patterns with composite axes `(h d)`, `...`, `1` / `()`,
anonymous sizes and sizes given as keywords `h=8`), `einsum` (named axes, translated to jnp.einsum's letters),
`pack` / `unpack` and `parse_shape`. What einops rejects whatever the sizes are (an axis on one side only, a
malformed pattern, a rank the pattern does not have) is NC702 at the pattern; sizes it rejects (a composite that
does not divide, an axis given a size it does not have) NC203. The parser follows einops' own rules
(`ParsedExpression`); a pattern spelled in a way it does not read is not modelled (Unknown)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from namedcheck.engine import dtypes, symbolic
from namedcheck.engine.algebra import differ, fmt_shape, is_int, product
from namedcheck.engine.codes import NC203, NC702
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Unprovable, rule
from namedcheck.engine.ops.einsum import einsum_type
from namedcheck.engine.ops.layers import layer
from namedcheck.engine.ops.reductions import reduced_dtype
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, Dim, DimVal, NotLiteral, Seq, dim_of

ELL = "\u2026"  # einops' own token for `...`
REDUCTIONS = {"min": "same", "max": "same", "sum": "int", "prod": "int", "mean": "float", "any": "bool", "all": "bool"}
_HINT = "write each axis once per side, `(a b)` for a composite, `1` or `()` for a unit axis, sizes as keywords (h=8)"


class PatternError(Exception):
    """A pattern einops rejects whatever the tensor is (NC702 at the pattern)."""


@dataclass
class Side:
    """One side of a pattern: its dimensions (a list of axis names per dimension, ELL for a bare `...`)."""

    groups: list[list[str] | str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)  # identifiers, in order (ELL and anonymous tokens included)
    anon: dict[str, int] = field(default_factory=dict)  # anonymous axes (`3`): a token per occurrence -> size
    ellipsis: bool = False
    ellipsis_grouped: bool = False

    @property
    def non_unit_anon(self) -> bool:
        return bool(self.anon)


def _axis_reason(name: str, underscore: bool = False) -> str | None:
    """Why einops rejects an axis name (None: it accepts it)."""
    if not name.isidentifier():
        return "not a valid python identifier"
    if name[0] == "_" or name[-1] == "_":
        return None if name == "_" and underscore else "an axis name may not start or end with an underscore"
    return None


def parse_side(text: str, counter: list[int], duplicates: bool = False, underscore: bool = False) -> Side:
    """One side of a pattern as einops reads it (`ParsedExpression`); PatternError where it rejects it, Unprovable
    for whitespace other than spaces (not modelled)."""
    side = Side()
    if any(c.isspace() and c != " " for c in text) or not text.isascii():
        raise Unprovable
    if "." in text:
        if "..." not in text:
            raise PatternError("dots may appear only in an ellipsis (...)")
        if text.count("...") != 1 or text.count(".") != 3:
            raise PatternError("dots may appear only in one ellipsis (...)")
        text = text.replace("...", ELL)
        side.ellipsis = True
    group: list[str] | None = None

    def add(token: str) -> None:
        if token in side.names and not duplicates:
            raise PatternError(f"axis {token!r} appears twice on one side".replace(ELL, "..."))
        if token == ELL:
            side.names.append(ELL)
            if group is None:
                side.groups.append(ELL)
            else:
                group.append(ELL)
                side.ellipsis_grouped = True
            return
        if token.isdecimal():
            value = int(token)
            if value == 1:
                if group is None:
                    side.groups.append([])
                return
            if value == 0:
                raise PatternError("an anonymous axis must have a positive length, not 0")
            counter[0] += 1
            token = f"{value}#{counter[0]}"  # every anonymous axis is its own axis
            side.anon[token] = value
        else:
            why = _axis_reason(token, underscore)
            if why is not None:
                raise PatternError(f"invalid axis {token!r}: {why}")
        side.names.append(token)
        if group is None:
            side.groups.append([token])
        else:
            group.append(token)

    current = ""
    for ch in text:
        if ch in "() ":
            if current:
                add(current)
            current = ""
            if ch == "(":
                if group is not None:
                    raise PatternError("brackets inside brackets are not allowed")
                group = []
            elif ch == ")":
                if group is None:
                    raise PatternError("brackets are not balanced")
                side.groups.append(group)
                group = None
        elif ch.isalnum() or ch in ("_", ELL):
            current += ch
        else:
            raise PatternError(f"unknown character {ch!r}")
    if group is not None:
        raise PatternError("brackets are not balanced")
    if current:
        add(current)
    return side


def _shown(pattern: str) -> str:
    return repr(pattern) if len(pattern) <= 80 else repr(pattern[:77] + "...")


def _bad(op: str, pattern: str, why: str) -> RuleError:
    return RuleError(NC702, f"{op} pattern {_shown(pattern)}: {why}", hint=_HINT, data={"at": "pattern"})


def _sizes(op: str, pattern: str, why: str) -> RuleError:
    return RuleError(
        NC203,
        f"{op} pattern {_shown(pattern)}: {why}",
        hint="give the axes sizes whose product is the tensor's dimension (a keyword size, or the tensor's shape)",
    )


@dataclass
class Recipe:
    left: Side
    right: Side
    given: dict[str, Dim]  # sizes given as keywords


def _plain(names: list[str]) -> set[str]:
    return {n for n in names if n != ELL}


def recipe(op: str, pattern: str, kind: str, given: dict[str, Dim]) -> Recipe:
    """What a pattern alone decides (einops' `_prepare_transformation_recipe` before the rank); `kind` is
    rearrange, repeat or reduce."""
    if pattern.count("->") != 1:
        raise _bad(op, pattern, "a pattern has exactly one '->'")
    counter = [0]
    try:
        left_text, right_text = pattern.split("->")
        left, right = parse_side(left_text, counter), parse_side(right_text, counter)
    except PatternError as e:
        raise _bad(op, pattern, str(e)) from None
    if right.ellipsis and not left.ellipsis:
        raise _bad(op, pattern, "'...' on the right side but not on the left")
    if left.ellipsis and left.ellipsis_grouped:
        raise _bad(op, pattern, "'...' inside brackets on the left side")
    lnames, rnames = set(left.names), set(right.names)  # `...` included: it is an axis of its own
    if kind == "rearrange":
        if left.non_unit_anon or right.non_unit_anon:
            raise _bad(op, pattern, "anonymous axes other than 1 are not allowed in rearrange")
        only = sorted(lnames ^ rnames)
        if only:
            raise _bad(op, pattern, f"axis {_name(only[0])} appears on one side only (rearrange keeps every axis)")
    elif kind == "repeat":
        only = sorted(lnames - rnames)
        if only:
            raise _bad(op, pattern, f"axis {_name(only[0])} on the left side does not appear on the right")
        unsized = sorted(n for n in rnames - lnames if n not in right.anon and n not in given)
        if unsized:
            raise _bad(op, pattern, f"new axis {unsized[0]!r} needs its size (`{unsized[0]}=...`)")
    else:
        only = sorted(rnames - lnames)
        if only:
            raise _bad(op, pattern, f"axis {_name(only[0])} on the right side does not appear on the left")
    return Recipe(left, right, given)


def _group_text(group: list[str]) -> str:
    """A dimension of the pattern as written (`(h d)`, `h`, `...`'s own dimensions as `...`)."""
    names = ["..." if a.startswith(ELL) else a.partition("#")[0] for a in group]
    return "1" if not names else names[0] if len(names) == 1 else "(" + " ".join(names) + ")"


def _name(axis: str) -> str:
    """An axis as a message quotes it (`...`, an anonymous `3`, `'h'`)."""
    if axis == ELL:
        return "'...'"
    return axis.partition("#")[0] if "#" in axis else repr(axis)


def _check_given(op: str, pattern: str, r: Recipe) -> None:
    """Keyword sizes: each a valid axis name the pattern uses."""
    used = _plain(r.left.names) | _plain(r.right.names)
    for name in r.given:
        why = _axis_reason(name)
        if why is not None:
            raise _bad(op, pattern, f"invalid axis {name!r}: {why}")
        if name not in used:
            raise _bad(op, pattern, f"axis {name!r} is given a size but not used in the pattern")


def _expand(groups: list[list[str] | str], ell: list[str]) -> list[list[str]]:
    out: list[list[str]] = []
    for g in groups:
        if g == ELL:
            out.extend([a] for a in ell)
        else:
            assert isinstance(g, list)
            out.append([a for n in g for a in (ell if n == ELL else [n])])
    return out


def _rank_fits(op: str, pattern: str, left: Side, ndim: int) -> None:
    n = len(left.groups)
    if left.ellipsis and ndim < n - 1:
        raise _bad(op, pattern, f"the pattern needs at least {n - 1} dimensions but the tensor has {ndim}")
    if not left.ellipsis and ndim != n:
        raise _bad(op, pattern, f"the pattern has {n} dimension{'s' if n != 1 else ''} but the tensor has {ndim}")


def _input_dims(x: ArrayType, left: Side) -> tuple[Dim, ...]:
    """The tensor's dims for a left side; a rank not known is the pattern's (einops raises otherwise), with the
    sizes known around the unknown part."""
    if not x.has_ellipsis:
        return x.shape
    if left.ellipsis:
        raise Unprovable
    i = x.shape.index(...)
    head, tail = x.shape[:i], x.shape[i + 1 :]
    if ... in tail or len(head) + len(tail) > len(left.groups):
        raise Unprovable
    return (*head, *([None] * (len(left.groups) - len(head) - len(tail))), *tail)


def solve(op: str, pattern: str, r: Recipe, shape: tuple[Dim, ...]) -> dict[str, Dim]:
    """Every axis's size from the tensor's shape (einops' `_reconstruct_from_shape`); NC203 where the sizes do
    not fit."""
    n_ell = len(shape) - (len(r.left.groups) - 1) if r.left.ellipsis else 0
    ell = [f"{ELL}{i}" for i in range(n_ell)]
    left = _expand(r.left.groups, ell)
    sizes: dict[str, Dim] = {**r.left.anon, **r.right.anon, **r.given}
    for group, length in zip(left, shape):
        unknown = [a for a in group if a not in sizes]
        if len(unknown) > 1:
            raise _bad(op, pattern, f"the sizes of {' and '.join(repr(a) for a in unknown)} cannot be inferred")
        known = product([sizes[a] for a in group if a in sizes])
        what = _group_text(group)
        if not unknown:
            if known is not None and length is not None and differ(length, known):
                raise _sizes(op, pattern, f"axis {what} has size {length}, not {known}")
            continue
        inferred: Dim = None
        if is_int(known) and known > 0 and length is not None:
            rem = length % known if is_int(length) else symbolic.remainder(length, known)
            if rem:
                raise _sizes(op, pattern, f"axis {what} of size {length} cannot be split into chunks of {known}")
            inferred = length // known if is_int(length) else symbolic.quotient(length, known)
        elif known is not None and length is not None:
            inferred = symbolic.quotient(length, known)
        sizes[unknown[0]] = inferred
    return sizes


def result_shape(r: Recipe, sizes: dict[str, Dim], n_ell: int) -> tuple[Dim, ...]:
    ell = [f"{ELL}{i}" for i in range(n_ell)]
    return tuple(product([sizes.get(a) for a in group]) for group in _expand(r.right.groups, ell))


def _given(call: Call, params: tuple[str, ...]) -> dict[str, Dim]:
    out: dict[str, Dim] = {}
    for k, v in call.args.items():
        if k in params:
            continue
        try:
            out[k] = dim_of(v)
        except NotLiteral:
            out[k] = None
    return out


def _pattern(call: Call, name: str = "pattern") -> str:
    p = call.get(name)
    if not (isinstance(p, Const) and isinstance(p.value, str)):
        raise Unprovable
    return p.value


def _tensor(call: Call) -> ArrayType:
    """The tensor argument (a list of tensors is stacked on a new first axis)."""
    v = call.get("tensor")
    if isinstance(v, Const) or (isinstance(v, Seq) and v.kind != "list"):
        raise Unprovable
    x = as_array(v)
    if x is UNKNOWN:
        return ArrayType.partial(exact=not call.env.manual)
    if not isinstance(x, ArrayType) or x.named or x.named_open:
        raise Unprovable
    return x


def transform(call: Call, kind: str, params: tuple[str, ...]) -> tuple[ArrayType, tuple[Dim, ...]]:
    op = call.op
    pattern = _pattern(call)
    r = recipe(op, pattern, kind, _given(call, params))
    x = _tensor(call)
    if not x.has_ellipsis:
        _rank_fits(op, pattern, r.left, len(x.shape))
    _check_given(op, pattern, r)
    shape = _input_dims(x, r.left)
    sizes = solve(op, pattern, r, shape)
    n_ell = len(shape) - (len(r.left.groups) - 1) if r.left.ellipsis else 0
    return x, result_shape(r, sizes, n_ell)


@rule("einops.rearrange")
def rearrange_rule(call: Call) -> Any:
    x, shape = transform(call, "rearrange", ("tensor", "pattern"))
    return ArrayType.make(x.dtype_code, shape, weak=x.weak)


@rule("einops.repeat")
def repeat_rule(call: Call) -> Any:
    x, shape = transform(call, "repeat", ("tensor", "pattern"))
    return ArrayType.make(x.dtype_code, shape, weak=x.weak)


@rule("einops.reduce")
def reduce_rule(call: Call) -> Any:
    how = call.get("reduction")
    mode = REDUCTIONS.get(how.value) if isinstance(how, Const) and isinstance(how.value, str) else None
    x, shape = transform(call, "reduce", ("tensor", "pattern", "reduction"))
    if mode is None:
        raise Unprovable  # a callable, or a name einops may reject: not modelled
    kind = dtypes.kind(x.dtype_code)
    if mode == "float" and kind not in ("f", None):
        raise Unprovable  # einops refuses the mean of integers (NotImplementedError): not modelled
    if mode == "int" and kind != "f":
        mode = "unknown"  # numpy's and JAX's integer sums differ in width
    dtype = x.dtype_code if mode == "same" else None if mode == "unknown" else reduced_dtype(x.dtype_code, mode)
    return ArrayType.make(dtype, shape)


def _layer_call(call: Call, params: tuple[str, ...]) -> Call:
    """A flax layer's call (`Rearrange(pattern, sizes={...})(x)`) as the function's (`rearrange(x, pattern, ...)`)."""
    sizes = call.get("sizes", Seq((), "dict"))
    if isinstance(sizes, Const) and sizes.value is None:
        sizes = Seq((), "dict")
    if not isinstance(sizes, Seq) or sizes.kind != "dict":
        raise Unprovable
    args = {"tensor": call.get("input"), **{p: call.get(p) for p in params}}
    for pair in sizes.items:
        key = pair.items[0] if isinstance(pair, Seq) and len(pair.items) == 2 else None
        if not (isinstance(key, Const) and isinstance(key.value, str)) or key.value in args:
            raise Unprovable
        args[key.value] = pair.items[1]
    return Call(call.op, args, (), call.labels, call.options, call.env, call.exact)


@layer("einops.layers.flax.Rearrange")
def rearrange_layer_rule(call: Call) -> Any:
    return rearrange_rule(_layer_call(call, ("pattern",)))


@layer("einops.layers.flax.Reduce")
def reduce_layer_rule(call: Call) -> Any:
    return reduce_rule(_layer_call(call, ("pattern", "reduction")))


_EINSUM_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def compact(op: str, pattern: str) -> str:
    """An einops einsum pattern (`'b i d, b j d -> b i j'`) as jnp.einsum's letters (einops' own translation)."""
    if "->" not in pattern:
        raise _bad(op, pattern, "an einsum pattern needs '->'")
    if pattern.count("->") != 1:
        raise _bad(op, pattern, "a pattern has exactly one '->'")
    lefts, right_text = pattern.split("->")
    counter = [0]
    try:
        sides = [parse_side(t, counter, duplicates=True, underscore=True) for t in lefts.split(",")]
        right = parse_side(right_text, counter, underscore=True)
    except PatternError as e:
        raise _bad(op, pattern, str(e)) from None
    letters: dict[str, str] = {}

    def term(side: Side, new: bool) -> str:
        out = ""
        for g in side.groups:
            if g == ELL:
                out += "..."
                continue
            if not isinstance(g, list) or len(g) != 1 or g[0] in side.anon:
                raise Unprovable  # composites and anonymous axes: einops' translation misreads them
            name = g[0]
            if name not in letters:
                if not new:
                    raise _bad(op, pattern, f"axis {name!r} on the right side appears in no input")
                if len(letters) == len(_EINSUM_LETTERS):
                    raise Unprovable
                letters[name] = _EINSUM_LETTERS[len(letters)]
            out += letters[name]
        return out

    inputs = [term(s, True) for s in sides]
    return ",".join(inputs) + "->" + term(right, False)


@rule("einops.einsum")
def einsum_rule(call: Call) -> Any:
    args = call.extra
    if len(args) < 2:
        raise Unprovable
    p = args[-1]
    if not (isinstance(p, Const) and isinstance(p.value, str)):
        raise Unprovable
    spec = compact(call.op, p.value)
    ops = [as_array(a) for a in args[:-1]]
    if not all(isinstance(t, ArrayType) for t in ops):
        raise Unprovable
    labels = [call.label(f"*{i}") for i in range(len(ops))]
    try:
        return einsum_type(spec, ops, labels, op=call.op)
    except RuleError as e:
        raise RuleError(e.code, f"{e.message} (einops pattern {_shown(p.value)})", e.hint) from None


def pack_axes(op: str, pattern: str) -> tuple[int, int]:
    """A pack / unpack pattern's axes before and after the `*` (einops' `analyse_pattern`)."""
    axes = pattern.split()
    if len(set(axes)) != len(axes):
        raise _bad(op, pattern, "an axis appears twice")
    if "*" not in axes:
        raise _bad(op, pattern, "a pack pattern needs one '*' axis")
    for a in axes:
        if a != "*" and _axis_reason(a) is not None:
            raise _bad(op, pattern, f"invalid axis {a!r}")
    before = axes.index("*")
    return before, len(axes) - before - 1


def _size_value(d: Dim) -> Any:
    return Const(d) if is_int(d) else DimVal(d)


@rule("einops.pack")
def pack_rule(call: Call) -> Any:
    pattern = _pattern(call)
    before, after = pack_axes(call.op, pattern)
    tensors = call.get("tensors")
    if not isinstance(tensors, Seq) or tensors.kind == "dict" or not tensors.items:
        raise Unprovable
    xs = [as_array(t) for t in tensors.items]
    if not all(isinstance(t, ArrayType) and not t.named and not t.named_open for t in xs):
        raise Unprovable
    outer: list[Dim] | None = None
    packed: list[Dim] = []
    shapes: list[Any] = []
    for i, x in enumerate(xs):
        if x.has_ellipsis:
            raise Unprovable
        if len(x.shape) < before + after:
            raise _bad(
                call.op,
                pattern,
                f"tensor #{i} has shape {fmt_shape(x.shape)}, while the pattern needs at least {before + after} axes",
            )
        end = len(x.shape) - after
        mid = x.shape[before:end]
        rest = [*x.shape[:before], *x.shape[end:]]
        if outer is None:
            outer = rest
        else:
            for a, b in zip(outer, rest):
                if differ(a, b):
                    raise _sizes(
                        call.op,
                        pattern,
                        f"tensor #{i} has shape {fmt_shape(x.shape)}: its axes outside '*' differ from the "
                        f"first tensor's {fmt_shape(xs[0].shape)}",
                    )
        packed.append(product(mid))
        shapes.append(Seq(tuple(_size_value(d) for d in mid), "tuple"))
    assert outer is not None
    total: Dim = None if any(p is None for p in packed) else _sum(packed)
    dt = dtypes.materialize(dtypes.promote(*[t.dtype_code for t in xs]))
    out = ArrayType.make(dt, (*outer[:before], total, *outer[before:]))
    return Seq((out, Seq(tuple(shapes), "list")), "tuple")


def _sum(ds: list[Dim]) -> Dim:
    total: Dim = 0
    for d in ds:
        total = total + d if is_int(total) and is_int(d) else symbolic.arith("+", total, d)
        if total is None:
            return None
    return total


@rule("einops.unpack")
def unpack_rule(call: Call) -> Any:
    pattern = _pattern(call)
    before, after = pack_axes(call.op, pattern)
    x = call.array("tensor")
    if x.has_ellipsis or x.named or x.named_open:
        raise Unprovable
    if len(x.shape) != before + 1 + after:
        raise _bad(call.op, pattern, f"the tensor has shape {fmt_shape(x.shape)}, not {before + 1 + after} axes")
    ps = call.get("packed_shapes")
    if not isinstance(ps, Seq) or ps.kind == "dict":
        raise Unprovable
    shapes: list[tuple[Dim, ...]] = []
    for s in ps.items:
        if not isinstance(s, Seq) or s.kind == "dict":
            raise Unprovable
        try:
            shapes.append(tuple(dim_of(d) for d in s.items))
        except NotLiteral:
            raise Unprovable from None
    if any(-1 in s for s in shapes):
        raise Unprovable
    n = x.shape[before]
    total = _sum([product(s) for s in shapes])
    if total is not None and n is not None and differ(n, total):
        raise _sizes(call.op, pattern, f"cannot split axis of size {n} into {[fmt_shape(s) for s in shapes]}")
    head, tail = x.shape[:before], x.shape[before + 1 :]
    return Seq(tuple(x.with_shape((*head, *s, *tail)) for s in shapes), "list")


@rule("einops.parse_shape")
def parse_shape_rule(call: Call) -> Any:
    pattern = _pattern(call)
    x = call.array("x")
    if x.has_ellipsis or "." in pattern or "(" in pattern:
        raise Unprovable
    names = pattern.split()
    if any(_axis_reason(n, underscore=True) for n in names if not n.isdecimal()):
        raise Unprovable
    if len(names) != len(x.shape):
        raise _bad(call.op, pattern, f"the pattern has {len(names)} axes but the tensor has shape {fmt_shape(x.shape)}")
    items: list[tuple[str, Dim]] = []
    for n, d in zip(names, x.shape):
        if n == "_":
            continue
        if n.isdecimal() or n in [k for k, _ in items]:
            raise Unprovable
        items.append((n, d))
    return Seq(tuple(Seq((Const(n), _size_value(d)), "tuple") for n, d in items), "dict")


__all__ = ["ELL", "PatternError", "parse_side", "recipe", "solve", "compact", "pack_axes"]
