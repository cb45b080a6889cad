"""`Coverage`: how many of a file's (or a run's) array expressions the analysis saw, and with a known rank or
shape (the definitions: analyzer/coverage.py, which counts them). Nothing here imports libcst: the result
cache and the run's summary read these figures without loading the analyzer."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class CauseCount:
    """One cause of a file's array expressions whose shape is not known (analyzer/causes.py): its kind
    (`unmodelled call`, `library`, `python form`, ...), its label (`haiku.Linear`, `**kwargs call`), how many
    of the file's expressions it explains, and the line of one place it happened (0: not located; in a
    notebook, `cell` and the line in that cell)."""

    kind: str
    label: str
    count: int
    line: int = 0
    cell: int = 0

    def as_json(self) -> list[object]:
        return [self.kind, self.label, self.count, self.line, self.cell]

    @staticmethod
    def from_json(data: object) -> CauseCount:
        if not isinstance(data, list) or len(data) != 5:
            raise ValueError("not a cause")
        kind, label, count, line, cell = data
        if not (isinstance(kind, str) and isinstance(label, str)) or not all(
            type(n) is int and n >= 0 for n in (count, line, cell)
        ):
            raise ValueError("not a cause")
        return CauseCount(kind, label, count, line, cell)


@dataclass(frozen=True, slots=True)
class Coverage:
    """Array-valued expressions of a file (or a run: `+`), and how many of them have a known rank / shape;
    a file's, the causes of those whose shape is not known (a sum keeps none: the report ranks them per run)."""

    arrays: int = 0
    rank_known: int = 0
    shape_known: int = 0
    causes: tuple[CauseCount, ...] = field(default=(), compare=False)  # (the counts compare)

    def __add__(self, other: Coverage) -> Coverage:
        return Coverage(
            self.arrays + other.arrays, self.rank_known + other.rank_known, self.shape_known + other.shape_known
        )

    @property
    def shape_percent(self) -> int:
        """Shapes known, in whole percent rounded down (100 only when all are known); 100 for no arrays."""
        return _percent(self.shape_known, self.arrays)

    @property
    def rank_percent(self) -> int:
        return _percent(self.rank_known, self.arrays)

    def as_json(self) -> dict[str, int]:
        return {"arrays": self.arrays, "rank_known": self.rank_known, "shape_known": self.shape_known}

    def entry(self) -> dict[str, object]:
        """What the result cache stores: the counts and the causes."""
        return {**self.as_json(), "causes": [c.as_json() for c in self.causes]}

    @staticmethod
    def from_json(data: object) -> Coverage:
        """The inverse of `entry`; ValueError for anything else (a cache entry read back)."""
        if not isinstance(data, dict) or set(data) != {"arrays", "rank_known", "shape_known", "causes"}:
            raise ValueError("not a coverage object")
        a, r, s, causes = data["arrays"], data["rank_known"], data["shape_known"], data["causes"]
        if not all(type(n) is int for n in (a, r, s)) or not 0 <= s <= r <= a or not isinstance(causes, list):
            raise ValueError("not a coverage object")
        return Coverage(a, r, s, tuple(CauseCount.from_json(c) for c in causes))


def _percent(part: int, whole: int) -> int:
    return 100 if whole == 0 else part * 100 // whole
