"""namedcheck: a static checker and runtime for named-shape JAX programs.

`import namedcheck` is light: it imports neither jax, libcst nor mypy.
"""

from __future__ import annotations

from namedcheck.annotations import (
    AnnotationError,
    Array,
    DtypeAnnotation,
    bf16,
    bool_,
    c64,
    c128,
    f16,
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
)
from namedcheck.engine.values import ArrayType

__version__ = "0.1.0"

__all__ = [
    "Array", "ArrayType", "AnnotationError", "DtypeAnnotation", "__version__",
    "bf16", "bool_", "c64", "c128", "f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
]
