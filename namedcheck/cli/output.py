"""Render diagnostics: text (ruff/rustc style), json, sarif, github annotations."""

from __future__ import annotations

import json
import os
import posixpath
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from namedcheck import __version__
from namedcheck.diagnostic import Diagnostic, Fix, Related
from namedcheck.engine.codes import CODES, family, help_text, help_uri


def printable(s: str, keep: str = "\t") -> str:
    """`s` with control characters (an escape sequence in a file name or a message, a bidirectional override)
    written as Python writes them in a repr (`\\x1b`, `\\u202e`), so a terminal or a CI log shows them instead
    of obeying them; the characters of `keep` (a tab; a message's line breaks) stay."""
    if s.isprintable() or all(c.isprintable() or c in keep for c in s):
        return s
    return "".join(c if c.isprintable() or c in keep else repr(c)[1:-1] for c in s)


def _message(s: str) -> str:
    return printable(s, "\t\n")


def shown_path(path: str) -> str:
    """A file name as text prints it: every control character escaped, a tab too (`\\t`)."""
    return printable(path, "")


def same_form(top: str, other: str) -> str:
    """`other` (a related location's path, relative to the working directory) in the form of the
    diagnostic's own path `top`: absolute when it is, `./`-prefixed when it is (`check .`)."""
    if not other or other == "-":
        return other
    if os.path.isabs(top) and not os.path.isabs(other):
        return os.path.abspath(other)
    if top.startswith("./") and not os.path.isabs(other) and not other.startswith(("./", "../")):
        return "./" + other
    return other


def fixable(d: Diagnostic, unsafe: bool = False) -> bool:
    """Whether `check --fix` (with `--unsafe-fixes`: `unsafe`) fixes `d`: it has a fix it may apply."""
    return any(f.applies(unsafe) for f in d.fixes)


def in_cell(d: Diagnostic) -> tuple[int, int, int] | None:
    """A notebook's diagnostic (cli/notebook.py): (cell number, line in the cell, end line in the cell)."""
    data = d.data or {}
    cell, line, end = data.get("cell"), data.get("cell_line"), data.get("cell_end_line")
    if all(isinstance(v, int) and not isinstance(v, bool) for v in (cell, line, end)):
        return cell, line, end  # type: ignore[return-value]
    return None


def shown_at(d: Diagnostic) -> str:
    """`path:line:col` as the text output prints it; in a notebook `nb.ipynb:cell 3:2:5` (ruff's)."""
    c = in_cell(d)
    if c is not None:
        return f"{shown_path(d.path)}:cell {c[0]}:{c[1]}:{d.column}"
    return f"{shown_path(d.path)}:{d.line}:{d.column}"


def fix_summary(diags: list[Diagnostic], unsafe: bool = False) -> str:
    """ruff's line under the count: how many diagnostics `--fix` fixes, and how many more `--unsafe-fixes`
    would ("" when neither)."""
    n = sum(1 for d in diags if fixable(d, unsafe))
    hidden = 0 if unsafe else sum(1 for d in diags if d.fixes and not fixable(d))
    more = f"{hidden} hidden fix{'es' if hidden != 1 else ''} can be enabled with the `--unsafe-fixes` option"
    if n and hidden:
        return f"[*] {n} fixable with the `--fix` option ({more})."
    if n:
        return f"[*] {n} fixable with the `--fix` option."
    return f"No fixes available ({more})." if hidden else ""


