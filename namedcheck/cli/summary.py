"""What a `namedcheck check` run did: files found and analysed, time taken, a progress line on a terminal."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from namedcheck.diagnostic import Diagnostic

if TYPE_CHECKING:  # the analysis (and libcst) load only once a run checks files
    from namedcheck.analyzer.coverage_figures import Coverage

#: A run over at least this many files may show a progress line (on a terminal, after PROGRESS_DELAY s).
PROGRESS_MIN_FILES = 20
PROGRESS_DELAY = 0.5
PROGRESS_EVERY = 0.1  # seconds between redraws


class FileDiagnostics(list[Diagnostic]):
    """One checked file's diagnostics, with what its analysis saw of its array shapes (None: not analysed)."""

    def __init__(self, diags: Iterable[Diagnostic] = (), display: str = "", coverage: Coverage | None = None) -> None:
        super().__init__(diags)
        self.display = display
        self.coverage = coverage


class SkippedFile(FileDiagnostics):
    """The (empty) result of a file skipped without parsing: it never mentions jax, namedcheck or xmap."""


@dataclass
class Progress:
    """`namedcheck: 120/1000 files` redrawn in place on a terminal's stderr while a long run goes on."""

    total: int
    stream: TextIO | None
    done: int = 0
    start: float = field(default_factory=time.monotonic)
    _drawn: float = 0.0
    _shown: bool = False

    @property
    def enabled(self) -> bool:
        return self.stream is not None and self.total >= PROGRESS_MIN_FILES and _isatty(self.stream)

    def tick(self) -> None:
        self.done += 1
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < PROGRESS_DELAY or (now - self._drawn < PROGRESS_EVERY and self.done < self.total):
            return
        assert self.stream is not None
        self.stream.write(f"\r\033[Knamedcheck: checked {self.done}/{self.total} files")
        self.stream.flush()
        self._drawn, self._shown = now, True

    def close(self) -> None:
        """Erase the progress line, so that what follows starts on a clean line."""
        if self._shown and self.stream is not None:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._shown = False


@dataclass
class RunStats:
    """Counts for the final summary line: files found, files analysed (not skipped cheaply), elapsed time,
    and what the analysis saw of each analysed file's array shapes (by display path)."""

    files: int = 0
    analysed: int = 0
    start: float = field(default_factory=time.monotonic)
    progress: Progress | None = None
    coverage: dict[str, Coverage] = field(default_factory=dict)

    def begin(self, files: int, stream: TextIO | None) -> None:
        self.files = files
        self.progress = Progress(files, stream)

    def record(self, result: list[Diagnostic]) -> None:
        """One file's result is in."""
        if not isinstance(result, SkippedFile):
            self.analysed += 1
        if isinstance(result, FileDiagnostics) and result.coverage is not None:
            self.coverage[result.display] = result.coverage
        if self.progress is not None:
            self.progress.tick()

    def finish(self) -> None:
        if self.progress is not None:
            self.progress.close()

    @property
    def total(self) -> Coverage:
        """The run's coverage: the sum over its analysed files."""
        from namedcheck.analyzer.coverage_figures import Coverage

        return sum(self.coverage.values(), Coverage())

    def summary(self, diags: list[Diagnostic]) -> str:
        """`Checked 12 files (3 analysed) in 0.41 s: 2 errors in 1 file; shapes known for 41% of 530 array
        expressions (ranks for 77%)`."""
        elapsed = time.monotonic() - self.start
        errors = [d for d in diags if d.severity == "error"]
        n, f = len(errors), len({d.path for d in errors})
        notes = len(diags) - n  # files cut short by a budget: said, not counted as errors
        noted = f" ({_count(notes, 'note')})" if notes else ""
        return (
            f"Checked {_count(self.files, 'file')} ({self.analysed} analysed) in {elapsed:.2f} s: "
            f"{_count(n, 'error')} in {_count(f, 'file')}{noted}; {seen(self.total)}"
        )


def seen(c: Coverage) -> str:
    """`shapes known for 41% of 530 array expressions (ranks for 77%)`; percentages rounded down."""
    if not c.arrays:
        return "no array expressions seen"
    return (
        f"shapes known for {c.shape_percent}% of {_count(c.arrays, 'array expression')} (ranks for {c.rank_percent}%)"
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
