"""A located diagnostic, as the command line prints it (1-based lines and columns)."""

from __future__ import annotations

from dataclasses import dataclass, field

from namedcheck.engine.codes import default_hint


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text from (line, column) to (end_line, end_column), 1-based, end exclusive, by `text`."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str

    def as_json(self) -> dict[str, object]:
        return {"line": self.line, "column": self.column, "end_line": self.end_line,
                "end_column": self.end_column, "text": self.text}


@dataclass(frozen=True, slots=True)
class Fix:
    """A fix of one diagnostic (ruff's contract: `check --fix` applies safe fixes, `--unsafe-fixes` also
    unsafe ones, which may change what the program computes); editors offer each as a code action."""

    title: str
    safe: bool
    edits: tuple[Edit, ...]

    def as_json(self) -> dict[str, object]:
        return {"title": self.title, "applicability": "safe" if self.safe else "unsafe",
                "edits": [e.as_json() for e in self.edits]}



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
    fixes: tuple[Fix, ...] = field(default=(), compare=False)  # filled by namedcheck.lsp.fixes

    def __post_init__(self) -> None:
        if self.hint is None:  # every diagnostic says how to fix it: the code's generic hint at least
            object.__setattr__(self, "hint", default_hint(self.code))

    def as_json(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "column": self.column, "end_line": self.end_line,
                "end_column": self.end_column, "code": self.code, "message": self.message,
                "hint": self.hint, "severity": self.severity}
