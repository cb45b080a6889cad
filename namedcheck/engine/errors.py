"""The structured failure a rule raises; front ends attach a location."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from namedcheck.engine.codes import default_hint


class RuleError(Exception):
    """A provable violation: a code (NCxxx), a one-line message and a fix hint (the code's default hint
    when the rule gives none).

    `data`: what a fix or a tool needs, as JSON values (the op, the axes, the spec, ...), never parsed back
    from the message. `related`: causes elsewhere, `(anchor, message)` pairs; an anchor is opaque to the
    engine (the analyzer passes the syntax node, or the `origin` a value carries) and is located by the
    front end."""

    def __init__(self, code: str, message: str, hint: str | None = None, data: Mapping[str, Any] | None = None,
                 related: Iterable[tuple[Any, str]] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint or default_hint(code)
        self.data: dict[str, Any] = dict(data or {})
        self.related: list[tuple[Any, str]] = [r for r in related if r[0] is not None]

    def relate(self, anchor: Any, message: str) -> RuleError:
        """Add a cause elsewhere (ignored when `anchor` is None or already named); returns self."""
        if anchor is not None and all(a is not anchor for a, _ in self.related):
            self.related.append((anchor, message))
        return self

    def derived(self, message: str | None = None, hint: str | None = None) -> RuleError:
        """The same error with another message or hint, its data and related locations kept."""
        return RuleError(self.code, self.message if message is None else message,
                         self.hint if hint is None else hint, self.data, self.related)

    def __repr__(self) -> str:
        return f"RuleError({self.code!r}, {self.message!r})"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 argument`, `2 arguments`, `1 entry`, `3 entries` (give `plural` where adding `s` is wrong)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