def render_text(
    diags: list[Diagnostic],
    read_line: Callable[[str, int], str],
    color: bool = False,
    unsafe: bool = False,
    summary: bool = True,
) -> str:
    """Each diagnostic with its source line (`[*]` after the code: `--fix` fixes it), then the count and
    the fixable count (`summary`; `-q` leaves them out)."""
    out: list[str] = []
    bold, red, blue, reset = ("\033[1m", "\033[31m", "\033[34m", "\033[0m") if color else ("", "", "", "")
    for d in diags:
        star = " [*]" if fixable(d, unsafe) else ""
        out.append(f"{bold}{shown_at(d)}:{reset} {red}{d.code}{reset}{star} {_message(d.message)}")
        src = printable(read_line(d.path, d.line))
        c = in_cell(d)
        shown_line = c[1] if c is not None else d.line  # a notebook's: the line in its cell
        if src:
            gutter = " " * len(str(shown_line))
            width = (d.end_column - d.column) if d.end_line == d.line else len(src.rstrip()) - d.column + 1
            out.append(f"{blue}{gutter} |{reset}")
            out.append(f"{blue}{shown_line} |{reset} {src.rstrip()}")
            out.append(f"{blue}{gutter} |{reset} {' ' * (d.column - 1)}{red}{'^' * max(1, width)}{reset}")
        for r in d.related:
            out.append(
                f"{' ' * len(str(d.line))} = note: {shown_path(r.path)}:{r.line}:{r.column}: {_message(r.message)}"
            )
        if d.hint:
            out.append(f"{' ' * len(str(d.line))} = hint: {_message(d.hint)}")
        out.append("")
    if not summary:
        return "\n".join(out[:-1])
    n = sum(d.severity == "error" for d in diags)
    notes = len(diags) - n
    said = f" ({notes} note{'s' if notes != 1 else ''})" if notes else ""
    out.append(f"Found {n} error{'s' if n != 1 else ''}.{said}" if n else f"All checks passed.{said}")
    fixes = fix_summary(diags, unsafe)
    if fixes:
        out.append(fixes)
    return "\n".join(out)


def render_json(diags: list[Diagnostic]) -> str:
    """One array of diagnostics, each with its fix hint and a `file:` link to the code's section in the
    installed docs/codes.md (`url`; null where the package was installed without its docs). A related
    location's path has the form of its diagnostic's (`./pkg/a.py` beside `./pkg/b.py`)."""
    return json.dumps(
        [
            {
                **_located(_same_forms(d.as_json(), d), d),
                "url": help_uri(d.code),
                **({"fixes": [f.as_json() for f in d.fixes]} if d.fixes else {}),
            }
            for d in diags
        ],
        indent=2,
    )


def _same_forms(doc: dict[str, object], d: Diagnostic) -> dict[str, object]:
    related = doc.get("related")
    if isinstance(related, list) and related:
        doc["related"] = [
            {**r, "path": same_form(d.path, r["path"])} if isinstance(r, dict) and isinstance(r.get("path"), str) else r
            for r in related
        ]
    return doc


def _located(doc: dict[str, object], d: Diagnostic) -> dict[str, object]:
    """A notebook's diagnostic in json: `line` / `end_line` in its cell, and `cell` (1-based, ruff's)."""
    c = in_cell(d)
    if c is None:
        return doc
    return {**doc, "line": c[1], "end_line": c[2], "cell": c[0]}


def render_github(diags: list[Diagnostic]) -> str:
    """GitHub Actions workflow commands: one `::error` annotation per diagnostic (`::notice` for a note), hint on
    its own line."""

    def esc(s: str) -> str:
        return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    def prop(s: str) -> str:
        return esc(s).replace(":", "%3A").replace(",", "%2C")

    out = []
    for d in diags:
        title = f"{d.code} {CODES[d.code].title}" if d.code in CODES else d.code
        p, m = shown_path, _message
        notes = "".join(f"\nnote: {p(r.path)}:{r.line}:{r.column}: {m(r.message)}" for r in d.related)
        text = m(d.message) + notes + (f"\nhint: {m(d.hint)}" if d.hint else "")
        c = in_cell(d)
        line, end = (c[1], c[2]) if c is not None else (d.line, d.end_line)
        if c is not None:
            text = f"cell {c[0]}: {text}"
        out.append(
            f"::{'notice' if d.severity == 'note' else 'error'} file={prop(p(d.path))},line={line},col={d.column},endLine={end},"
            f"endColumn={d.end_column},title={prop(title)}::{esc(text)}"
        )
    return "\n".join(out)


def sarif_rule(code: str) -> dict[str, object]:
    """A SARIF reportingDescriptor: descriptions, the explain text as help (text and markdown), link, family tag."""
    c = CODES.get(code)
    if c is None:
        return {"id": code, "shortDescription": {"text": code}}
    return {
        "id": code,
        "name": "".join(w.capitalize() for w in c.title.replace("/", " ").replace("`", "").split() if w.isalnum()),
        "shortDescription": {"text": c.title},
        "fullDescription": {"text": c.explanation},
        "help": {"text": help_text(code), "markdown": help_text(code, markdown=True)},
        **({"helpUri": uri} if (uri := help_uri(code)) else {}),  # SARIF: an absolute URI, or none
        "defaultConfiguration": {"level": "error"},
        "properties": {"tags": ["namedcheck", family(code)], "precision": "high", "problem.severity": "error"},
    }


