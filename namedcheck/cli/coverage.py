"""`namedcheck coverage PATH...`: how much of each file's array shapes the checker saw (analyzer/coverage.py),
per file, worst first, and in total; text or JSON."""

from __future__ import annotations

import json

from namedcheck.analyzer.coverage_figures import Coverage
from namedcheck.cli.output import shown_path


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
