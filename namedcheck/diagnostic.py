"""A located diagnostic, as the command line prints it (1-based lines and columns)."""

from __future__ import annotations

from dataclasses import dataclass


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

    def as_json(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "column": self.column, "end_line": self.end_line,
                "end_column": self.end_column, "code": self.code, "message": self.message,
                "severity": self.severity}
