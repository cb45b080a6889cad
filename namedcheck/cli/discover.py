"""Which files a run checks: .py files under the given paths, minus excluded ones."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Any

from namedcheck.diagnostic import Diagnostic

SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache",
             ".pytest_cache", ".ruff_cache", "node_modules", "build", "dist", ".eggs"}


def _excluded(path: Path, patterns: list[str], root: Path | None) -> bool:
    cands = {path.as_posix()}
    if root is not None:
        try:
            cands.add(path.resolve().relative_to(root).as_posix())
        except ValueError:
            pass
    for c in cands:
        parts = c.split("/")
        for pat in patterns:
            pat = pat.rstrip("/")
            if fnmatch.fnmatch(c, pat) or fnmatch.fnmatch(c, pat + "/*") or any(
                    fnmatch.fnmatch("/".join(parts[:i]), pat) for i in range(1, len(parts))):
                return True
    return False


def discover(paths: list[str], exclude: list[str], root: Path | None) -> tuple[list[tuple[str, Path]], list[str]]:
    """(display path, file) pairs in sorted order, and paths that do not exist."""
    files: list[tuple[str, Path]] = []
    missing: list[str] = []
    for arg in paths:
        p = Path(arg)
        if p.is_file():
            files.append((arg, p))  # named explicitly: checked even if it matches an exclude
        elif p.is_dir():
            # A directory named explicitly is checked even if it matches an exclude pattern.
            patterns = [] if _excluded(p, exclude, root) else exclude
            for dirpath, dirnames, filenames in os.walk(p):
                d = Path(dirpath)
                dirnames[:] = sorted(n for n in dirnames if n not in SKIP_DIRS and not n.startswith(".")
                                     and not _excluded(d / n, patterns, root))
                for name in sorted(filenames):
                    if name.endswith(".py") or name.endswith(".pyi"):
                        f = d / name
                        if not _excluded(f, patterns, root):
                            files.append((os.path.join(arg, os.path.relpath(f, p)), f))
        else:
            missing.append(arg)
    seen: set[Path] = set()
    out = []
    for disp, f in files:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            out.append((disp, f))
    return out, missing


def file_project(path: Path, stub_paths: tuple[str, ...], paths: tuple[str, ...]) -> Any:
    """The project a checked file belongs to (analyzer/project.py), from the paths the run was given and
    the file itself; one per process and set of roots, its modules loaded as calls need them."""
    from namedcheck.analyzer.check import project_for
    return project_for(path, stub_paths, [p for p in paths if p != "-"])


def checked_files_only(diags: list[Diagnostic], files: list[tuple[str, Path]]) -> list[Diagnostic]:
    """The run's diagnostics in the checked files only, each once, under the file's display path (a
    call may find a mistake inside another module of the project: reported there, if it is checked)."""
    shown: dict[str, str] = {}
    for disp, f in files:
        shown[disp] = disp
        shown[str(f.resolve())] = disp
    out: set[Diagnostic] = set()
    for d in diags:
        disp = shown.get(d.path)
        if disp is None:
            try:
                disp = shown.get(str(Path(d.path).resolve()))
            except OSError:
                disp = None
        if disp is not None:
            out.add(d if disp == d.path else _moved(d, disp))
    return sorted(out)


def _moved(d: Diagnostic, path: str) -> Diagnostic:
    from dataclasses import replace
    return replace(d, path=path)
