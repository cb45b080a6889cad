"""Reading the files a run names, safely: only regular files (symlinks followed), at most a size cap, never
blocking on a FIFO or reading a device; a path that cannot be read is an NC001 diagnostic."""

from __future__ import annotations

from namedcheck.analyzer.sources import read_regular
from namedcheck.diagnostic import Diagnostic
from namedcheck.engine.codes import NC001

UNREADABLE = "cannot be read"  # in the message of every NC001 about a path that could not be read


def is_unreadable(d: Diagnostic) -> bool:
    return d.code == NC001 and UNREADABLE in d.message


def unreadable(display: str, what: str, reason: str) -> Diagnostic:
    return Diagnostic(display, 1, 1, 1, 1, NC001, f"{what} {UNREADABLE}: {reason}")


__all__ = ["UNREADABLE", "is_unreadable", "unreadable", "read_regular"]
