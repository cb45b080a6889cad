"""Errors the runtime raises (`namedcheck.xmap`, `@checked`, named ops). No jax import.

Each carries the diagnostic code of the static rule it corresponds to (`.code`), so a runtime error
and the checker's diagnostic for the same mistake name the same rule.
"""

from __future__ import annotations

from namedcheck.engine.codes import default_hint


class NamedcheckRuntimeError(Exception):
    """Base of the runtime's errors: a code (NCxxx) and a message naming what, where, expected, found."""

    def __init__(self, code: str, message: str, hint: str | None = None) -> None:
        hint = hint or default_hint(code)
        super().__init__(f"[{code}] {message}" + (f" (hint: {hint})" if hint else ""))
        self.code = code
        self.message = message
        self.hint = hint


class AxisMappingError(NamedcheckRuntimeError, TypeError):
    """`in_axes` / `out_axes` whose structure does not fit the arguments or results (NC401)."""


class XmapError(NamedcheckRuntimeError, ValueError):
    """An xmap call the named-axis model rejects: sizes, positions, names or resources (NC4xx, NC5xx)."""


class NamedAxisError(NamedcheckRuntimeError, ValueError):
    """The named-shape pass over a traced program found a violation (co-occurrence NC502, missing
    out_axes NC404); `filename` and `lineno` point at the user's source line."""

    def __init__(
        self, code: str, message: str, hint: str | None = None, filename: str | None = None, lineno: int | None = None
    ) -> None:
        where = f"{filename}:{lineno}: " if filename else ""
        super().__init__(code, where + message, hint)
        self.filename = filename
        self.lineno = lineno


class ShapeError(NamedcheckRuntimeError, TypeError):
    """`@checked`: an argument or the result does not match its annotation (NC302 / NC303 / NC304 / NC301)."""


class BadInputError(NamedcheckRuntimeError, TypeError):
    """A value of the wrong kind given to xmap or `@checked`: an argument that is not an array (or is
    None where an array is mapped), axis_resources / axis_sizes that are not dicts."""


class UnboundAxisError(NamedcheckRuntimeError, NameError):
    """A collective or named reduction inside an xmap body names an axis no enclosing xmap binds (NC705);
    `filename` and `lineno` point at the user's source line."""

    def __init__(
        self, code: str, message: str, hint: str | None = None, filename: str | None = None, lineno: int | None = None
    ) -> None:
        where = f"{filename}:{lineno}: " if filename else ""
        super().__init__(code, where + message, hint)
        self.filename = filename
        self.lineno = lineno
