"""jaxtyping's annotations as engine types: its dtype classes (`Float`, `Int32`, `Shaped`, `Key`, ...) and its
dimension strings (`"batch *rest #c 3 n+1 _"`), read with jaxtyping's meaning. The one parser of dimension strings:
the analyzer (`Float[Array, "b d"]` from syntax), the runtime (`@checked` reading a jaxtyping class) and
namedcheck's own `f32[Array, "b d"]` (engine/syntax.py) all come here. No jaxtyping import.

What each dimension becomes in a shape (jaxtyping checks it when the function is called; namedcheck where it can
prove it statically, and never where jaxtyping would accept):

- `name`: a symbol, bound once per call across the arguments and the return (engine/signature.py);
- `4`, `rows=4`: a fixed size (`name=` before a size is a label only);
- `*name`: a variadic run bound per call (`ArrayType.variadic`);
- `...`: any number of dimensions, not bound to anything (`ArrayType.variadic` is `ANONYMOUS`);
- `_`, `_name`: any size, not bound (None);
- `#name`, `#4`: broadcastable, size 1 also accepted: not checked (None); `*#name`: an anonymous run;
- `?name` (a size that depends on the place in a pytree): not checked (None); `*?name`: an anonymous run;
- `n+1`, `2*n`, `d//h`: a size expression where it is one namedcheck computes with (ints, names, + - * //),
  else not checked (None).
"""

from __future__ import annotations

from dataclasses import replace

from namedcheck.engine import symbolic
from namedcheck.engine.codes import NC101, NC102, NC104
from namedcheck.engine.dtypes import ALIASES, FAMILIES
from namedcheck.engine.errors import RuleError
from namedcheck.engine.values import ArrayType, Dim

# The variadic name of jaxtyping's `...` (and of `*#name`): a run of dimensions that nothing else refers to.
ANONYMOUS = "..."

# jaxtyping's dtype classes -> namedcheck's dtype (a short name) or dtype family; (None, None): any dtype, as
# for a dtype namedcheck does not model (float8, int4, PRNG keys). jaxtyping's `Int` is the signed integers
# only; it maps to namedcheck's `Int` (signed and unsigned): an unsigned array passed for it is not reported.
DTYPE_CLASSES: dict[str, tuple[str | None, str | None]] = {
    "Bool": ("bool_", None),
    "UInt8": ("u8", None),
    "UInt16": ("u16", None),
    "UInt32": ("u32", None),
    "UInt64": ("u64", None),
    "Int8": ("i8", None),
    "Int16": ("i16", None),
    "Int32": ("i32", None),
    "Int64": ("i64", None),
    "BFloat16": ("bf16", None),
    "Float16": ("f16", None),
    "Float32": ("f32", None),
    "Float64": ("f64", None),
    "Complex64": ("c64", None),
    "Complex128": ("c128", None),
    "Float": (None, "Float"),
    "Int": (None, "Int"),
    "Integer": (None, "Int"),
    "UInt": (None, "UInt"),
    "Complex": (None, "Complex"),
    "Inexact": (None, "Inexact"),
    "Real": (None, "Real"),
    "Num": (None, "Num"),
    "Shaped": (None, None),
    "Key": (None, None),
    "UInt2": (None, None),
    "UInt4": (None, None),
    "Int2": (None, None),
    "Int4": (None, None),
    "Float4e2m1fn": (None, None),
    "Float8e4m3b11fnuz": (None, None),
    "Float8e4m3fn": (None, None),
    "Float8e4m3fnuz": (None, None),
    "Float8e5m2": (None, None),
    "Float8e5m2fnuz": (None, None),
}
# The modules a jaxtyping annotation is imported from.
MODULES = frozenset({"jaxtyping"})

MAX_DIMS_TEXT = 4096  # characters of a dimension string read (real ones are below 100)


def _bad(message: str, dims: str, code: str = NC102) -> RuleError:
    return RuleError(
        code,
        f"In the dimension string {dims!r}: {message}",
        hint='write dimensions separated by spaces: names, sizes, "*name" or "..." once, "#name", "_", e.g. "*batch n 3"',
    )


