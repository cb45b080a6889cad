"""A helper process that analyses files while mypy works: the plugin sends a file path per line
on stdin and reads back one pickled `(path, diagnostics, types)` record per file (length-prefixed)
on stdout. Analysing in parallel hides the analyzer's cost behind mypy's own analysis of imports.

    python -m namedcheck_mypy.worker
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
import threading
import time
from typing import Any


def analyse(path: str) -> tuple[list[Any], dict[Any, Any]] | None:
    """The analyzer's diagnostics and expression types for one file, or None when unreadable."""
    from namedcheck.analyzer.check import analyse_for_plugin

    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError):
        return None
    return analyse_for_plugin(source, path)


def _exit_with_parent(parent: int) -> None:
    """Leave as soon as mypy is gone, even in the middle of a file (mypy may end with os._exit,
    which runs no clean-up; the closed pipe alone would be noticed only after the current file)."""
    while os.getppid() == parent:
        time.sleep(0.05)
    os._exit(0)


def main() -> int:
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()
    out = sys.stdout.buffer
    for line in sys.stdin:
        path = line.rstrip("\n")
        try:
            result = analyse(path)
        except Exception:  # the plugin falls back to analysing in process
            result = None
        data = pickle.dumps((path, result))
        out.write(struct.pack("<Q", len(data)) + data)
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
