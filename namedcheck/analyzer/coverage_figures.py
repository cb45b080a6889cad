"""`Coverage`: how many of a file's (or a run's) array expressions the analysis saw, and with a known rank or
shape (the definitions: analyzer/coverage.py, which counts them). Nothing here imports libcst: the result
cache and the run's summary read these figures without loading the analyzer."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Coverage:
    """Array-valued expressions of a file (or a run: `+`), and how many of them have a known rank / shape."""

    arrays: int = 0
    rank_known: int = 0
    shape_known: int = 0

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

    @staticmethod
    def from_json(data: object) -> Coverage:
        """The inverse of `as_json`; ValueError for anything else (a cache entry read back)."""
        if not isinstance(data, dict) or set(data) != {"arrays", "rank_known", "shape_known"}:
            raise ValueError("not a coverage object")
        a, r, s = data["arrays"], data["rank_known"], data["shape_known"]
        if not all(type(n) is int for n in (a, r, s)) or not 0 <= s <= r <= a:
            raise ValueError("not a coverage object")
        return Coverage(a, r, s)


def _percent(part: int, whole: int) -> int:
    return 100 if whole == 0 else part * 100 // whole
