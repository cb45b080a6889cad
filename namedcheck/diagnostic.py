"""A located diagnostic, as the command line prints it (1-based lines and columns)."""

from __future__ import annotations

from dataclasses import dataclass

from namedcheck.engine.codes import default_hint


@dataclass(frozen=True, slots=True, order=True)
class Diagnostic:
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    message: str
    hint: str | None = None
    severity: str = "error"

    def __post_init__(self) -> None:
        if self.hint is None:  # every diagnostic says how to fix it: the code's generic hint at least
            object.__setattr__(self, "hint", default_hint(self.code))

    def as_json(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "column": self.column, "end_line": self.end_line,
                "end_column": self.end_column, "code": self.code, "message": self.message,
                "hint": self.hint, "severity": self.severity}
