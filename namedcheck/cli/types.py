"""`namedcheck types PATH...`: every binding of the checked files with the types inferred there
(analyzer/bindings.py), as text or JSON (the format is documented in docs/cli.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from namedcheck.cli.output import printable

FORMAT_VERSION = 1


def collect(paths: list[str], cfg: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """(bindings, problems, status) for the files under `paths`, analysed as `check` analyses them; status 2
    when a path is missing or a file cannot be read (said on stderr)."""
    from namedcheck.analyzer.bindings import Binding, describe, file_types, merge, recorded_elsewhere
    from namedcheck.analyzer.session import Session
    from namedcheck.analyzer.sources import decode_source
    from namedcheck.cli.discover import discover
    from namedcheck.engine.readfile import Unreadable, read_bytes

    unreadable: list[tuple[str, str]] = []
    files, missing = discover(paths, cfg.exclude, cfg.root, unreadable, cfg.respect_gitignore)
    status = 0
    for m in missing:
        print(f"namedcheck: error: no such file or directory: {printable(m)}", file=sys.stderr)
        status = 2
    for shown, why in unreadable:
        print(f"namedcheck: error: {printable(shown)}: cannot read: {why}", file=sys.stderr)
        status = 2
    session = Session(cfg.stub_paths, cfg.limits, roots=paths, devices=cfg.devices, record_bindings=True)
    bindings: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    listed: list[tuple[str, Path, list[Binding]]] = []
    for display, f in files:
        if display.endswith(".ipynb"):
            continue  # (notebook cells would need their own positions)
        try:
            source = decode_source(read_bytes(f, cfg.limits.max_file_size * 1024 * 1024))
        except (Unreadable, OSError, UnicodeDecodeError, SyntaxError) as e:
            print(f"namedcheck: error: {printable(display)}: cannot read: {e}", file=sys.stderr)
            status = 2
            continue
        found = file_types(session, Path(f), source, display)
        for d in found.problems:
            problems.append({"file": display, "line": d.line, "code": d.code, "message": d.message})
        listed.append((display, Path(f), found.bindings))
    # what the calls of the other files gave each file's names (their dependency analyses) joins its own
    displays = {str(f.resolve()): display for display, f, _ in listed}
    elsewhere = recorded_elsewhere(session.recorded or [])
    for display, f, own in listed:
        try:
            more = elsewhere.get(f.resolve(), [])
        except (OSError, RuntimeError):
            more = []
        for b in merge(own, more):
            types = []
            for i, v in enumerate(b.values):
                t = describe(v)
                ats = b.vias[i] if i < len(b.vias) else [None]
                t["own"] = None in ats  # the file's own analysis gives it (whatever calls it)
                t["via"] = [call_path(at, displays) for at in ats if at is not None]
                types.append(t)
            bindings.append(
                {"file": display, "line": b.line, "column": b.column, "name": b.name, "kind": b.kind, "types": types}
            )
    return bindings, problems, status


def call_path(at: tuple[tuple[str, int], ...], displays: dict[str, str]) -> dict[str, Any]:
    """A path of calls as JSON: where the outermost was made (`file`, `line`) and where each was, the outermost
    first (`path`: the call in the test, then the calls it led to)."""
    sites = [call_site(hop, displays) for hop in at]
    return {**sites[0], "path": sites}


def call_site(at: tuple[str, int], displays: dict[str, str]) -> dict[str, Any]:
    """A call site as JSON: the file as the run names it (a checked file's display, else relative to the
    working directory where it lies under it) and the line."""
    path, line = at
    if path in displays:
        name = displays[path]
    else:
        try:
            name = str(Path(path).relative_to(Path.cwd()))
        except ValueError:
            name = path
    return {"file": name, "line": line}


def render_json(bindings: list[dict[str, Any]], problems: list[dict[str, Any]]) -> str:
    return json.dumps({"version": FORMAT_VERSION, "bindings": bindings, "problems": problems})


def render_text(bindings: list[dict[str, Any]], problems: list[dict[str, Any]]) -> str:
    """`file:line:column: name: type | type` per binding (`-` when the analysis never reached it)."""
    out = []
    for b in bindings:
        shown = " | ".join(t["type"] for t in b["types"]) or "-"
        out.append(f"{printable(b['file'])}:{b['line']}:{b['column']}: {b['name']}: {shown}")
    for p in problems:
        out.append(f"{printable(p['file'])}:{p['line']}: {p['code']} {p['message']}")
    return "\n".join(out)
