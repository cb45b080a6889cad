"""A helper process that analyses the files of a mypy build as one project while mypy works (the CLI's
way: every file analysed as a checked file, so diagnostics that one module's calls cause inside another
are reported in the other's file, once).

The plugin writes one line per file on stdin: `A <path>` (a file mypy will check: analysed at once,
hiding the analyzer's cost behind mypy's own analysis of imports) or `B <path>` (a file of the build mypy
will not check again, e.g. fresh in its cache: its calls still count, analysed only when asked), then `E`
when the build's files are all named. It then reads back one pickled `(path, result)` record per file
(length-prefixed; path None ends the answer), `result` being `(diagnostics, types)` or None. While it
answers, a record `(path, WORKING)` names each file as its analysis starts (so the plugin, which waits only
so long for each record, knows which file stalled or crashed the worker).

The plugin starts it isolated from the checked project (`hooks.worker_command`: `python -I -S`, its path
entries passed in): nothing of the project, PYTHONPATH, PYTHONSTARTUP, sitecustomize or .pth files is
imported. It ends when its stdin closes or its parent dies (PR_SET_PDEATHSIG on Linux, else a watch of its
parent's id), even in the middle of a file.

A file is read through the guarded reader (`analyzer/sources.read_regular`: regular files only, at most
`max-file-size`); one that cannot be read (deleted since mypy named it) has no result, one over the size
cap one NC001, as in the CLI. Each file's analysis runs within `[tool.namedcheck]`'s budgets.
"""

from __future__ import annotations

import os
import pickle
import queue
import struct
import sys
import threading
import time
from typing import Any, BinaryIO

Result = tuple[list[Any], dict[Any, Any]]
WORKING = "working"  # a record's result while the worker answers: the file named is being analysed
# test hooks (tests/test_plugin_isolation.py): a file whose path contains the text given stalls the worker,
# or ends it as a crash would; at its end the worker lists the modules it imported in the file given
_STALL = "NAMEDCHECK_TEST_WORKER_STALL"
_CRASH = "NAMEDCHECK_TEST_WORKER_CRASH"
_MODULES = "NAMEDCHECK_TEST_WORKER_MODULES"


class Build:
    """The files of one mypy build, analysed one by one as checked files; each file's result holds its own
    diagnostics and those the other files' calls cause in it."""

    def __init__(self, channel: Channel | None = None) -> None:
        self.files: dict[str, str] = {}  # real path -> the path mypy gave
        self.own: dict[str, Result | None] = {}
        self.caused: dict[str, list[Any]] = {}  # real path -> diagnostics other files' calls cause there
        self.session: Any = None  # the analysis session of the build (analyzer/session.py), made on first use
        self.channel = channel  # the pipe to the plugin (None: in process)

    def add(self, path: str) -> None:
        self.files.setdefault(os.path.realpath(path), path)

    def analyse(self, path: str) -> None:
        """Analyse one file of the build (once)."""
        real = os.path.realpath(path)
        self.files.setdefault(real, path)
        if real in self.own:
            return
        self.own[real] = None
        if self.channel is not None:
            self.channel.working(path)
        try:
            if self.session is None:
                from namedcheck.analyzer.session import Session

                devices, limits = _configured(path)
                self.session = Session(devices=devices, limits=limits)
            got = _analyse(path, self.session)
        except Exception:  # no result for the file (mypy's own output stands)
            return
        finally:
            if self.channel is not None:
                self.channel.working(None)
        if got is None:
            return
        own, others, types = got
        self.own[real] = (own, types)
        for d in others:
            other = os.path.realpath(d.path)
            if other != real:
                self.caused.setdefault(other, []).append(d)

    def results(self) -> dict[str, Result | None]:
        """Every file's result (by the path mypy gave), once all files are analysed."""
        for path in list(self.files.values()):
            self.analyse(path)
        out: dict[str, Result | None] = {}
        for real, path in self.files.items():
            own = self.own.get(real)
            caused = self.caused.get(real, [])
            if own is None and not caused:
                out[path] = None
                continue
            diagnostics, types = own if own is not None else ([], {})
            out[path] = (_unique([*diagnostics, *caused], path), types)
        return out


def _configured_devices(path: str) -> tuple[int, ...]:
    """The device counts `[tool.namedcheck] devices` states for the build (the first file's project)."""
    return _configured(path)[0]


def _configured(path: str) -> tuple[tuple[int, ...], Any]:
    """The device counts and the budgets (`Limits`) `[tool.namedcheck]` states for the build (the first
    file's project); the defaults where it cannot be read."""
    from pathlib import Path

    from namedcheck.analyzer.budget import Limits
    from namedcheck.cli.config import ConfigError, load_config

    try:
        config = load_config(Path(path).resolve().parent)
    except (ConfigError, OSError, ValueError, RuntimeError):
        return (), Limits()
    return config.devices, config.limits


