"""Array attributes and builtins that read a type as Python values: `x.shape`, `x.ndim`, `x.size`,
`x.dtype`, `x.real`, `len(x)`."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from namedcheck.engine.algebra import is_number, product
from namedcheck.engine.dtypes import REAL_PART
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, Dim, DimVal, DtypeRef, Seq


def size_value(d: Dim) -> Const | DimVal:
    """A dimension as a Python int value: Const when concrete, DimVal (symbol or unknown) otherwise."""
    return Const(d) if is_number(d) else DimVal(d)


def array_attribute(t: ArrayType, attr: str) -> Any:
    """The value of a data attribute of an array, or NotImplemented when `attr` is not one."""
    if attr == "shape":
        return UNKNOWN if t.has_ellipsis else Seq(tuple(size_value(d) for d in t.shape))
    if attr == "ndim":
        return UNKNOWN if t.has_ellipsis else Const(len(t.shape))
    if attr == "size":
        return UNKNOWN if t.has_ellipsis else size_value(product(t.shape))
    if attr == "dtype":
        return DtypeRef(t.dtype_code)
    if attr in ("real", "imag"):  # a complex array's parts are real
        code = t.dtype_code
        return t if code not in REAL_PART else replace(t, dtype_code=REAL_PART[code])
    return NotImplemented


def length(v: Any) -> Any:
    """`len(v)`: an array's leading dimension, a sequence's length."""
    if isinstance(v, ArrayType) and v.shape and v.shape[0] is not ...:
        return size_value(v.shape[0])
    if isinstance(v, Seq):
        return Const(len(v.items))
    if isinstance(v, Const) and isinstance(v.value, str | bytes):  # `len(self.chars) + 2`: a vocabulary size
        return Const(len(v.value))
    return UNKNOWN
