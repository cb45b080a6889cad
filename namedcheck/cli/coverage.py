"""`namedcheck coverage PATH...`: how much of each file's array shapes the checker saw (analyzer/coverage.py),
per file, worst first, and in total; text or JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass

from namedcheck.analyzer.coverage_figures import Coverage
from namedcheck.cli.output import printable, shown_path


def ordered(files: dict[str, Coverage]) -> list[tuple[str, Coverage]]:
    """Worst first: the smallest share of known shapes, then of known ranks, then the most array expressions,
    then by path; files without array expressions last."""

    def key(item: tuple[str, Coverage]) -> tuple[bool, float, float, int, str]:
        path, c = item
        n = c.arrays or 1
        return (c.arrays == 0, c.shape_known / n, c.rank_known / n, -c.arrays, path)

    return sorted(files.items(), key=key)


def render_text(files: dict[str, Coverage]) -> str:
    """One row per file (shapes known, ranks known, array expressions, path), then the total."""
    rows = [("shapes", "ranks", "arrays", "file")]
    for path, c in ordered(files):
        rows.append((*_cells(c), shown_path(path)))
    total = sum(files.values(), Coverage())
    rows.append((*_cells(total), f"total ({len(files)} file{'' if len(files) == 1 else 's'})"))
    return "\n".join(f"{a:>6}  {b:>6}  {n:>7}  {p}" for a, b, n, p in rows)


def _cells(c: Coverage) -> tuple[str, str, str]:
    if not c.arrays:
        return "-", "-", "0"
    return f"{c.shape_percent}%", f"{c.rank_percent}%", str(c.arrays)


def render_json(files: dict[str, Coverage]) -> str:
    """`{"files": [{"path", "arrays", "rank_known", "shape_known"}, ...] (worst first), "total": {"files",
    "arrays", "rank_known", "shape_known"}}`."""
    total = sum(files.values(), Coverage())
    return json.dumps(
        {
            "files": [{"path": path, **c.as_json()} for path, c in ordered(files)],
            "total": {"files": len(files), **total.as_json()},
        },
        indent=2,
    )


@dataclass
class RankedCause:
    """One cause over a run: how many array expressions of unknown shape it explains, and one place."""

    kind: str
    label: str
    count: int
    path: str
    line: int
    cell: int

    def where(self) -> str:
        if not self.line:
            return shown_path(self.path)
        cell = f"cell {self.cell}:" if self.cell else ""
        return f"{shown_path(self.path)}:{cell}{self.line}"


def ranked(files: dict[str, Coverage]) -> list[RankedCause]:
    """The causes of the run's files (analyzer/causes.py) summed by kind and label, the most frequent
    first; the example is the file holding the most of it (then the first path), at that cause's line."""
    out: dict[tuple[str, str], RankedCause] = {}
    best: dict[tuple[str, str], tuple[int, str]] = {}
    for path in sorted(files):
        for c in files[path].causes:
            k = (c.kind, c.label)
            r = out.get(k)
            if r is None:
                out[k] = RankedCause(c.kind, c.label, c.count, path, c.line, c.cell)
                best[k] = (c.count, path)
                continue
            r.count += c.count
            if c.count > best[k][0]:
                best[k] = (c.count, path)
                r.path, r.line, r.cell = path, c.line, c.cell
    return sorted(out.values(), key=lambda r: (-r.count, r.kind, r.label))


def render_why_text(files: dict[str, Coverage], top: int = 0) -> str:
    """The ranked causes (count, kind, label, an example location), at most `top` (0: all), then the total."""
    causes = ranked(files)
    total = sum(files.values(), Coverage())
    shown = causes[:top] if top else causes
    rows = [("count", "kind", "label", "example")]
    rows += [(str(r.count), r.kind, printable(r.label), r.where()) for r in shown]
    wk = max(len(r[1]) for r in rows)
    wl = min(48, max(len(r[2]) for r in rows))
    lines = [f"{a:>6}  {k:<{wk}}  {lab:<{wl}}  {w}" for a, k, lab, w in rows]
    unknown = total.arrays - total.shape_known
    more = f"; {len(causes) - len(shown)} more causes (--top 0 shows all)" if len(shown) < len(causes) else ""
    lines.append(
        f"{unknown} of {total.arrays} array expressions without a known shape ({total.shape_percent}% known), "
        f"{len(causes)} cause{'' if len(causes) == 1 else 's'}, {len(files)} file{'' if len(files) == 1 else 's'}"
        + more
    )
    return "\n".join(lines)


def render_why_json(files: dict[str, Coverage]) -> str:
    """`{"causes": [{"count", "kind", "label", "example": {"path", "line"[, "cell"]}}, ...] (most first),
    "total": {"files", "arrays", "rank_known", "shape_known", "causes"}}`."""
    causes = ranked(files)
    total = sum(files.values(), Coverage())
    return json.dumps(
        {
            "causes": [
                {
                    "count": r.count,
                    "kind": r.kind,
                    "label": r.label,
                    "example": {"path": r.path, "line": r.line, **({"cell": r.cell} if r.cell else {})},
                }
                for r in causes
            ],
            "total": {"files": len(files), **total.as_json(), "causes": len(causes)},
        },
        indent=2,
    )


def below(files: dict[str, Coverage], fail_under: float) -> str | None:
    """The message when the run's share of known shapes is below `fail_under` percent (None: it is not)."""
    total = sum(files.values(), Coverage())
    if not total.arrays:
        return None
    share = total.shape_known * 100 / total.arrays
    if share >= fail_under:
        return None
    return (
        f"coverage failure: {share:.1f}% of array shapes known ({total.shape_known} of {total.arrays}), "
        f"less than fail-under={fail_under:g}"
    )
