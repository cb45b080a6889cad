"""Fixes of diagnostics, as edits of the source (one representation for `check --fix`, json / SARIF
`fixes` and the editor's code actions)."""

from __future__ import annotations

import re

from namedcheck.diagnostic import Diagnostic, Edit, Fix

_IGNORE_LIST = re.compile(r"#\s*namedcheck:\s*ignore\[([A-Za-z0-9_,\s]*)\]")


def ignore_fix(source: str, d: Diagnostic) -> Fix:
    """`# namedcheck: ignore[NCxxx]` at the end of the diagnostic's line (added to a list already there)."""
    lines = source.splitlines()
    text = lines[d.line - 1] if 0 < d.line <= len(lines) else ""
    m = _IGNORE_LIST.search(text)
    if m is not None:
        at = m.end(1)
        edit = Edit(d.line, at + 1, d.line, at + 1, f", {d.code}")
    else:
        end = len(text.rstrip())
        edit = Edit(d.line, end + 1, d.line, len(text) + 1, f"  # namedcheck: ignore[{d.code}]")
    return Fix(f"Ignore {d.code} on this line", True, (edit,))