def _unique(diags: list[Any], path: str) -> list[Any]:
    """One diagnostic per position and code whatever path spelling it carries (`merge_contexts`: the other
    analysis contexts as notes, as every front end shows them), sorted."""
    from dataclasses import replace

    from namedcheck.diagnostic import merge_contexts

    return merge_contexts([d if d.path == path else replace(d, path=path) for d in diags])


def _analyse(path: str, session: Any) -> tuple[list[Any], list[Any], dict[Any, Any]] | None:
    """One file of the build through the build's session: its diagnostics, those it causes elsewhere, and
    its expressions' values."""
    from namedcheck.analyzer.check import analyse_target_for_plugin
    from namedcheck.analyzer.sources import read_regular

    stall, crash = os.environ.get(_STALL), os.environ.get(_CRASH)
    if stall and stall in path:
        while True:
            time.sleep(60)
    if crash and crash in path:
        os._exit(70)
    cap = session.limits.max_file_size
    data = read_regular(path, cap * 1024 * 1024)
    if isinstance(data, str):
        return None  # deleted or replaced since mypy named it: mypy's own output stands
    if len(data) > cap * 1024 * 1024:
        from namedcheck.diagnostic import Diagnostic
        from namedcheck.engine.codes import NC001

        message = f"File is not checked: it is larger than {cap} MB (max-file-size in [tool.namedcheck])"
        return [Diagnostic(path, 1, 1, 1, 1, NC001, message)], [], {}
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return analyse_target_for_plugin(source, path, session=session)


def analyse_build(paths: list[str]) -> dict[str, Result | None]:
    """Every file's result for a build of `paths` (in process: the plugin's fallback)."""
    build = Build()
    for p in paths:
        build.add(p)
    return build.results()


class Channel:
    """The worker's stdout: length-prefixed pickled records, written by the main thread (results) and the
    reader thread (the file being analysed, as soon as the plugin asks for the answer)."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.lock = threading.Lock()
        self.answering = False  # the plugin asked for the answer and reads every record
        self.current: str | None = None  # the file being analysed

    def send(self, path: str | None, result: Any) -> None:
        with self.lock:
            self._write(path, result)

    def _write(self, path: str | None, result: Any) -> None:
        data = pickle.dumps((path, result))
        self.out.write(struct.pack("<Q", len(data)) + data)
        self.out.flush()

    def working(self, path: str | None) -> None:
        """The main thread starts (a path) or ends (None) a file's analysis."""
        with self.lock:
            self.current = path
            if path is not None and self.answering:
                self._write(path, WORKING)

    def asked(self) -> None:
        """The plugin asked for the answer (reader thread): name the file in progress at once."""
        with self.lock:
            self.answering = True
            if self.current is not None:
                self._write(self.current, WORKING)

    def answered(self) -> None:
        with self.lock:
            self.answering = False


def _read_requests(stdin: BinaryIO, requests: queue.Queue[str], channel: Channel) -> None:
    """The reader thread: queue each request line; the end of stdin (the plugin closed it, or died) ends
    the worker at once, even in the middle of a file."""
    try:
        for raw in stdin:
            line = raw.decode("utf-8", "surrogateescape").rstrip("\n")
            if line == "E":
                channel.asked()
            requests.put(line)
    except Exception:
        pass
    listing = os.environ.get(_MODULES)
    if listing:
        with open(listing, "w", encoding="utf-8") as f:
            f.write("\n".join(sorted(sys.modules)))
    os._exit(0)


def main(argv: list[str] | None = None) -> int:
    """`argv`: the parent's process id, and `--pdeathsig` when the worker may ask the kernel to kill it with
    the thread that started it (default: the current parent, no signal)."""
    args = sys.argv[1:] if argv is None else argv
    numbers = [a for a in args if a.isdigit()]
    parent = int(numbers[0]) if numbers else os.getppid()
    from namedcheck.cli.lifetime import end_with_parent

    # leave as soon as mypy is gone, even in the middle of a file (mypy may end with os._exit, which runs no
    # clean-up; the closed pipe alone would be noticed only after the current file)
    if not end_with_parent(parent, status=0, poll=0.05, kernel_signal="--pdeathsig" in args):
        return 0
    channel = Channel(sys.stdout.buffer)
    requests: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_read_requests, args=(sys.stdin.buffer, requests, channel), daemon=True).start()
    build = Build(channel)
    while True:
        kind, _, path = requests.get().partition(" ")
        if kind == "A":
            build.analyse(path)
        elif kind == "B":
            build.add(path)
        elif kind == "E":
            try:
                results = build.results()
            except Exception:
                results = {}
            channel.answered()
            for p, result in results.items():
                channel.send(p, result)
            channel.send(None, None)
            build = Build(channel)


if __name__ == "__main__":
    sys.exit(main())
