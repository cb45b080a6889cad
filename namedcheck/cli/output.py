"""Render diagnostics: text (ruff/rustc style), json, sarif, github annotations."""

from __future__ import annotations

import json
from collections.abc import Callable

from namedcheck import __version__
from namedcheck.diagnostic import Diagnostic, Fix
from namedcheck.engine.codes import CODES


def render_text(diags: list[Diagnostic], read_line: Callable[[str, int], str], color: bool = False) -> str:
    out: list[str] = []
    bold, red, blue, reset = ("\033[1m", "\033[31m", "\033[34m", "\033[0m") if color else ("", "", "", "")
    for d in diags:
        out.append(f"{bold}{d.path}:{d.line}:{d.column}:{reset} {red}{d.code}{reset} {d.message}")
        src = read_line(d.path, d.line)
        if src:
            gutter = " " * len(str(d.line))
            width = (d.end_column - d.column) if d.end_line == d.line else len(src.rstrip()) - d.column + 1
            out.append(f"{blue}{gutter} |{reset}")
            out.append(f"{blue}{d.line} |{reset} {src.rstrip()}")
            out.append(f"{blue}{gutter} |{reset} {' ' * (d.column - 1)}{red}{'^' * max(1, width)}{reset}")
        if d.hint:
            out.append(f"{' ' * len(str(d.line))} = hint: {d.hint}")
        out.append("")
    n = len(diags)
    out.append(f"Found {n} error{'s' if n != 1 else ''}." if n else "All checks passed.")
    return "\n".join(out)


def render_json(diags: list[Diagnostic]) -> str:
    return json.dumps([{**d.as_json(), **({"fixes": [f.as_json() for f in d.fixes]} if d.fixes else {})}
                       for d in diags], indent=2)


def render_github(diags: list[Diagnostic]) -> str:
    def esc(s: str) -> str:
        return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return "\n".join(f"::error file={d.path},line={d.line},col={d.column},endLine={d.end_line},"
                     f"endColumn={d.end_column},title={d.code}::{esc(d.message)}" for d in diags)


def render_sarif(diags: list[Diagnostic]) -> str:
    rules = sorted({d.code for d in diags})
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "namedcheck", "version": __version__,
                "rules": [{"id": c, "shortDescription": {"text": CODES[c].title if c in CODES else c},
                           "fullDescription": {"text": CODES[c].explanation if c in CODES else c}} for c in rules],
            }},
            "results": [{
                "ruleId": d.code, "level": "error", "message": {"text": d.message},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": d.path},
                    "region": {"startLine": d.line, "startColumn": d.column, "endLine": d.end_line,
                               "endColumn": d.end_column}}}],
                **({"fixes": [_sarif_fix(d.path, f) for f in d.fixes]} if d.fixes else {}),
            } for d in diags],
        }],
    }
    return json.dumps(doc, indent=2)


def _sarif_fix(path: str, fix: Fix) -> dict[str, object]:
    return {"description": {"text": f"{fix.title} ({'safe' if fix.safe else 'unsafe'})"},
            "artifactChanges": [{"artifactLocation": {"uri": path}, "replacements": [
                {"deletedRegion": {"startLine": e.line, "startColumn": e.column, "endLine": e.end_line,
                                   "endColumn": e.end_column}, "insertedContent": {"text": e.text}}
                for e in fix.edits]}]}
