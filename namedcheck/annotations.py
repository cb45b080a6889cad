"""The annotation objects users write: `f32[(5, 7), {'batch': 20}]`. No jax import."""

from __future__ import annotations

from typing import Any

from namedcheck.engine.dtypes import DTYPES
from namedcheck.engine.errors import RuleError
from namedcheck.engine.syntax import parse_item
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
        try:
            return parse_item(self.code, item)
        except RuleError as e:
            raise AnnotationError(e) from None

    def __repr__(self) -> str:
        return self.code or "Array"


_BY_CODE = {code: DtypeAnnotation(code) for code in DTYPES}
bool_, u8, u16, u32, u64 = (_BY_CODE[c] for c in ("bool_", "u8", "u16", "u32", "u64"))
i8, i16, i32, i64 = (_BY_CODE[c] for c in ("i8", "i16", "i32", "i64"))
bf16, f16, f32, f64, c64, c128 = (_BY_CODE[c] for c in ("bf16", "f16", "f32", "f64", "c64", "c128"))
Array = DtypeAnnotation(None)
