"""Dtype names and JAX's type promotion lattice (weak Python scalars included)."""

from __future__ import annotations

from functools import cache

# short annotation name -> numpy dtype name
DTYPES: dict[str, str] = {
    "bool_": "bool",
    "u8": "uint8",
    "u16": "uint16",
    "u32": "uint32",
    "u64": "uint64",
    "i8": "int8",
    "i16": "int16",
    "i32": "int32",
    "i64": "int64",
    "bf16": "bfloat16",
    "f16": "float16",
    "f32": "float32",
    "f64": "float64",
    "c64": "complex64",
    "c128": "complex128",
}
# the names an array annotation starts with: `f32[...]`, ..., `Array[...]` (any dtype)
ANNOTATION_HEADS = frozenset({*DTYPES, "Array"})
_BY_NUMPY = {v: k for k, v in DTYPES.items()}
# Spellings met in code (`jnp.float32`, `'float32'`, `float`, `int`) -> short name.
ALIASES: dict[str, str] = {
    **_BY_NUMPY,
    **{k: k for k in DTYPES},
    "bool": "bool_",
    "float": "f32",
    "int": "i32",
    "complex": "c64",
    "float_": "f32",
    "int_": "i32",
    "complex_": "c64",
    "uint": "u32",
}

# Weak (Python scalar) types: "i*", "f*", "c*".
WEAK_INT, WEAK_FLOAT, WEAK_COMPLEX = "i*", "f*", "c*"

# JAX's promotion lattice: each node with its direct successors.
_LATTICE: dict[str, tuple[str, ...]] = {
    "bool_": ("i*",),
    "i*": ("u8", "i8"),
    "u8": ("i16", "u16"),
    "u16": ("i32", "u32"),
    "u32": ("i64", "u64"),
    "u64": ("f*",),
    "i8": ("i16",),
    "i16": ("i32",),
    "i32": ("i64",),
    "i64": ("f*",),
    "f*": ("bf16", "f16", "c*"),
    "bf16": ("f32",),
    "f16": ("f32",),
    "f32": ("f64", "c64"),
    "f64": ("c128",),
    "c*": ("c64",),
    "c64": ("c128",),
    "c128": (),
}
# With x64 disabled (JAX's default), 64-bit requests materialise as 32-bit; the checker
# therefore never tells these pairs apart.
X64_PAIRS = {
    frozenset({"i32", "i64"}),
    frozenset({"u32", "u64"}),
    frozenset({"f32", "f64"}),
    frozenset({"c64", "c128"}),
}
_DEFAULT_OF_WEAK = {"i*": "i32", "f*": "f32", "c*": "c64"}


def numpy_name(code: str | None) -> str | None:
    return None if code is None else DTYPES.get(code, code)


def canonical_dtype(name: str) -> str | None:
    """Short name for a spelling such as 'float32', 'jnp.float32' or 'f32'; None if unknown."""
    return ALIASES.get(name.rsplit(".", 1)[-1])


@cache
def _upper(code: str) -> frozenset[str]:
    out = {code}
    for nxt in _LATTICE.get(code, ()):
        out |= _upper(nxt)
    return frozenset(out)


@cache
def _join(a: str, b: str) -> str:
    common = _upper(a) & _upper(b)
    # the least upper bound: the common node every other common node lies above
    for c in common:
        if common <= _upper(c):
            return c
    return "c128"  # pragma: no cover - the lattice is a lattice


def promote(*codes: str | None) -> str | None:
    """Result dtype of combining operands (short names or weak '*' names); None if any is unknown.

    A weak result (only Python scalars) stays weak ('i*', 'f*', 'c*').
    """
    if not codes or any(c is None for c in codes):
        return None
    acc = codes[0]
    for c in codes[1:]:
        acc = _join(acc, c)
    return acc


def materialize(code: str | None) -> str | None:
    """A weak dtype as the array dtype it becomes (x64 disabled)."""
    return _DEFAULT_OF_WEAK.get(code, code) if code else None


def is_weak(code: str | None) -> bool:
    return code in _DEFAULT_OF_WEAK


def definitely_different(declared: str | None, inferred: str | None) -> bool:
    """Whether two dtypes provably differ, counting x64 pairs and weak types as compatible."""
    if declared is None or inferred is None or declared == inferred:
        return False
    if is_weak(inferred) or is_weak(declared):
        return False
    return frozenset({declared, inferred}) not in X64_PAIRS


def kind(code: str | None) -> str | None:
    """'b', 'u', 'i', 'f' or 'c' for a dtype code."""
    if code is None:
        return None
    if code == "bool_":
        return "b"
    return {"i*": "i", "f*": "f", "c*": "c", "bf16": "f"}.get(code, code[0])


REAL_PART = {"c64": "f32", "c128": "f64", "c*": "f*"}  # a complex dtype's real and imaginary parts


def to_inexact(code: str | None) -> str | None:
    """The dtype a float-valued function (exp, mean, ...) returns for this input dtype."""
    k = kind(code)
    if k in ("b", "i", "u"):
        return "f*" if is_weak(code) else "f32"
    return code


# Dtype families (`Float[...]`, `Int[...]`, ...): a declared array of any dtype in the family.
# `Shaped` is any dtype (like `Array`). A family declares no dtype for inference: only NC304 reads it.
FAMILIES: dict[str, frozenset[str]] = {
    "Float": frozenset({"bf16", "f16", "f32", "f64"}),
    "Int": frozenset({"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"}),
    "Complex": frozenset({"c64", "c128"}),
}
FAMILIES["Num"] = FAMILIES["Float"] | FAMILIES["Int"] | FAMILIES["Complex"]
# jaxtyping's families beyond those (engine/jaxtyping.py)
FAMILIES["UInt"] = frozenset({"u8", "u16", "u32", "u64"})
FAMILIES["Inexact"] = FAMILIES["Float"] | FAMILIES["Complex"]
FAMILIES["Real"] = FAMILIES["Float"] | FAMILIES["Int"]
FAMILY_HEADS = frozenset({"Float", "Int", "Complex", "Num", "Shaped"})  # namedcheck's own


def outside_family(family: str | None, inferred: str | None) -> bool:
    """Whether a dtype is provably not in the family (unknown and weak dtypes never are)."""
    if family not in FAMILIES or inferred is None or is_weak(inferred):
        return False
    return materialize(inferred) not in FAMILIES[family]
