"""The structured failure a rule raises; front ends attach a location."""

from __future__ import annotations


class RuleError(Exception):
    """A provable violation: a code (NCxxx), a one-line message and an optional fix hint."""

    def __init__(self, code: str, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint

    def __repr__(self) -> str:
        return f"RuleError({self.code!r}, {self.message!r})"
