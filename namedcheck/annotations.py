"""The annotation objects users write: `f32[Array, Dims(5, 7, batch=20)]` (static tools see
`Annotated[Array, Dims(...)]`) or `f32[(5, 7), {'batch': 20}]`. No jax import."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from namedcheck.engine.dtypes import DTYPES, FAMILY_HEADS
from namedcheck.engine.errors import RuleError
from namedcheck.engine.syntax import BASE, Dims, parse_item
from namedcheck.engine.values import ArrayType


class AnnotationError(TypeError):
    """A malformed array annotation (the NC1xx family), raised when the annotation is built."""

    def __init__(self, err: RuleError) -> None:
        super().__init__(f"{err.code}: {err.message}" + (f" (hint: {err.hint})" if err.hint else ""))
        self.code = err.code
        self.message = err.message
        self.hint = err.hint


class DtypeAnnotation:
    """`f32`, `i32`, ... and `Array` (any dtype): subscript them to get an array type."""

    __slots__ = ("code",)

    def __init__(self, code: str | None) -> None:
        self.code = code

    def __getitem__(self, item: Any) -> ArrayType:
        if isinstance(item, tuple) and item and isinstance(item[0], DtypeAnnotation):
            item = (BASE, *item[1:])  # f32[namedcheck.Array, ...]: the leading type
        try:
            return parse_item(self.code, item)
        except RuleError as e:
            raise AnnotationError(e) from None

    def __repr__(self) -> str:
        return self.code or "Array"


_BY_CODE = {code: DtypeAnnotation(code) for code in (*DTYPES, *FAMILY_HEADS)}
Array = DtypeAnnotation(None)
if TYPE_CHECKING:
    # Static type checkers read `f32[Array, Dims(...)]` as `Annotated[Array, Dims(...)]`: the value's type
    # is the Array written first, the shape is metadata they accept as it is (the mypy plugin reads it).
    from typing import Annotated as Complex
    from typing import Annotated as Float
    from typing import Annotated as Int
    from typing import Annotated as Num
    from typing import Annotated as Shaped
    from typing import Annotated as bf16
    from typing import Annotated as bool_
    from typing import Annotated as c64
    from typing import Annotated as c128
    from typing import Annotated as f16
    from typing import Annotated as f32
    from typing import Annotated as f64
    from typing import Annotated as i8
    from typing import Annotated as i16
    from typing import Annotated as i32
    from typing import Annotated as i64
    from typing import Annotated as u8
    from typing import Annotated as u16
    from typing import Annotated as u32
    from typing import Annotated as u64
else:
    bool_, u8, u16, u32, u64 = (_BY_CODE[c] for c in ("bool_", "u8", "u16", "u32", "u64"))
    i8, i16, i32, i64 = (_BY_CODE[c] for c in ("i8", "i16", "i32", "i64"))
    bf16, f16, f32, f64, c64, c128 = (_BY_CODE[c] for c in ("bf16", "f16", "f32", "f64", "c64", "c128"))
    Float, Int, Complex, Num, Shaped = (_BY_CODE[c] for c in ("Float", "Int", "Complex", "Num", "Shaped"))

__all__ = [
    "AnnotationError",
    "Array",
    "Complex",
    "Dims",
    "DtypeAnnotation",
    "Float",
    "Int",
    "Num",
    "Shaped",
    "bf16",
    "bool_",
    "c64",
    "c128",
    "f16",
    "f32",
    "f64",
    "i8",
    "i16",
    "i32",
    "i64",
    "u8",
    "u16",
    "u32",
    "u64",
]
