"""Check one file's source: parse, analyse, locate, suppress. Never raises."""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import libcst as cst

from namedcheck.analyzer.budget import BudgetExceeded, Guard, Limits, cpython_accepted, python_rejects
from namedcheck.analyzer.module import ModuleAnalyzer
from namedcheck.analyzer.parsing import parse_module
from namedcheck.analyzer.project import project_for
from namedcheck.analyzer.relevance import is_relevant
from namedcheck.diagnostic import Diagnostic
from namedcheck.engine.errors import is_strict_rule_bug
from namedcheck.engine.stubs import op_table


def check_source(source: str, path: str, stub_paths: tuple[str, ...] = (), force: bool = False,
                 limits: Limits | None = None, project: Any = None, file: Path | None = None) -> list[Diagnostic]:
    return check_source_bounded(source, path, stub_paths, force, limits, project, file)[0]


def check_source_bounded(source: str, path: str, stub_paths: tuple[str, ...] = (), force: bool = False,
                         limits: Limits | None = None, project: Any = None,
                         file: Path | None = None) -> tuple[list[Diagnostic], bool]:
    """The file's diagnostics, and whether its analysis finished within the budgets of `limits` (a file
    cut short reports what was found before the bound; the rest is Unknown, hence silent).
    `project` (analyzer/project.py): the file's imports of the project's modules are followed; the
    result then also holds diagnostics its calls cause inside those modules. `file`: where it lives."""
    if not force and not is_relevant(source):
        return [], True
    # a project module parsed already as another file's dependency passed this check then
    rejected = None if project is not None and project.is_parsed(file or Path(path), source) \
        else python_rejects(source)
    if rejected is not None:
        line, column, message = rejected
        return [Diagnostic(path, line, column, line, column, "NC001", message)], True
    try:
        module = project.parse(file or Path(path), source, checked=True) if project is not None \
            else parse_module(source, trusted=cpython_accepted(source))
    except cst.ParserSyntaxError as e:
        return [Diagnostic(path, e.raw_line, e.raw_column + 1, e.raw_line, e.raw_column + 1, "NC001",
                           f"File does not parse: {e.message}")], True
    except Exception as e:  # libcst raises a few other errors for odd inputs (e.g. bad encodings)
        return [Diagnostic(path, 1, 1, 1, 1, "NC001", f"File does not parse: {e}")], True
    an: ModuleAnalyzer | None = None
    try:
        with _deep_recursion():
            an = _analyzer(module, stub_paths, project, file or Path(path))
            an.source = source
            an.guard = Guard(limits or Limits())
            if project is not None:
                project.guard = an.guard  # the project's modules analysed for this file share its budget
            an.run()
            found = an.diagnostics(path, source_lines(source))
            if project is not None:
                found = sorted(set(found) | set(project.dependency_diagnostics()))
            return found, True
    except (BudgetExceeded, MemoryError):
        return (_found_before_budget(an, path, source) if an is not None else []), False
    except RecursionError:
        return [_internal(path, "the file nests too deeply for the analyzer (RecursionError)")], True
    except Exception as e:
        if is_strict_rule_bug(e):
            raise
        tb = traceback.extract_tb(e.__traceback__)[-1]
        return [_internal(path, f"{type(e).__name__}: {e} (at {tb.filename.rsplit('/', 1)[-1]}:{tb.lineno})")], True


def _found_before_budget(an: ModuleAnalyzer, path: str, source: str) -> list[Diagnostic]:
    """What a file cut short by its budget had proven (an unbound axis name waits for the whole module:
    dropped)."""
    an.guard = None
    an.unbound_names = []
    try:
        return an.diagnostics(path, source_lines(source))
    except (MemoryError, RecursionError):
        return []


def source_lines(source: str) -> list[str]:
    """Lines as Python's tokenizer counts them: only \\n, \\r\\n and \\r end a line (`str.splitlines` also
    splits at form feeds, \\x0b, \\x1c-\\x1e, \\x85, U+2028 and U+2029)."""
    return _LINE_BREAK.split(source.removesuffix("\n").removesuffix("\r")) if source else []


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _analyzer(module: cst.Module, stub_paths: tuple[str, ...], project: Any, file: Path,
              **kw: Any) -> ModuleAnalyzer:
    """The analyzer of a checked file, placed in its project when there is one."""
    if project is None:
        return ModuleAnalyzer(module, op_table(stub_paths), **kw)
    project.begin_target()
    named = project.index.module_name(file)
    name, is_package = named if named is not None else (None, False)
    return ModuleAnalyzer(module, op_table(stub_paths), project=project, modname=name, is_package=is_package, **kw)


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
    if python_rejects(source) is not None:
        return check_source(source, path, force=True), {}
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return check_source(source, path, force=True), {}
    with _deep_recursion():
        an = ModuleAnalyzer(module, op_table(), record=True)
        an.run()
        return an.diagnostics(path, source_lines(source)), an.revealed_by_line()


def analyse_for_plugin(source: str, path: str, stub_paths: tuple[str, ...] = (), project: Any = None) \
        -> tuple[list[Diagnostic], dict[tuple[int, int, int, int], object]]:
    """What the mypy plugin needs from one file: the diagnostics `check_source` gives, and the value
    of every array expression by span (see `ModuleAnalyzer.types_by_span`). Never raises.
    The file's project (`project_for(path)` unless given) is used as the CLI uses it; diagnostics
    inside other modules are left out (see `analyse_target_for_plugin`)."""
    own, _, types = analyse_target_for_plugin(source, path, stub_paths, project)
    return own, types


def analyse_target_for_plugin(source: str, path: str, stub_paths: tuple[str, ...] = (), project: Any = None) \
        -> tuple[list[Diagnostic], list[Diagnostic], dict[tuple[int, int, int, int], object]]:
    """`analyse_for_plugin`, plus the diagnostics the file's calls cause inside other modules of its
    project (each located in its own file, as the CLI reports them). Never raises."""
    if not is_relevant(source):
        return [], [], {}
    if python_rejects(source) is not None:
        return check_source(source, path, stub_paths), [], {}
    trusted = cpython_accepted(source)
    if project is None:
        project = project_for(path, stub_paths)
    try:
        module = parse_module(source, trusted=trusted)
    except Exception:
        return check_source(source, path, stub_paths), [], {}
    an = _analyzer(module, stub_paths, project, Path(path), record_types=True)
    an.guard = Guard(Limits())
    if project is not None:
        project.guard = an.guard
    try:
        with _deep_recursion():
            an.run()
            own = an.diagnostics(path, source_lines(source))
            others = project.dependency_diagnostics() if project is not None else []
            return own, others, an.types_by_span()
    except (BudgetExceeded, MemoryError):
        return _found_before_budget(an, path, source), [], {}
    except Exception as e:
        if is_strict_rule_bug(e):
            raise
        return check_source(source, path, stub_paths), [], {}
