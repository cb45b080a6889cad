"""A located diagnostic, as the command line prints it (1-based lines and columns)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from namedcheck.engine.codes import NC000, NC001, default_hint, matches


@dataclass(frozen=True, slots=True, order=True)
class Related:
    """A location elsewhere that explains a diagnostic ("`b` was placed with P('data') here", "returned
    here"): 1-based lines and columns, end exclusive."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str

    def as_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Related:
        """A related location read back (the result cache); TypeError when `d` is not one."""
        fields = {"path": str, "line": int, "column": int, "end_line": int, "end_column": int, "message": str}
        if (
            not isinstance(d, Mapping)
            or set(d) != set(fields)
            or not all(isinstance(d[k], t) for k, t in fields.items())
        ):
            raise TypeError("not a related location")
        return cls(**{k: d[k] for k in fields})


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text from (line, column) to (end_line, end_column), 1-based, end exclusive, by `text`."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str

    def as_json(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Fix:
    """A fix of one diagnostic (ruff's contract: `check --fix` applies safe fixes, `--unsafe-fixes` also
    unsafe ones, which may change what the program computes); editors offer each as a code action."""

    title: str
    safe: bool
    edits: tuple[Edit, ...]
    # a suggestion only (ruff's display-only): offered in the editor and json, never applied by `check --fix`,
    # for an edit that cannot promise the program then computes what its author meant
    display_only: bool = False

    @property
    def applicability(self) -> str:
        return "display-only" if self.display_only else "safe" if self.safe else "unsafe"

    def applies(self, unsafe: bool) -> bool:
        """Whether `check --fix` (with `--unsafe-fixes`: `unsafe`) applies this fix."""
        return not self.display_only and (self.safe or unsafe)

    def as_json(self) -> dict[str, object]:
        return {
            "title": self.title,
            "applicability": self.applicability,
            "edits": [e.as_json() for e in self.edits],
        }


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
    fixes: tuple[Fix, ...] = field(default=(), compare=False)  # filled by namedcheck.edits.fixes
    # what a fix needs (the rule's `RuleError.data`, JSON values): fixes read it, never the message
    data: Mapping[str, Any] = field(default_factory=dict, compare=False)
    related: tuple[Related, ...] = field(default=(), compare=False)  # causes elsewhere

    def __post_init__(self) -> None:
        if self.hint is None:  # every diagnostic says how to fix it: the code's generic hint at least
            object.__setattr__(self, "hint", default_hint(self.code))

    def as_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "code": self.code,
            "message": self.message,
            "hint": self.hint,
            "severity": self.severity,
            "data": dict(self.data),
            "related": [r.as_json() for r in self.related],
        }


def selected(diags: list[Diagnostic], select: list[str], ignore: list[str]) -> list[Diagnostic]:
    """The diagnostics a configuration reports: codes in `select` (all when empty) and not in `ignore`
    (codes or prefixes); NC000 and NC001 are reported whatever `select` says."""
    always = (NC000, NC001)
    out = []
    for d in diags:
        if d.code not in always and select and not matches(d.code, select):
            continue
        if ignore and matches(d.code, ignore):
            continue
        out.append(d)
    return out
