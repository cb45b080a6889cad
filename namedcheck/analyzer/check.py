"""The analysis entry points of the Python API, each a `Session.check` (analyzer/session.py). Never raise."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from namedcheck.analyzer.budget import Limits
from namedcheck.analyzer.session import Session, deep_recursion, internal, source_lines
from namedcheck.diagnostic import Diagnostic


def check_source(
    source: str,
    path: str,
    stub_paths: tuple[str, ...] = (),
    force: bool = False,
    limits: Limits | None = None,
    project: Any = None,
    file: Path | None = None,
    devices: tuple[int, ...] = (),
) -> list[Diagnostic]:
    return check_source_bounded(source, path, stub_paths, force, limits, project, file, devices)[0]


def check_source_bounded(
    source: str,
    path: str,
    stub_paths: tuple[str, ...] = (),
    force: bool = False,
    limits: Limits | None = None,
    project: Any = None,
    file: Path | None = None,
    devices: tuple[int, ...] = (),
) -> tuple[list[Diagnostic], bool]:
    """The file's diagnostics, and whether its analysis finished within the budgets of `limits`. `project`
    (analyzer/project.py): the file's imports of the project's modules are followed; the result then also
    holds diagnostics its calls cause inside those modules (without one, the text is analysed alone: front
    ends use `Session`, which finds each file's project). `file`: where it lives. `devices`: the device counts
    to check under (`[tool.namedcheck] devices`)."""
    session = Session(stub_paths, limits, projects=project is not None, fixed=project, devices=devices)
    result = session.check(file or Path(path), source, path, force=force)
    return result.all, result.complete


def analyse_for_test(source: str, path: str = "case.py") -> tuple[list[Diagnostic], dict[int, object]]:
    """Diagnostics and the inferred value of each assignment, by line (for the test corpus)."""
    from namedcheck.analyzer.module import ModuleAnalyzer

    result = Session(projects=False).check(path, source, force=True, make=partial(ModuleAnalyzer, record=True))
    an = result.analyzer
    if an is None or result.failed:
        return result.diagnostics, {}
    with deep_recursion():
        return result.diagnostics, an.revealed_by_line()


def analyse_for_plugin(
    source: str, path: str, stub_paths: tuple[str, ...] = (), project: Any = None
) -> tuple[list[Diagnostic], dict[tuple[int, int, int, int], object]]:
    """What the mypy plugin needs from one file: its diagnostics, and the value of every array expression by
    span (see `ModuleAnalyzer.types_by_span`); the file's project is used as the CLI uses it."""
    own, _, types = analyse_target_for_plugin(source, path, stub_paths, project)
    return own, types


def analyse_target_for_plugin(
    source: str, path: str, stub_paths: tuple[str, ...] = (), project: Any = None, session: Session | None = None
) -> tuple[list[Diagnostic], list[Diagnostic], dict[tuple[int, int, int, int], object]]:
    """`analyse_for_plugin`, plus the diagnostics the file's calls cause inside other modules of its
    project (each located in its own file, as the CLI reports them)."""
    from namedcheck.analyzer.module import ModuleAnalyzer

    if session is None:
        session = Session(stub_paths, fixed=project)
    result = session.check(path, source, make=partial(ModuleAnalyzer, record_types=True))
    an = result.analyzer
    types = an.types_by_span() if an is not None and result.complete else {}
    return result.diagnostics, result.elsewhere, types


__all__ = [
    "check_source",
    "check_source_bounded",
    "analyse_for_test",
    "analyse_for_plugin",
    "analyse_target_for_plugin",
    "source_lines",
    "internal",
    "deep_recursion",
]