def _dimension(elem: str, dims: str) -> tuple[Dim, str | None]:
    """One space-separated dimension: its size (`...` for a run) and, for a run, its variadic name."""
    if elem.endswith("#"):
        raise _bad(f"Dimension {elem!r} puts '#' at the end; a broadcastable dimension is written '#name'", dims)
    if "..." in elem:
        if elem != "...":
            raise _bad(f"Dimension {elem!r} joins '...' to other text; '...' stands alone", dims)
        return ..., ANONYMOUS
    broadcast = variadic = anonymous = treepath = False
    rest = elem
    while rest:
        first = rest[0]
        if first in "#*_?":
            flag = {"#": broadcast, "*": variadic, "_": anonymous, "?": treepath}[first]
            if flag:
                raise _bad(f"Dimension {elem!r} repeats {first!r}", dims)
            broadcast, variadic, anonymous, treepath = (
                broadcast or first == "#",
                variadic or first == "*",
                anonymous or first == "_",
                treepath or first == "?",
            )
            rest = rest[1:]
        elif rest.count("=") == 1:
            rest = rest.split("=")[1]  # `rows=4`: the name is a label
        else:
            break
    try:
        fixed: int | None = int(rest)
    except ValueError:
        fixed = None
    if fixed is not None:
        if variadic or anonymous or treepath:
            raise _bad(f"Dimension {elem!r} marks the fixed size {rest} as a run, anonymous or tree-dependent", dims)
        if fixed < 0:
            raise _bad(f"Dimension {elem!r} is a negative size", dims)
        return (None if broadcast else fixed), None
    if not rest or rest.isidentifier():
        if anonymous and broadcast:
            raise _bad(f"Dimension {elem!r} is both anonymous '_' and broadcastable '#'", dims)
        if variadic:
            return ..., (rest if rest and not (anonymous or broadcast or treepath) else ANONYMOUS)
        return (rest if not (anonymous or broadcast or treepath) else None), None
    if anonymous or variadic or treepath:
        raise _bad(f"Dimension {elem!r} marks a size expression as a run, anonymous or tree-dependent", dims)
    # a size expression: jaxtyping evaluates it as Python over the sizes bound so far
    if broadcast or len(rest) > symbolic.MAX_TEXT or symbolic.parse(rest) is None:
        return None, None
    if not all(s.isidentifier() for s in symbolic.symbols(rest)):
        return None, None  # `self.d`: an attribute jaxtyping cannot look up among the dimensions
    return symbolic.normalise(rest), None


def parse_dims(dims: object) -> tuple[tuple[Dim, ...], str | None]:
    """A jaxtyping dimension string as a positional shape (a run as `...`) and the run's variadic name
    (`ANONYMOUS` for `...`). Raises RuleError (NC101 / NC102 / NC104) for a string jaxtyping rejects."""
    if not isinstance(dims, str):
        raise RuleError(
            NC101,
            f"A jaxtyping shape is a string of dimensions separated by spaces; found {dims!r}",
            hint='write e.g. Float[Array, "batch 3"] (or "" for a scalar)',
        )
    if len(dims) > MAX_DIMS_TEXT:
        raise RuleError(
            NC102,
            f"Dimension string of {len(dims)} characters; namedcheck reads at most {MAX_DIMS_TEXT}",
            hint="name the dimensions with short symbols",
        )
    out: list[Dim] = []
    variadic: str | None = None
    for elem in dims.split():
        if "," in elem and "(" not in elem:
            raise _bad(f"Dimension {elem!r} holds a comma; dimensions are separated by spaces", dims, NC101)
        size, run = _dimension(elem, dims)
        if size is ...:
            if ... in out:
                raise _bad("More than one run ('*name' or '...')", dims, NC104)
            variadic = run
        out.append(size)
    return tuple(out), variadic


def array_type(dtype: str | None, family: str | None, dims: object) -> ArrayType:
    """The engine type of an array annotation `dtype[Array, "dims"]` (dtype: a short name or None; family: a
    dtype family or None)."""
    shape, variadic = parse_dims(dims)
    out = ArrayType.make(dtype, shape)
    return replace(out, family=family, variadic=variadic) if family or variadic else out


def annotation(cls_name: str, dims: object) -> ArrayType | None:
    """jaxtyping's `cls_name[Array, dims]` as an engine type; None when `cls_name` is no dtype class of it."""
    if cls_name not in DTYPE_CLASSES:
        return None
    dtype, family = DTYPE_CLASSES[cls_name]
    return replace(array_type(dtype, family, dims), spelling="jaxtyping")  # (whether it is a fact: its context's)


def from_dtypes(names: object, dims: object) -> ArrayType | None:
    """A jaxtyping annotation object as the runtime sees it (`cls.dtypes`: numpy dtype names, or jaxtyping's
    any-dtype marker; `cls.dim_str`) as an engine type; None when its dtypes are not ones namedcheck knows."""
    if not isinstance(names, (list, tuple)):
        return array_type(None, None, dims)  # any dtype
    codes = {ALIASES.get(n) for n in names if isinstance(n, str)}
    codes.discard(None)
    if not codes:
        return array_type(None, None, dims)
    if len(codes) == 1 and len(names) <= 2:  # one dtype (`bool` and `bool_` are one)
        return array_type(codes.pop(), None, dims)
    family = next((f for f, members in FAMILIES.items() if codes <= members and members <= codes), None)
    if family is None:  # a set namedcheck names no family for: the smallest family holding it
        family = min(
            (f for f, members in FAMILIES.items() if codes <= members), key=lambda f: len(FAMILIES[f]), default=None
        )
    return array_type(None, family, dims)
