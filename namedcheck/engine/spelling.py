"""The one printer of an engine type in the annotation language's type-checker-clean spelling:
`f32[Array, Dims(5, 'N', batch=20)]` (any dtype: `Shaped[...]`; a family: `Float[...]`; a split dimension
as JAX prints it, `'8@data'`; a variadic run `'*batch'`). What it prints reads back through the one parser
(`engine/syntax.py`) as the same type (tests/test_spelling.py). Infer, hover, inlay hints, messages and the
runtime's errors print types with it.

The annotation language states no varying / unreduced / reduced set: `sets` gives them as a note to show
beside the annotation (hover, messages), never inside it. A part not known (`None` dim, open named axes)
has no spelling: `statable` says whether the type is one an annotation can state; `spell` prints `?` there
(a display, not an annotation).
"""

from __future__ import annotations

import keyword
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (values.py prints its types through this module: no import back at run time)
    from namedcheck.engine.values import ArrayType, Dim, Seq


def _is_array(t: object) -> bool:
    return hasattr(t, "dtype_code") and hasattr(t, "shape")


def _is_seq(t: object) -> bool:
    return hasattr(t, "items") and hasattr(t, "kind") and not isinstance(t, dict)


# how a message prints types: "dims" (this module's spelling) or "literal" (`f32[(5, 7), {'b': 2}]`)
DIMS = "dims"
LITERAL = "literal"


def _axes(e: tuple[str, ...]) -> str:
    return "@" + (e[0] if len(e) == 1 else "(" + ",".join(e) + ")")


def _dim(d: Dim, split: tuple[str, ...] | None, variadic: str | None) -> str:
    if d is ...:
        return repr(f"*{variadic}") if variadic else "..."
    if d is None:
        return "?"
    if split is not None:
        return repr(f"{d}{_axes(split)}")
    return repr(d) if isinstance(d, str) else str(d)


def _sharding(t: ArrayType) -> tuple[tuple[str, ...], ...] | None:
    s = t.sharding
    return s if s is not None and len(s) == len(t.shape) and ... not in t.shape else None


def head(t: ArrayType) -> str:
    """The name the annotation starts with: a dtype, a family, or `Shaped` (any dtype)."""
    return t.family or t.dtype_code or "Shaped"


def dims_text(t: ArrayType) -> str:
    """The `Dims(...)` call of a type (`Dims(5, 'N', batch=20)`)."""
    shd = _sharding(t)
    stated_unsplit = shd is not None and not any(shd)  # every dim stated unsplit: `'8@()'` each
    parts = [
        _dim(d, (shd[i] if shd[i] or stated_unsplit else None) if shd is not None else None, t.variadic)
        for i, d in enumerate(t.shape)
    ]
    plain = [(n, s) for n, s in t.named if n.isidentifier() and not keyword.iskeyword(n)]
    odd = [(n, s) for n, s in t.named if (n, s) not in plain]
    parts += [f"{n}={_dim(s, None, None)}" for n, s in plain]
    if odd:  # a name that is no Python keyword argument: `**{'my-axis': 2}`
        parts.append("**{" + ", ".join(f"{n!r}: {_dim(s, None, None)}" for n, s in odd) + "}")
    return "Dims(" + ", ".join(parts) + ")"


def spell(t: ArrayType | Seq, base: str = "Array") -> str:
    """`f32[Array, Dims(...)]` (`base`: how the module names `jax.Array`); a tuple of arrays as `tuple[...]`."""
    if _is_seq(t):
        items = t.items  # type: ignore[union-attr]
        return "tuple[" + ", ".join(spell(i, base) if _is_array(i) or _is_seq(i) else "Any" for i in items) + "]"
    t = _array(t)
    return f"{head(t)}[{base}, {dims_text(t)}]"


def literal(t: ArrayType) -> str:
    """The literal spelling (`f32[(5, 7), {'batch': 20}]`), for a type the user wrote that way."""
    shd = _sharding(t)
    stated_unsplit = shd is not None and not any(shd)
    dims = [
        _dim(d, (shd[i] if shd[i] or stated_unsplit else None) if shd is not None else None, t.variadic)
        for i, d in enumerate(t.shape)
    ]
    text = "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
    if t.named:
        text += ", {" + ", ".join(f"{n!r}: {_dim(s, None, None)}" for n, s in t.named) + "}"
    return f"{t.family or t.dtype_code or 'Array'}[{text}]"


def shown(t: ArrayType, spelling: str | None = None) -> str:
    """A type as a message prints it: in the spelling its annotation was written in (`spelling`, else the
    type's own record of it), the Dims spelling when nobody wrote it; its varying / unreduced / reduced sets
    after it (`f32[Array, Dims(8)] varying over {'data'}`)."""
    how = spelling or getattr(t, "spelling", None) or DIMS
    return (literal(t) if how == LITERAL else spell(t)) + sets(t)


def sets(t: ArrayType) -> str:
    """The sets an annotation cannot state, as words after it (empty when there are none)."""
    out = []
    if t.varying or not t.vary_exact:
        names = ", ".join(repr(n) for n in sorted(t.varying))
        out.append(
            f"varying over {{{names}}}" if t.vary_exact else f"varying over at least {{{names}}}" if names else ""
        )
    if t.unreduced:
        out.append("unreduced over {" + ", ".join(repr(n) for n in sorted(t.unreduced)) + "}")
    if t.reduced:
        out.append("reduced over {" + ", ".join(repr(n) for n in sorted(t.reduced)) + "}")
    out = [o for o in out if o]
    return (" " + ", ".join(out)) if out else ""


def statable(t: Any) -> bool:
    """Whether an annotation states every part of `t` (every dim and named axis known; a tuple item by item)."""
    if _is_seq(t):
        return t.kind == "tuple" and bool(t.items) and all(statable(i) for i in t.items)
    if not _is_array(t) or t.named_open:
        return False
    if any(d is None for d in (*t.shape, *(s for _, s in t.named))):
        return False
    return t.sharding is None or _sharding(t) is not None


def names_needed(t: ArrayType | Seq) -> set[str]:
    """The namedcheck names an annotation of `t` imports (`f32`, `Dims`)."""
    if _is_seq(t):
        return set().union(*(names_needed(i) for i in t.items if _is_array(i) or _is_seq(i)))  # type: ignore[union-attr]
    return {head(_array(t)), "Dims"}


def _array(t: object) -> ArrayType:
    return t  # type: ignore[return-value]  # (an ArrayType: `_is_array` said so)
