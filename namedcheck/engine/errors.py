"""The structured failure a rule raises; front ends attach a location."""

from __future__ import annotations

from namedcheck.engine.codes import default_hint


class RuleError(Exception):
    """A provable violation: a code (NCxxx), a one-line message and a fix hint (the code's default hint
    when the rule gives none)."""

    def __init__(self, code: str, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint or default_hint(code)

    def __repr__(self) -> str:
        return f"RuleError({self.code!r}, {self.message!r})"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 argument`, `2 arguments`, `1 entry`, `3 entries` (give `plural` where adding `s` is wrong)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
