"""The one parser of the annotation language: `dtype[(dims), {'name': size}]`.

Front ends hand it the literal Python value written between the brackets: the runtime gets it from
`__getitem__`, the analyzer builds it from syntax (a dict is passed as a list of pairs so duplicate
keys can be reported).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from namedcheck.engine.errors import RuleError
from namedcheck.engine.values import ArrayType


class Pairs(list):  # type: ignore[type-arg]
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
        return RuleError("NC101", f"Named axes must be a dict {{'name': size}}; found a {kind} {written(item[1])} "
                                  f"after the positional shape {written(item[0])}",
                         hint=f"named axes are a dict {{'name': size}}: write {example}")
    return RuleError("NC101", f"Expected `[(dims...), {{'name': size}}]`: a positional shape and at most one dict of "
                              f"named axes; found {len(item)} parts {written(item)[1:-1]}")


def _size(v: Any, where: str) -> int | str:
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise RuleError("NC102", f"Invalid size {v!r} in {where}; expected a non-negative int or a symbol name")
    if isinstance(v, int) and v < 0:
        raise RuleError("NC102", f"Negative size {v} in {where}; sizes are non-negative ints or symbols",
                        hint="use a symbol such as 'N' for a size that is not known in advance")
    if isinstance(v, str) and not v.isidentifier():
        raise RuleError("NC102", f"Invalid symbol {v!r} in {where}; a symbolic size must be an identifier")
    return v


def parse_shape(shape: Any) -> tuple[Any, ...]:
    if not isinstance(shape, tuple):
        raise RuleError("NC101", f"Positional shape must be a tuple such as (5, 7) or (); found {written(shape)}",
                        hint="write f32[(5,)] for a 1-d array, f32[()] for a scalar")
    dims: list[Any] = []
    for d in shape:
        if d is ...:
            if ... in dims:
                raise RuleError("NC104", "`...` appears more than once in the positional shape; it may appear at most once")
            dims.append(...)
        else:
            dims.append(_size(d, "the positional shape"))
    return tuple(dims)


def parse_named(named: Any) -> dict[str, Any]:
    if isinstance(named, Mapping):
        pairs = list(named.items())
    elif isinstance(named, Pairs):
        pairs = list(named)
    else:
        raise RuleError("NC101", f"Named shape must be a dict such as {{'batch': 20}}; found {written(named)}")
    out: dict[str, Any] = {}
    for name, size in pairs:
        if not isinstance(name, str) or not name:
            raise RuleError("NC101", f"Axis name {name!r} is not a string; named axes are written {{'name': size}}")
        if name in out:
            raise RuleError("NC103", f"Named axis {name!r} appears twice in the named shape")
        out[name] = _size(size, f"named axis {name!r}")
    return out


def parse_item(dtype: str | None, item: Any) -> ArrayType:
    """Parse what was written between the brackets of `dtype[...]` into an ArrayType."""
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], (Mapping, Pairs)):
        shape, named = item
    elif isinstance(item, tuple) and item and isinstance(item[0], tuple):
        raise _bad_named_axes(dtype, item)
    else:
        shape, named = item, {}
    return ArrayType.make(dtype, parse_shape(shape), parse_named(named))
