"""The structured failure a rule raises; front ends attach a location."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from namedcheck.engine.codes import NC000, default_hint

_STRICT: bool | None = None  # read from NAMEDCHECK_STRICT on first use; tests may set it


class Unprovable(Exception):
    """Raised inside a rule when an input is not known well enough (Unknown, an unknown rank, a value of a kind
    the rule does not model): the result is Unknown, silently."""


class RuleError(Exception):
    """A provable violation: a code (NCxxx), a one-line message and a fix hint (the code's default hint
    when the rule gives none).

    `data`: what a fix or a tool needs, as JSON values (the op, the axes, the spec, ...), never parsed back
    from the message. `related`: causes elsewhere, `(anchor, message)` pairs; an anchor is opaque to the
    engine (the analyzer passes the syntax node, or the `origin` a value carries) and is located by the
    front end."""

    def __init__(
        self,
        code: str,
        message: str,
        hint: str | None = None,
        data: Mapping[str, Any] | None = None,
        related: Iterable[tuple[Any, str]] = (),
    ) -> None:
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
        return RuleError(
            self.code,
            self.message if message is None else message,
            self.hint if hint is None else hint,
            self.data,
            self.related,
        )

    def __repr__(self) -> str:
        return f"RuleError({self.code!r}, {self.message!r})"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 argument`, `2 arguments`, `1 entry`, `3 entries` (give `plural` where adding `s` is wrong)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def strict() -> bool:
    """Whether a rule's own failure (a bug, not an input it cannot prove) propagates (`NAMEDCHECK_STRICT=1`, set
    for the test suite) instead of becoming an NC000 diagnostic at the expression."""
    global _STRICT
    if _STRICT is None:
        _STRICT = os.environ.get("NAMEDCHECK_STRICT", "") not in ("", "0")
    return _STRICT


# Failures that are not a rule's bug: the interpreter's limits, which the front end handles for the whole file.
_NOT_BUGS = (RecursionError, MemoryError)


def rule_bug(op: str, e: Exception) -> RuleError:
    """An exception a rule raised that is neither a RuleError nor an admitted unknown: re-raised under
    `strict()`, otherwise an NC000 diagnostic for the expression that called it."""
    if isinstance(e, _NOT_BUGS):
        raise e
    if strict():  # the front ends' catch-all for a whole file lets it through too (`is_strict_rule_bug`)
        e._namedcheck_rule_bug = True  # type: ignore[attr-defined]
        e.add_note(f"namedcheck: raised by the rule for {op} (NAMEDCHECK_STRICT=1)")
        raise e
    short = op.replace("jax.numpy.", "jnp.").replace("jax.lax.", "lax.")
    return RuleError(NC000, f"internal error in the rule for {short}: {type(e).__name__}: {e}; please report it")


def is_strict_rule_bug(e: BaseException) -> bool:
    """A rule's failure let through by `strict()`: a front end's whole-file catch-all must not swallow it."""
    return getattr(e, "_namedcheck_rule_bug", False)
