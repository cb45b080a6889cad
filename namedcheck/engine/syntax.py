"""The one parser of the annotation language: `dtype[(dims), {'name': size}]`, and the spelling
static tools accept, `dtype[Array, Dims(*dims, **named)]` (the same type), or with jaxtyping's dimension
string, `dtype[Array, "b 784"]` (engine/jaxtyping.py: jaxtyping's meaning, no named axes). A dimension may name the
Explicit mesh axes that split it as JAX prints them (`'8@data'`, `'B@(data,model)'`; `'8@()'`: stated
unsplit): the type then states its sharding (`ArrayType.sharding`, every other dimension unsplit).

Front ends hand it the literal Python value written between the brackets: the runtime gets it from
`__getitem__`, the analyzer builds it from syntax (a dict is passed as a list of pairs so duplicate
keys can be reported; the leading type as `BASE`; a `Dims(...)` call as a `Dims`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from namedcheck.engine import jaxtyping, symbolic
from namedcheck.engine.codes import NC101, NC102, NC103, NC104
from namedcheck.engine.dtypes import FAMILY_HEADS
from namedcheck.engine.errors import RuleError
from namedcheck.engine.values import ArrayType, Dim


class Pairs(list[tuple[Any, Any]]):
    """A dict literal as written: (key, value) pairs in order, duplicates kept."""


def written(v: Any) -> str:
    """A literal as the user wrote it (a dict given as `Pairs` prints as a dict, `...` as `...`)."""
    if v is ...:
        return "..."
    if isinstance(v, Pairs) or isinstance(v, Mapping):
        items = v if isinstance(v, Pairs) else list(v.items())
        return "{" + ", ".join(f"{written(k)}: {written(x)}" for k, x in items) + "}"
    if isinstance(v, tuple):
        return "(" + ", ".join(map(written, v)) + ("," if len(v) == 1 else "") + ")"
    if isinstance(v, list):
        return "[" + ", ".join(map(written, v)) + "]"
    return repr(v)


def _named_as_dict(v: Any) -> str | None:
    """The dict a list or tuple of named axes stands for (`['b', 2]` or `[('b', 2)]` -> `{'b': 2}`), if any."""
    if all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in v):
        pairs = list(v)
    elif len(v) % 2 == 0 and all(isinstance(n, str) for n in v[::2]):
        pairs = list(zip(v[::2], v[1::2]))
    else:
        return None
    return written(Pairs(pairs)) if pairs else None


def _bad_named_axes(dtype: str | None, item: tuple[Any, ...]) -> RuleError:
    """NC101 for what follows the positional shape when it is not one dict of named axes."""
    if len(item) == 2 and isinstance(item[1], (list, tuple)):
        kind = "list" if isinstance(item[1], list) else "tuple"
        fixed = _named_as_dict(item[1])
        named = fixed or "{'name': size}"
        example = f"{dtype or 'Array'}[{written(item[0])}, {named}]"
        return RuleError(
            NC101,
            f"Named axes must be a dict {{'name': size}}; found a {kind} {written(item[1])} "
            f"after the positional shape {written(item[0])}",
            hint=f"named axes are a dict {{'name': size}}: write {example}",
        )
    return RuleError(
        NC101,
        f"Expected `[(dims...), {{'name': size}}]`: a positional shape and at most one dict of "
        f"named axes; found {len(item)} parts {written(item)[1:-1]}",
    )


class _Base:
    """The leading type of `f32[Array, Dims(...)]` (`jax.Array` or any class) as a front end saw it."""

    def __repr__(self) -> str:
        return "Array"


BASE = _Base()


class Dims:
    """`Dims(5, 'N', batch=20)`: the positional dims, then the named axes as keywords.

    `f32[Array, Dims('B', 784, batch=20)]` means `f32[('B', 784), {'batch': 20}]`; static type checkers
    see `Annotated[Array, Dims(...)]`, and strings inside a call are never read as forward references.
    """

    __slots__ = ("dims", "named")

    def __init__(self, *dims: Any, **named: Any) -> None:
        self.dims = dims
        self.named: Mapping[str, Any] | Pairs = named

    @classmethod
    def written(cls, dims: tuple[Any, ...], named: Pairs) -> Dims:
        """A `Dims(...)` call as a front end read it from source (keywords kept in order, repeats kept)."""
        out = cls(*dims)
        out.named = named
        return out

    def __repr__(self) -> str:
        named = self.named.items() if isinstance(self.named, Mapping) else self.named
        return "Dims(" + ", ".join([*map(repr, self.dims), *(f"{k}={v!r}" for k, v in named)]) + ")"


def _size(v: Any, where: str) -> int | str:
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise RuleError(NC102, f"Invalid size {v!r} in {where}; expected a non-negative int or a symbol name")
    if isinstance(v, int) and v < 0:
        raise RuleError(
            NC102,
            f"Negative size {v} in {where}; sizes are non-negative ints or symbols",
            hint="use a symbol such as 'N' for a size that is not known in advance",
        )
    if isinstance(v, str) and not v.isidentifier():
        if len(v) > symbolic.MAX_TEXT:
            raise RuleError(
                NC102,
                f"Size expression {v[:40]!r}... in {where} is {len(v)} characters long; namedcheck reads "
                f"size expressions of at most {symbolic.MAX_TEXT}",
                hint="name the size with a symbol (e.g. 'N') and bind it where it is known",
            )
        if symbolic.parse(v) is None:
            raise RuleError(
                NC102,
                f"Invalid symbol {v!r} in {where}; a symbolic size is an identifier or "
                f"an expression of identifiers and ints with + - * //",
                hint="write e.g. 'N', 'N+1', '2*D' or 'D//H'",
            )
        return symbolic.normalise(v)
    return v


def _variadic(d: Any) -> str | None:
    """The name of a variadic run `'*batch'`, or None."""
    if isinstance(d, str) and d.startswith("*"):
        if not d[1:].isidentifier():
            raise RuleError(
                NC102,
                f"Invalid variadic dimension {d!r}; write '*name' with an identifier name",
                hint="e.g. f32[('*batch', 3)]",
            )
        return d[1:]
    return None


def _sharded_dim(d: Any) -> tuple[Any, tuple[str, ...] | None]:
    """A dimension written with its mesh axes, as JAX prints it: `'8@data'`, `'N@(data,model)'` -> the size
    and the axes; any other dimension -> itself and None."""
    if not (isinstance(d, str) and "@" in d):
        return d, None
    size, _, axes = d.partition("@")
    inner = axes[1:-1] if axes.startswith("(") and axes.endswith(")") else axes
    names = tuple(a.strip() for a in inner.split(",")) if inner.strip() or axes != "()" else ()  # '8@()': unsplit
    if not all(n.isidentifier() for n in names) or "@" in axes:
        raise RuleError(
            NC102,
            f"Invalid sharded dimension {d!r}; write 'size@axis' or 'size@(axis1,axis2)' with mesh axis names",
            hint="e.g. f32[Array, Dims('8@data', 4)]",
        )
    if len(set(names)) != len(names):
        raise RuleError(NC102, f"Invalid sharded dimension {d!r}: mesh axis repeated")
    size = size.strip()
    return (int(size) if size.lstrip("-").isdigit() else size), names


def parse_sharded_shape(shape: Any) -> tuple[tuple[Dim, ...], str | None, tuple[tuple[str, ...], ...] | None]:
    """The positional dims, the variadic's name, and the sharding the dims state (None when no dimension
    names a mesh axis; then nothing is said about it). A sharding needs the rank: no `...`."""
    if not isinstance(shape, tuple):
        return (*parse_shape_variadic(shape), None)
    split = [_sharded_dim(d) for d in shape]
    dims, variadic = parse_shape_variadic(tuple(d for d, _ in split))
    if all(a is None for _, a in split):
        return dims, variadic, None
    if ... in dims:
        raise RuleError(
            NC101,
            "A shape that names mesh axes ('8@data') must list every dimension: no `...` or variadic '*name' with it",
            hint="write each dimension, e.g. f32[Array, Dims('B@data', 'T', 512)]",
        )
    shd = tuple(a or () for _, a in split)
    flat = [a for e in shd for a in e]
    dup = sorted({a for a in flat if flat.count(a) > 1})
    if dup:
        raise RuleError(
            NC102,
            f"Mesh axis {dup[0]!r} splits more than one dimension of the shape "
            f"{written(shape)}; a mesh axis may split one dimension",
            hint="split each dimension over its own mesh axes",
        )
    return dims, variadic, shd


def parse_shape_variadic(shape: Any) -> tuple[tuple[Dim, ...], str | None]:
    """The positional dims (a variadic `'*name'` becomes `...`) and the variadic's name."""
    if not isinstance(shape, tuple):
        raise RuleError(
            NC101,
            f"Positional shape must be a tuple such as (5, 7) or (); found {written(shape)}",
            hint="write f32[(5,)] for a 1-d array, f32[()] for a scalar",
        )
    dims: list[Any] = []
    name: str | None = None
    for d in shape:
        var = _variadic(d)
        if d is ... or var:
            if ... in dims:
                raise RuleError(
                    NC104,
                    "`...` or a variadic '*name' appears more than once in the positional "
                    "shape; it may appear at most once",
                )
            dims.append(...)
            name = var
        else:
            dims.append(_size(d, "the positional shape"))
    return tuple(dims), name


