"""A located diagnostic, as the command line prints it (1-based lines and columns)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
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


_TUPLES = re.compile(r"\((?:[\w'+*-]+, )*[\w'+*-]+,?\)")  # a shape: `(2, 256)`, `('B', 16)`
_NUMBERS = re.compile(r"\b\d+\b")


def merge_contexts(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """One diagnostic per location and code, sorted: where several analysis contexts (the entry points and
    tests that call a function) report the same code at the same place, the first context's diagnostic (in a
    canonical order, whatever order they came in: one with notes first, then by message and notes) with one
    note per other context ("also with (2, 256)", at that context's call site or cause), in a canonical order.
    The one merge of every front end (analyzer/session.py, the CLI's run, the mypy plugin's worker): merging
    merged diagnostics again gives what one merge of all of them gives, whatever the grouping (a file's
    result, then the run's)."""
    groups: dict[tuple[Any, ...], list[Diagnostic]] = {}
    for d in diags:
        groups.setdefault((os.path.normpath(d.path), d.line, d.column, d.code, d.severity), []).append(d)
    out: list[Diagnostic] = []
    for members in groups.values():
        unique = sorted({_identity(d): d for d in members}.values(), key=_canonical)
        first = unique[0]
        if len(unique) > 1 or any(_names_context(r) for r in first.related):
            own = [r for r in first.related if not _names_context(r)]
            notes: dict[tuple[Any, ...], Related] = {}
            for d in unique:
                made = [r for r in d.related if _names_context(r)]
                if d is not first:
                    note = _context_note(d)
                    made += [note] if note is not None else []
                for r in made:
                    notes.setdefault(_key(r), r)
            mine = {_key(r) for r in own}
            related = own + [notes[k] for k in sorted(notes) if k not in mine]
            fixes = first.fixes or next((m.fixes for m in members if m.fixes and m.message == first.message), ())
            first = replace(first, related=tuple(related), fixes=fixes)
        out.append(first)
    return sorted(out)


def _key(r: Related) -> tuple[Any, ...]:
    return (os.path.abspath(r.path), r.line, r.column, r.message)


def _identity(d: Diagnostic) -> tuple[Any, ...]:
    """What one context's finding says: its message and its own notes (path spellings aside)."""
    return (d.message, tuple(_key(r) for r in d.related if not _names_context(r)))


def _canonical(d: Diagnostic) -> tuple[Any, ...]:
    ident = _identity(d)
    return (not ident[1], *ident, d.hint or "")


def _names_context(r: Related) -> bool:
    """A note `merge_contexts` made."""
    return r.message.startswith(("also with ", "also: "))


def _context_note(other: Diagnostic) -> Related | None:
    """The note that names another context of a finding, from that context alone: the sizes its message
    shows, at its first cause in another file (a call site, a setting), else its first note, else its place."""
    own = [r for r in other.related if not _names_context(r)]
    elsewhere = [r for r in own if os.path.normpath(r.path) != os.path.normpath(other.path)]
    where = (elsewhere or own)[0] if own else None
    sizes = _TUPLES.findall(other.message) or _NUMBERS.findall(other.message)
    if sizes:
        said = "also with " + ", ".join(list(dict.fromkeys(sizes))[:3])
    else:
        said = f"also: {where.message if where is not None else other.message}"
    at = where if where is not None else other
    return Related(at.path, at.line, at.column, at.end_line, at.end_column, said)


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
