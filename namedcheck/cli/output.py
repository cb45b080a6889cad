"""Render diagnostics: text (ruff/rustc style), json, sarif, github annotations."""

from __future__ import annotations

import json
from collections.abc import Callable

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


def render_text(diags: list[Diagnostic], read_line: Callable[[str, int], str], color: bool = False) -> str:
    out: list[str] = []
    bold, red, blue, reset = ("\033[1m", "\033[31m", "\033[34m", "\033[0m") if color else ("", "", "", "")
    for d in diags:
        out.append(f"{bold}{printable(d.path)}:{d.line}:{d.column}:{reset} {red}{d.code}{reset} {_message(d.message)}")
        src = printable(read_line(d.path, d.line))
        if src:
            gutter = " " * len(str(d.line))
            width = (d.end_column - d.column) if d.end_line == d.line else len(src.rstrip()) - d.column + 1
            out.append(f"{blue}{gutter} |{reset}")
            out.append(f"{blue}{d.line} |{reset} {src.rstrip()}")
            out.append(f"{blue}{gutter} |{reset} {' ' * (d.column - 1)}{red}{'^' * max(1, width)}{reset}")
        for r in d.related:
            out.append(
                f"{' ' * len(str(d.line))} = note: {printable(r.path)}:{r.line}:{r.column}: {_message(r.message)}"
            )
        if d.hint:
            out.append(f"{' ' * len(str(d.line))} = hint: {_message(d.hint)}")
        out.append("")
    n = len(diags)
    out.append(f"Found {n} error{'s' if n != 1 else ''}." if n else "All checks passed.")
    return "\n".join(out)


def render_json(diags: list[Diagnostic]) -> str:
    """One array of diagnostics, each with its fix hint and a `file:` link to the code's section in the
    installed docs/codes.md (`url`; null where the package was installed without its docs)."""
    return json.dumps(
        [
            {**d.as_json(), "url": help_uri(d.code), **({"fixes": [f.as_json() for f in d.fixes]} if d.fixes else {})}
            for d in diags
        ],
        indent=2,
    )


def render_github(diags: list[Diagnostic]) -> str:
    """GitHub Actions workflow commands: one `::error` annotation per diagnostic, hint on its own line."""

    def esc(s: str) -> str:
        return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    def prop(s: str) -> str:
        return esc(s).replace(":", "%3A").replace(",", "%2C")

    out = []
    for d in diags:
        title = f"{d.code} {CODES[d.code].title}" if d.code in CODES else d.code
        p, m = printable, _message
        notes = "".join(f"\nnote: {p(r.path)}:{r.line}:{r.column}: {m(r.message)}" for r in d.related)
        text = m(d.message) + notes + (f"\nhint: {m(d.hint)}" if d.hint else "")
        out.append(
            f"::error file={prop(p(d.path))},line={d.line},col={d.column},endLine={d.end_line},"
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
                "results": [
                    {
                        "ruleId": d.code,
                        "ruleIndex": index[d.code],
                        "level": "note" if d.severity == "note" else "error",
                        "message": {"text": d.message + (f"\nhint: {d.hint}" if d.hint else "")},
                        "locations": [
                            {
                                "physicalLocation": {
                                    "artifactLocation": {"uri": d.path},
                                    "region": {
                                        "startLine": d.line,
                                        "startColumn": d.column,
                                        "endLine": d.end_line,
                                        "endColumn": d.end_column,
                                    },
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


def _sarif_related(i: int, r: Related) -> dict[str, object]:
    return {
        "id": i,
        "message": {"text": r.message},
        "physicalLocation": {
            "artifactLocation": {"uri": r.path},
            "region": {"startLine": r.line, "startColumn": r.column, "endLine": r.end_line, "endColumn": r.end_column},
        },
    }


def _sarif_fix(path: str, fix: Fix) -> dict[str, object]:
    return {
        "description": {"text": f"{fix.title} ({'safe' if fix.safe else 'unsafe'})"},
        "artifactChanges": [
            {
                "artifactLocation": {"uri": path},
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
