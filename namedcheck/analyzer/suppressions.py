"""Suppression comments, read in one place for every front end: `# namedcheck: ignore[NC201]` (codes or
prefixes; bare: every code), `# noqa: NC201` (exact codes, ruff's; bare `# noqa`: every code) and
`# type: ignore[NC201]` (exact codes, mypy's; `[namedcheck]`: every NC code; bare: every code, as mypy
silences the whole line). A diagnostic is suppressed by a comment on its first line. Which suppressions
named an NC code that produced nothing there (`unused`) is judged only for codes of namedcheck: a
`# noqa: E501` or `# type: ignore[attr-defined]` belongs to another tool."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

_MARKER = re.compile(
    r"#\s*(?:(?P<nc>namedcheck:\s*ignore)(?:\[(?P<nc_codes>[^\]]*)\])?"
    r"|(?P<noqa>noqa)(?::\s*(?P<noqa_codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?"
    r"|(?P<type>type:\s*ignore)(?:\[(?P<type_codes>[^\]]*)\])?)",
    re.IGNORECASE,
)
_NC = re.compile(r"NC[0-9]*", re.IGNORECASE)
# a marker namedcheck judges (`Suppression.judged`): its own, or another tool's naming an NC code
# (two scans, each linear: one pattern with `[^\n]*NC[0-9]{3}` after the marker rescans the line from every marker)
_OWN_MARKER = re.compile(r"#\s*namedcheck:\s*ignore", re.IGNORECASE)
_OTHER_MARKER = re.compile(r"#\s*(?:noqa|type:\s*ignore)\b", re.IGNORECASE)
_NC_CODE = re.compile(r"NC[0-9]{3}", re.IGNORECASE)


def may_judge(text: str) -> bool:
    """Whether a text may hold a suppression namedcheck judges as used or unused (NC002): a
    `# namedcheck: ignore`, or a `# noqa` / `# type: ignore` naming an NC code. Real code's `# type:
    ignore` and `# noqa: E501` are another tool's: the positions judging needs are then never resolved."""
    if _OWN_MARKER.search(text) is not None:
        return True
    pos = 0
    while (marker := _OTHER_MARKER.search(text, pos)) is not None:
        end = text.find("\n", marker.end())
        end = len(text) if end < 0 else end
        if _NC_CODE.search(text, marker.end(), end) is not None:
            return True
        pos = end  # the rest of the line is read: a later marker on it names no code either
    return False


@dataclass(frozen=True)
class Suppression:
    """One marker in a comment: its kind (`namedcheck`, `noqa`, `type`), the codes it names with their
    columns in the line (0-based, end exclusive; empty: a bare marker), and the marker's own span."""

    kind: str
    codes: tuple[tuple[str, int, int], ...]
    start: int
    end: int

    @property
    def bare(self) -> bool:
        return not self.codes

    def covers(self, code: str) -> bool:
        """Whether the marker silences `code`."""
        if self.bare:
            return True
        names = [c.upper() for c, _, _ in self.codes]
        if self.kind == "namedcheck":
            return any(code.startswith(n) for n in names)
        if self.kind == "type" and "NAMEDCHECK" in names:
            return True
        return code in names

    def judged(self) -> list[tuple[str, int, int]]:
        """The names of this marker namedcheck judges as used or not: its NC codes (a bare
        `# namedcheck: ignore` as the whole marker, code ""); never another tool's codes or bare marker."""
        if self.kind == "namedcheck" and self.bare:
            return [("", self.start, self.end)]
        return [(c, a, b) for c, a, b in self.codes if _NC.fullmatch(c) and (self.kind == "namedcheck" or len(c) == 5)]

    def used_by(self, name: str, codes: set[str]) -> bool:
        """Whether a judged name (`judged`) silenced one of `codes` (the codes found on the line)."""
        if not name:
            return bool(codes)
        if self.kind == "namedcheck":
            return any(c.startswith(name.upper()) for c in codes)
        return name.upper() in codes


def markers(comment: str, offset: int = 0) -> list[Suppression]:
    """The suppression markers in a comment's text (or a whole line: a marker inside a string literal is
    found too, which only ever silences more); columns shifted by `offset`."""
    out = []
    for m in _MARKER.finditer(comment):
        kind = "namedcheck" if m.group("nc") else "noqa" if m.group("noqa") else "type"
        group = f"{'nc' if kind == 'namedcheck' else kind}_codes"
        codes: list[tuple[str, int, int]] = []
        if m.group(group) is not None:
            base = m.start(group)
            for c in re.finditer(r"[A-Za-z0-9_-]+", m.group(group)):
                codes.append((c.group(), offset + base + c.start(), offset + base + c.end()))
            if not codes and kind == "noqa":
                continue
        out.append(Suppression(kind, tuple(codes), offset + m.start(), offset + m.end()))
    return out


def suppressed(line: str, code: str, type_ignores: bool = True) -> bool:
    """Whether a comment on `line` (a diagnostic's first line) silences `code`. `type_ignores=False`: the
    mypy plugin, where mypy itself honours (and judges) `# type: ignore`."""
    if "#" not in line:
        return False
    return any(s.covers(code) for s in markers(line) if type_ignores or s.kind != "type")


def comments(source: str) -> dict[int, list[Suppression]]:
    """The suppression markers of a source's real comments (never a string's text), by 1-based line."""
    out: dict[int, list[Suppression]] = {}
    if "#" not in source:
        return out
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                found = markers(tok.string, tok.start[1])
                if found:
                    out.setdefault(tok.start[0], []).extend(found)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return {}  # a text that does not tokenize: nothing judged
    return out


def removal(line: str, s: Suppression, names: list[tuple[str, int, int]]) -> tuple[int, int, str]:
    """The edit (start column, end column, new text; 0-based) that takes the unused `names` out of marker
    `s` of `line`: the whole comment when nothing else is left in it, else the marker, else the names."""
    left = [c for c in s.codes if c not in names]
    if left and not (len(names) == 1 and names[0][0] == ""):
        text = ", ".join(c for c, _, _ in left)
        first, last = s.codes[0][1], s.codes[-1][2]
        return first, last, text
    rest = line[s.end :].strip()
    if rest.startswith("#"):  # another comment follows: drop this marker up to it
        return s.start, line.index("#", s.end), ""
    if rest:  # words after the marker stay a comment
        return s.start + 1, s.end, ""
    start = len(line[: s.start].rstrip())  # the comment was only this marker: it goes, with the spaces before
    return start, len(line.rstrip("\r\n")), ""
