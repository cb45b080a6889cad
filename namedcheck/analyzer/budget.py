"""The resource guard: per-file bounds on what parsing and analysis may cost.

Before libcst sees a file, CPython's own parser (C, milliseconds) checks it: a NUL byte, nesting Python
rejects (more than 200 brackets, chains too deep for its parser) and an expression nested deeper than
`MAX_NESTING` are NC001 (libcst's parser takes time quadratic in the depth and its native code overflows
the C stack on deep input); other syntax errors are libcst's to report. During the
analysis, a file gets a time budget and the process a memory budget; past either, the analysis of the
file stops: what it found is kept, what is not analysed stays Unknown, and one NC001 says the file was cut
short (`stopped_note`). The analyzer calls `Guard.checkpoint` in every loop whose trip count comes from the
program; `interrupting` backstops them with a timer.
"""

from __future__ import annotations

import ast
import os
import re
import signal
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import cast

MAX_NESTING = 200  # CPython's own limit on nested brackets; real code stays under 50
DEFAULT_TIME_BUDGET = 10.0  # seconds of analysis per file
DEFAULT_MEMORY_BUDGET = 1024  # MB of resident memory one file's analysis may add to the process
DEFAULT_MAX_FILE_SIZE = 5  # MB read per file
_TOO_DEEP = re.compile(r"nested|too many|too deeply|too complex")  # CPython's errors about nesting
_MEMORY_EVERY = 256  # checkpoints between two reads of the resident set size


@dataclass(frozen=True)
class Limits:
    """Per-file bounds; `[tool.namedcheck]` time-budget, memory-budget and max-file-size set them."""

    time_budget: float = DEFAULT_TIME_BUDGET
    memory_budget: int = DEFAULT_MEMORY_BUDGET
    max_file_size: int = DEFAULT_MAX_FILE_SIZE


class BudgetExceeded(BaseException):  # noqa: N818  (not an Exception: rule code never swallows it)
    """The file's analysis ran past its time or memory budget."""


class Guard:
    """Checkpoints for one file's analysis: raise `BudgetExceeded` past the deadline or the memory bound."""

    def __init__(self, limits: Limits) -> None:
        self.deadline = time.monotonic() + limits.time_budget
        # the memory one file's analysis may add to the process (a process that already holds jax, an editor's
        # or a test runner's state, is not charged to the file)
        self.memory_pages = resident_pages() + limits.memory_budget * 1024 * 1024 // _PAGE
        self.count = 0

    def checkpoint(self) -> None:
        if time.monotonic() > self.deadline:
            raise BudgetExceeded("time")
        self.count += 1
        if self.count % _MEMORY_EVERY == 0 and resident_pages() >= self.memory_pages:
            raise BudgetExceeded("memory")


ALARM_GRACE = 0.5  # seconds past the deadline before the timer stops work no checkpoint reached


@contextmanager
def interrupting(guard: Guard | None) -> Iterator[None]:
    """Backstop for the checkpoints: while the block runs (in the main thread, where no one else holds the
    real-time timer), a timer raises `BudgetExceeded("time")` `ALARM_GRACE` seconds past the guard's
    deadline, wherever the analysis is (a comparison of two huge shared trees, a fold no checkpoint sees).
    Elsewhere (a language server's worker thread) the checkpoints alone hold the budget."""
    usable = (
        guard is not None
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
        and signal.getitimer(signal.ITIMER_REAL)[0] == 0
    )
    if not usable or guard is None:
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise BudgetExceeded("time")

    previous = signal.signal(signal.SIGALRM, stop)
    try:
        signal.setitimer(signal.ITIMER_REAL, max(guard.deadline - time.monotonic(), 0.0) + ALARM_GRACE)
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


QUIET_DEFAULT_BUDGETS = "NAMEDCHECK_QUIET_DEFAULT_BUDGETS"  # set by the test suite (tests/conftest.py)


def budget_note_shown(reason: str, limits: Limits) -> bool:
    """Whether a file cut short by its `reason` budget gets the NC001 that says so: always, except where
    `NAMEDCHECK_QUIET_DEFAULT_BUDGETS` is set (the test suite) and that budget is the default one (on a slow
    machine a test's file may pass 10 s; tests that check the note set a small budget explicitly)."""
    if not os.environ.get(QUIET_DEFAULT_BUDGETS):
        return True
    default = Limits()
    if reason == "time":
        return limits.time_budget != default.time_budget
    return limits.memory_budget != default.memory_budget