def parse_named(named: Any) -> dict[str, Dim]:
    if isinstance(named, Mapping):
        pairs = list(named.items())
    elif isinstance(named, Pairs):
        pairs = list(named)
    else:
        raise RuleError(NC101, f"Named shape must be a dict such as {{'batch': 20}}; found {written(named)}")
    out: dict[str, Dim] = {}
    for name, size in pairs:
        if not isinstance(name, str) or not name:
            raise RuleError(NC101, f"Axis name {name!r} is not a string; named axes are written {{'name': size}}")
        if name in out:
            raise RuleError(NC103, f"Named axis {name!r} appears twice in the named shape")
        out[name] = _size(size, f"named axis {name!r}")
    return out


def _is_base(v: Any) -> bool:
    return v is BASE or isinstance(v, type)


def _strip_base(item: Any) -> Any:
    """`[Array, Dims(...)]` / `[Array, (dims), {named}]` -> what the short spelling leaves after the type."""
    if not (isinstance(item, tuple) and item and _is_base(item[0])):
        return item
    rest = item[1:]
    if len(rest) == 1 and isinstance(rest[0], Dims):
        return (tuple(rest[0].dims), rest[0].named)
    if len(rest) == 1 and isinstance(rest[0], tuple):
        return rest[0]
    if len(rest) == 2 and isinstance(rest[0], tuple):
        return rest
    raise RuleError(
        NC101,
        f"Expected `[Array, Dims(dims..., name=size)]` after the dtype; found {len(rest)} "
        f"part{'s' if len(rest) != 1 else ''} after the type",
        hint="write f32[Array, Dims(5, 'N', batch=20)]",
    )


