"""namedcheck: a static checker and runtime for named-shape JAX programs.

`import namedcheck` is light: it imports neither jax, libcst nor mypy.
"""

from __future__ import annotations

from typing import Any

from namedcheck.annotations import (
    AnnotationError,
    Array,
    Complex,
    Dims,
    DtypeAnnotation,
    Float,
    Int,
    Num,
    Shaped,
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
from namedcheck.errors import AxisMappingError, BadInputError, NamedAxisError, ShapeError, UnboundAxisError, XmapError

# Runtime names import jax, so they load on first use (`import namedcheck` stays light).
_LAZY = {
    "xmap": ("namedcheck.runtime.xmap", "xmap"),
    "SerialLoop": ("namedcheck.runtime.xmap", "SerialLoop"),
    "serial_loop": ("namedcheck.runtime.xmap", "serial_loop"),
    "checked": ("namedcheck.runtime.checked", "checked"),
    "install_import_hook": ("namedcheck.runtime.import_hook", "install_import_hook"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    if name in ("lax", "numpy", "nn", "compat"):
        import importlib

        return importlib.import_module(f"namedcheck.{name}")
    raise AttributeError(f"module 'namedcheck' has no attribute {name!r}")


__version__ = "0.1.0"

__all__ = [
    "Array",
    "ArrayType",
    "AnnotationError",
    "AxisMappingError",
    "BadInputError",
    "UnboundAxisError",
    "DtypeAnnotation",
    "NamedAxisError",
    "SerialLoop",
    "ShapeError",
    "XmapError",
    "__version__",
    "checked",
    "serial_loop",
    "xmap",
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
    "Complex",
    "Dims",
    "Float",
    "Int",
    "Num",
    "Shaped",
    "install_import_hook",
]
