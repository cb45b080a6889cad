"""A helper process that analyses the files of a mypy build as one project while mypy works (the CLI's
way: every file analysed as a checked file, so diagnostics that one module's calls cause inside another
are reported in the other's file, once).

The plugin writes one line per file on stdin: `A <path>` (a file mypy will check: analysed at once,
hiding the analyzer's cost behind mypy's own analysis of imports) or `B <path>` (a file of the build mypy
will not check again, e.g. fresh in its cache: its calls still count, analysed only when asked), then `E`
when the build's files are all named. It then reads back one pickled `(path, result)` record per file
(length-prefixed; path None ends the answer), `result` being `(diagnostics, types)` or None.

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

Result = tuple[list[Any], dict[Any, Any]]


class Build:
    """The files of one mypy build, analysed one by one as checked files; each file's result holds its own
    diagnostics and those the other files' calls cause in it."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}  # real path -> the path mypy gave
        self.own: dict[str, Result | None] = {}
        self.caused: dict[str, set[Any]] = {}  # real path -> diagnostics other files' calls cause there
        self.session: Any = None  # the analysis session of the build (analyzer/session.py), made on first use

    def add(self, path: str) -> None:
        self.files.setdefault(os.path.realpath(path), path)

    def analyse(self, path: str) -> None:
        """Analyse one file of the build (once)."""
        real = os.path.realpath(path)
        self.files.setdefault(real, path)
        if real in self.own:
            return
        self.own[real] = None
        try:
            if self.session is None:
                from namedcheck.analyzer.session import Session

                self.session = Session(devices=_configured_devices(path))
            got = _analyse(path, self.session)
        except Exception:  # the plugin falls back to analysing in process
            return
        if got is None:
            return
        own, others, types = got
        self.own[real] = (own, types)
        for d in others:
            other = os.path.realpath(d.path)
            if other != real:
                self.caused.setdefault(other, set()).add(d)

    def results(self) -> dict[str, Result | None]:
        """Every file's result (by the path mypy gave), once all files are analysed."""
        for path in list(self.files.values()):
            self.analyse(path)
        out: dict[str, Result | None] = {}
        for real, path in self.files.items():
            own = self.own.get(real)
            caused = self.caused.get(real, set())
            if own is None and not caused:
                out[path] = None
                continue
            diagnostics, types = own if own is not None else ([], {})
            merged = sorted([*diagnostics, *caused], key=lambda d: (d.line, d.column, d.code, d.message))
            out[path] = (_unique(merged), types)
        return out


def _configured_devices(path: str) -> tuple[int, ...]:
    """The device counts `[tool.namedcheck] devices` states for the build (the first file's project)."""
    from pathlib import Path

    from namedcheck.cli.config import ConfigError, load_config

    try:
        return load_config(Path(path).resolve().parent).devices
    except (ConfigError, OSError):
        return ()


def _unique(diags: list[Any]) -> list[Any]:
    """One diagnostic per (position, code, message) whatever path spelling it carries."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for d in diags:
        key = (d.line, d.column, d.end_line, d.end_column, d.code, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _analyse(path: str, session: Any) -> tuple[list[Any], list[Any], dict[Any, Any]] | None:
    """One file of the build through the build's session: its diagnostics, those it causes elsewhere, and
    its expressions' values."""
    from namedcheck.analyzer.check import analyse_target_for_plugin

    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError):
        return None
    return analyse_target_for_plugin(source, path, session=session)


def analyse_build(paths: list[str]) -> dict[str, Result | None]:
    """Every file's result for a build of `paths` (in process: the plugin's fallback)."""
    build = Build()
    for p in paths:
        build.add(p)
    return build.results()


def _exit_with_parent(parent: int) -> None:
    """Leave as soon as mypy is gone, even in the middle of a file (mypy may end with os._exit,
    which runs no clean-up; the closed pipe alone would be noticed only after the current file)."""
    while os.getppid() == parent:
        time.sleep(0.05)
    os._exit(0)


def main() -> int:
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()
    out = sys.stdout.buffer
    build = Build()

    def send(path: str | None, result: Any) -> None:
        data = pickle.dumps((path, result))
        out.write(struct.pack("<Q", len(data)) + data)

    for line in sys.stdin:
        kind, _, path = line.rstrip("\n").partition(" ")
        if kind == "A":
            build.analyse(path)
        elif kind == "B":
            build.add(path)
        elif kind == "E":
            try:
                results = build.results()
            except Exception:
                results = {}
            for p, result in results.items():
                send(p, result)
            send(None, None)
            out.flush()
            build = Build()
    return 0


if __name__ == "__main__":
    sys.exit(main())