def parse_item(dtype: str | None, item: Any) -> ArrayType:
    """Parse what was written between the brackets of `dtype[...]` into an ArrayType.

    `dtype` is a dtype's short name, a family (`Float`, `Int`, `Complex`, `Num`, `Shaped`) or None (any)."""
    family = dtype if dtype in FAMILY_HEADS and dtype != "Shaped" else None
    dtype = None if dtype in FAMILY_HEADS else dtype
    spelled = "dims" if isinstance(item, Dims) or (isinstance(item, tuple) and item and item[0] is BASE) else "literal"
    if isinstance(item, tuple) and item and isinstance(item[0], type):
        spelled = "dims"  # `f32[jax.Array, ...]` as the runtime receives it
    if isinstance(item, tuple) and len(item) == 2 and _is_base(item[0]) and isinstance(item[1], str):
        return jaxtyping.array_type(dtype, family, item[1])  # `f32[Array, "b 784"]`: a jaxtyping dimension string
    if isinstance(item, Dims):
        item = (tuple(item.dims), item.named)
    item = _strip_base(item)
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], (Mapping, Pairs)):
        shape, named = item
    elif isinstance(item, tuple) and item and isinstance(item[0], tuple):
        raise _bad_named_axes(dtype, item)
    else:
        shape, named = item, {}
    dims, variadic, shd = parse_sharded_shape(shape)
    out = ArrayType.make(dtype, dims, parse_named(named))
    if shd is not None:
        out = out.with_sharding(shd)
    return replace(out, family=family, variadic=variadic, spelling=spelled)


# ---- the printed form: an ArrayType's repr read back -------------------------------------------------------
_SHARDED_DIM = re.compile(r"(?<!\d)(\d+@(?:\w+|\([\w,]+\)))")  # from a number's first digit only: linear
_SETS = re.compile(r"\{([VUR]):([\w.,]*)\}$")


def parse_printed(text: str) -> ArrayType | None:
    """An array type as `ArrayType.__repr__` prints it (`f32[(8@data, 4), {'b': 2}]{U:x}`: a sharded dim
    unquoted, as `jax.typeof` prints it; varying / unreduced / reduced sets as suffixes) read back, None when
    `text` is not one. The mypy plugin carries inferred types in this form; `parse_printed(repr(t)) == t`
    (tests/test_annotations.py)."""
    sets: dict[str, frozenset[str]] = {}
    while (m := _SETS.search(text)) is not None:
        names = [n for n in m.group(2).split(",") if n]
        if "..." in names or m.group(1) in sets:
            return None  # a lower bound is not a type that can be stated
        sets[m.group(1)] = frozenset(names)
        text = text[: m.start()]
    head, bracket, rest = _SHARDED_DIM.sub(r"'\1'", text).partition("[")
    if not bracket or not rest.endswith("]"):
        return None
    try:
        parts = ast.literal_eval("(" + rest[:-1] + ",)")  # the shape, and the named axes if any
        out = parse_item(None if head == "Array" else head, parts[0] if len(parts) == 1 else parts)
    except (RuleError, ValueError, SyntaxError, TypeError):
        return None
    if "V" in sets:
        out = out.with_varying(sets["V"])
    if "U" in sets or "R" in sets:
        out = replace(out, unreduced=sets.get("U", frozenset()), reduced=sets.get("R", frozenset()))
    return out