def stopped_note(reason: str, limits: Limits) -> tuple[str, str]:
    """The message and hint of the NC001 a file cut short by its budget gets (what it found before is kept)."""
    if reason == "memory":
        spent, setting = f"its analysis took more than {limits.memory_budget} MB (memory-budget)", "memory-budget"
    else:
        spent, setting = f"its analysis ran past {limits.time_budget:g} s (time-budget)", "time-budget"
    return (
        f"File is only partly checked: {spent}; what was found before is reported, the rest of the file is unchecked",
        f"raise {setting} in [tool.namedcheck] of pyproject.toml, or split the file",
    )


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_pages() -> int:
    """The process's resident set size in pages (0 where /proc is not available)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def resident_mb() -> float:
    """The process's resident set size in MB (0 where /proc is not available)."""
    return resident_pages() * _PAGE / 2**20


_LAST_ACCEPTED: list[str] = []  # the last source CPython's parser accepted within limits (`cpython_accepted`)
_LAST_TREE: list[ast.Module] = []  # its `ast` tree


def accepted_tree(source: str) -> ast.Module | None:
    """The `ast` tree of `source` when it is the text the last `python_rejects` call accepted (no second parse)."""
    return _LAST_TREE[0] if _LAST_TREE and cpython_accepted(source) else None


def cpython_accepted(source: str) -> bool:
    """Whether `source` is the text the last `python_rejects` call saw CPython's parser accept (valid Python
    of the running version, within the nesting limit): libcst may then skip validating its nodes."""
    return bool(_LAST_ACCEPTED) and _LAST_ACCEPTED[0] is source


def python_rejects(source: str) -> tuple[int, int, str] | None:
    """(line, column, message) when `source` nests too deeply for CPython's parser or for libcst, or holds a
    NUL byte. Other syntax errors are left to libcst (which reads syntax newer than the running Python)."""
    _LAST_ACCEPTED.clear()
    _LAST_TREE.clear()
    nul = source.find("\0")
    if nul >= 0:
        line = source.count("\n", 0, nul) + 1
        return line, nul - source.rfind("\n", 0, nul), "File does not parse: it contains a NUL byte (\\x00)"
    try:
        with warnings.catch_warnings():  # invalid escape sequences and the like: not ours to report
            warnings.simplefilter("ignore")
            tree = cast(ast.Module, compile(source, "<file>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True))
    except SyntaxError as e:
        if not _TOO_DEEP.search(e.msg or ""):
            return None  # libcst decides (and says where): it also knows syntax newer than this Python's
        line = e.lineno or 1
        return line, max(1, e.offset or 1), f"File does not parse: {e.msg}"
    except (RecursionError, MemoryError):
        line = _longest_line(source)
        return line, 1, "File does not parse: it nests too deeply for Python's own parser (the longest line)"
    except ValueError as e:  # e.g. NUL bytes on older Pythons
        return 1, 1, f"File does not parse: {e}"
    deep = _too_deep(tree)
    if deep is not None:
        return (
            deep,
            1,
            (
                f"File is not checked: an expression nests more than {MAX_NESTING} levels deep "
                f"(namedcheck's limit; real code stays far below it)"
            ),
        )
    _LAST_ACCEPTED.append(source)
    _LAST_TREE.append(tree)
    return None


def _longest_line(source: str) -> int:
    lengths = [len(line) for line in source.split("\n")]
    return lengths.index(max(lengths)) + 1


def _too_deep(tree: ast.AST) -> int | None:
    """The line of the first node nested more than MAX_NESTING expression levels deep, if any. Each level
    takes at least one character, so a one-line expression shorter than the levels left is not entered."""
    todo: list[tuple[ast.AST, int]] = [(tree, 0)]
    while todo:
        node, depth = todo.pop()
        if isinstance(node, ast.stmt):
            depth = 0  # nested blocks are bounded by Python's own indentation limit
        elif isinstance(node, ast.expr):
            depth += 1
            if depth > MAX_NESTING:
                return node.lineno
            if node.lineno == node.end_lineno and (node.end_col_offset or 0) - node.col_offset < MAX_NESTING - depth:
                continue
        todo.extend((child, depth) for child in ast.iter_child_nodes(node))
    return None