SRCROOT = "%SRCROOT%"


def sarif_location(path: str) -> dict[str, str]:
    """A SARIF artifactLocation: a relative path as a percent-encoded URI reference (RFC 3986: a space is
    `%20`, a control character or a non-ASCII one its UTF-8 bytes escaped, no `./`) against `%SRCROOT%`
    (the working directory); an absolute path as a `file:` URI."""
    if os.path.isabs(path):
        try:
            return {"uri": Path(path).as_uri()}
        except ValueError:
            pass
    norm = posixpath.normpath(path.replace(os.sep, "/")) if path else path
    return {"uri": quote(norm, safe="/", errors="surrogateescape"), "uriBaseId": SRCROOT}


def _srcroot() -> str:
    try:
        return Path.cwd().as_uri() + "/"
    except (OSError, ValueError):
        return "file:///"


def render_sarif(diags: list[Diagnostic]) -> str:
    rules = sorted({d.code for d in diags})
    index = {c: i for i, c in enumerate(rules)}
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "namedcheck",
                        "version": __version__,
                        "rules": [sarif_rule(c) for c in rules],
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": _srcroot()}},
                "results": [
                    {
                        "ruleId": d.code,
                        "ruleIndex": index[d.code],
                        "level": "note" if d.severity == "note" else "error",
                        "message": {"text": d.message + (f"\nhint: {d.hint}" if d.hint else "")},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": sarif_location(d.path),
                                    "region": _sarif_region(d),
                                }
                            }
                        ],
                        **(
                            {"relatedLocations": [_sarif_related(i, r) for i, r in enumerate(d.related)]}
                            if d.related
                            else {}
                        ),
                        **(
                            {
                                "properties": {
                                    **({"hint": d.hint} if d.hint else {}),
                                    **({"data": dict(d.data)} if d.data else {}),
                                }
                            }
                            if d.hint or d.data
                            else {}
                        ),
                        **({"fixes": [_sarif_fix(d.path, f) for f in d.fixes]} if d.fixes else {}),
                    }
                    for d in diags
                ],
            }
        ],
    }
    return json.dumps(doc, indent=2)


def _sarif_region(d: Diagnostic) -> dict[str, object]:
    """A result's region; a notebook's is in its cell, with the cell number as a property (ruff's json)."""
    c = in_cell(d)
    line, end = (c[1], c[2]) if c is not None else (d.line, d.end_line)
    region: dict[str, object] = {"startLine": line, "startColumn": d.column, "endLine": end, "endColumn": d.end_column}
    if c is not None:
        region["properties"] = {"cell": c[0]}
    return region


def _sarif_related(i: int, r: Related) -> dict[str, object]:
    return {
        "id": i,
        "message": {"text": r.message},
        "physicalLocation": {
            "artifactLocation": sarif_location(r.path),
            "region": {"startLine": r.line, "startColumn": r.column, "endLine": r.end_line, "endColumn": r.end_column},
        },
    }


def _sarif_fix(path: str, fix: Fix) -> dict[str, object]:
    return {
        "description": {"text": f"{fix.title} ({fix.applicability})"},
        "artifactChanges": [
            {
                "artifactLocation": sarif_location(path),
                "replacements": [
                    {
                        "deletedRegion": {
                            "startLine": e.line,
                            "startColumn": e.column,
                            "endLine": e.end_line,
                            "endColumn": e.end_column,
                        },
                        "insertedContent": {"text": e.text},
                    }
                    for e in fix.edits
                ],
            }
        ],
    }


def render_statistics(diags: list[Diagnostic], as_json: bool = False) -> str:
    """`--statistics`: how many diagnostics of each code, most frequent first (like ruff)."""
    counts: dict[str, int] = {}
    for d in diags:
        counts[d.code] = counts.get(d.code, 0) + 1
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if as_json:
        return json.dumps(
            [{"code": c, "name": CODES[c].title if c in CODES else c, "count": n} for c, n in rows], indent=2
        )
    width = max((len(str(n)) for _, n in rows), default=1)
    return "\n".join(f"{n:>{width}}\t{c}\t{CODES[c].title if c in CODES else ''}" for c, n in rows)


if __name__ == "__main__":
    import sys

    from namedcheck.engine.codes import codes_markdown

    if sys.argv[1:] != ["--codes-md"]:
        sys.exit("usage: python -m namedcheck.cli.output --codes-md > docs/codes.md")
    print(codes_markdown(), end="")
