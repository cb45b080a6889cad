"""Check one file's source: parse, analyse, locate, suppress. Never raises."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager

import libcst as cst

from namedcheck.analyzer.module import ModuleAnalyzer
from namedcheck.analyzer.relevance import is_relevant
from namedcheck.diagnostic import Diagnostic
from namedcheck.engine.stubs import op_table


def check_source(source: str, path: str, stub_paths: tuple[str, ...] = (), force: bool = False) -> list[Diagnostic]:
    if not force and not is_relevant(source):
        return []
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as e:
        return [Diagnostic(path, e.raw_line, e.raw_column + 1, e.raw_line, e.raw_column + 1, "NC001",
                           f"File does not parse: {e.message}")]
    except Exception as e:  # libcst raises a few other errors for odd inputs (e.g. bad encodings)
        return [Diagnostic(path, 1, 1, 1, 1, "NC001", f"File does not parse: {e}")]
    try:
        with _deep_recursion():
            an = ModuleAnalyzer(module, op_table(stub_paths))
            an.run()
            return an.diagnostics(path, source.splitlines())
    except RecursionError:
        return [_internal(path, "the file nests too deeply for the analyzer (RecursionError)")]
    except Exception as e:
        tb = traceback.extract_tb(e.__traceback__)[-1]
        return [_internal(path, f"{type(e).__name__}: {e} (at {tb.filename.rsplit('/', 1)[-1]}:{tb.lineno})")]


@contextmanager
def _deep_recursion() -> Iterator[None]:
    """Long operator chains nest deeply; Python-to-Python calls do not grow the C stack on 3.11+."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def _internal(path: str, what: str) -> Diagnostic:
    return Diagnostic(path, 1, 1, 1, 1, "NC000",
                      f"Internal error while analysing this file: {what}; please report it at "
                      f"https://github.com/namedcheck/namedcheck/issues with the file")


def analyse_for_test(source: str, path: str = "case.py") -> tuple[list[Diagnostic], dict[int, object]]:
    """Diagnostics and the inferred value of each assignment, by line (for the test corpus)."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return check_source(source, path, force=True), {}
    with _deep_recursion():
        an = ModuleAnalyzer(module, op_table(), record=True)
        an.run()
        return an.diagnostics(path, source.splitlines()), an.revealed_by_line()


def analyse_for_plugin(source: str, path: str, stub_paths: tuple[str, ...] = ()) \
        -> tuple[list[Diagnostic], dict[tuple[int, int, int, int], object]]:
    """What the mypy plugin needs from one file: the diagnostics `check_source` gives, and the value
    of every array expression by span (see `ModuleAnalyzer.types_by_span`). Never raises."""
    if not is_relevant(source):
        return [], {}
    try:
        module = cst.parse_module(source)
    except Exception:
        return check_source(source, path, stub_paths), {}
    try:
        with _deep_recursion():
            an = ModuleAnalyzer(module, op_table(stub_paths), record_types=True)
            an.run()
            return an.diagnostics(path, source.splitlines()), an.types_by_span()
    except Exception:
        return check_source(source, path, stub_paths), {}
