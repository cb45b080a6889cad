"""Which files a run checks: .py, .pyi and .ipynb files under the given paths, minus excluded ones and
(by default, inside a git work tree) those its .gitignore files leave out."""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from namedcheck.diagnostic import Diagnostic, Related

if TYPE_CHECKING:
    from namedcheck.cli.config import Glob

SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "node_modules",
    "build",
    "dist",
    ".eggs",
}
_GLOB = re.compile(r"[*?\[]")


def skipped_dir(name: str) -> bool:
    """A directory a run's walk never enters: hidden, virtual environments, caches, build output."""
    return name in SKIP_DIRS or name.startswith(".")


class Excludes:
    """Exclude patterns, indexed by their first path component so that a path is matched only against the
    patterns that can match it (100,000 patterns cost a dictionary lookup per path, not 100,000 matches)."""

    def __init__(self, patterns: list[str]) -> None:
        self.by_first: dict[str, list[str]] = {}
        self.wild: list[str] = []  # patterns whose first component is itself a glob
        self.compiled: dict[str, re.Pattern[str]] = {}
        for pat in patterns:
            pat = pat.rstrip("/")
            first = pat.split("/", 1)[0]
            if _GLOB.search(first):
                self.wild.append(pat)
            else:
                self.by_first.setdefault(first, []).append(pat)

    def __bool__(self) -> bool:
        return bool(self.by_first or self.wild)

    def _matches(self, candidate: str, pat: str) -> bool:
        if not _GLOB.search(pat):
            return candidate == pat
        rx = self.compiled.get(pat)
        if rx is None:
            rx = self.compiled[pat] = re.compile(fnmatch.translate(pat))
        return rx.match(candidate) is not None

    def match(self, candidate: str) -> bool:
        """Whether `candidate` (a posix path) or one of its leading parts matches a pattern."""
        parts = candidate.split("/")
        pats = self.by_first.get(parts[0], []) + self.wild
        if not pats:
            return False
        prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
        return any(self._matches(c, pat) for pat in pats for c in prefixes)


def _excluded(path: Path, patterns: Excludes, root: Path | None) -> bool:
    if not patterns:
        return False
    cands = {path.as_posix()}
    if root is not None:
        try:
            cands.add(path.resolve().relative_to(root).as_posix())
        except (ValueError, OSError, RuntimeError):
            pass
    return any(patterns.match(c) for c in cands)


class GitIgnore:
    """One .gitignore file's rules, relative to its folder (git's semantics: `#` comments, `!` re-includes,
    a trailing `/` for folders only, a pattern with an inner or leading `/` anchored to the folder, else
    matched against the name at any depth; `*`, `?`, `[...]`, `**`). The last rule that matches decides."""

    def __init__(self, base: Path, text: str) -> None:
        from namedcheck.cli.config import Glob

        self.base = base
        self.rules: list[tuple[Glob, bool, bool, bool]] = []  # (glob, negated, dirs only, anchored)
        for raw in text.splitlines():
            line = raw.rstrip()
            if raw.endswith("\\ "):  # an escaped trailing space stays
                line = raw[:-2] + " "
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            line = line[1:] if negated else line
            if line.startswith(("\\#", "\\!")):
                line = line[1:]
            dirs_only = line.endswith("/")
            line = line.rstrip("/")
            if not line:
                continue
            anchored = "/" in line
            self.rules.append((Glob(line.lstrip("/")), negated, dirs_only, anchored))

    def verdict(self, path: Path, is_dir: bool) -> bool | None:
        """True: ignored, False: re-included, None: no rule of this file matches."""
        try:
            rel = path.relative_to(self.base).as_posix()
        except ValueError:
            return None
        name = rel.rsplit("/", 1)[-1]
        out = None
        for rx, negated, dirs_only, anchored in self.rules:
            if dirs_only and not is_dir:
                continue
            if rx.match(rel if anchored else name):
                out = not negated
        return out


def _gitignore_at(folder: Path) -> GitIgnore | None:
    from namedcheck.analyzer.sources import read_text

    f = folder / ".gitignore"
    try:
        if not f.is_file():
            return None
        return GitIgnore(folder.resolve(), read_text(f, 4 * 1024 * 1024))  # the guarded reader
    except (OSError, UnicodeDecodeError, ValueError, RuntimeError):
        return None


def _git_root(folder: Path) -> Path | None:
    """The work tree's top folder (the nearest one holding `.git`), None outside a git work tree."""
    try:
        folder = folder.resolve()
    except (OSError, RuntimeError):
        return None
    for d in [folder, *folder.parents]:
        if (d / ".git").exists():
            return d
    return None


def _ignore_stack(folder: Path) -> list[GitIgnore] | None:
    """The .gitignore files that apply above `folder` (from the work tree's top down, `.git/info/exclude`
    first), or None when `folder` is not in a git work tree (as ruff, .gitignore counts in a repository)."""
    top = _git_root(folder)
    if top is None:
        return None
    from namedcheck.analyzer.sources import read_text

    stack: list[GitIgnore] = []
    try:
        info = top / ".git" / "info" / "exclude"
        if info.is_file():
            stack.append(GitIgnore(top, read_text(info, 4 * 1024 * 1024)))
    except (OSError, UnicodeDecodeError, ValueError):
        pass
    here = folder.resolve()
    chain = [here, *here.parents]
    for d in reversed(chain[1 : chain.index(top) + 1] if top in chain else []):
        g = _gitignore_at(d)
        if g is not None:
            stack.append(g)
    return stack


def git_ignored(path: Path, is_dir: bool, stack: list[GitIgnore]) -> bool:
    """Whether the .gitignore files of `stack` leave `path` (resolved) out: the deepest file with a
    matching rule decides."""
    for g in reversed(stack):
        v = g.verdict(path, is_dir)
        if v is not None:
            return v
    return False


def gitignored(path: Path) -> bool:
    """Whether the .gitignore files of its git work tree leave `path` (a file) out, or a folder above it."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return False
    top = _git_root(real.parent)
    if top is None:
        return False
    stack = _ignore_stack(top) or []
    folder = top
    for part in real.relative_to(top).parts[:-1]:
        own = _gitignore_at(folder)
        stack = [*stack, own] if own is not None else stack
        folder = folder / part
        if git_ignored(folder, True, stack):
            return True
    own = _gitignore_at(folder)
    return git_ignored(real, False, [*stack, own] if own is not None else stack)


def discover(
    paths: list[str],
    exclude: list[str],
    root: Path | None,
    unreadable: list[tuple[str, str]] | None = None,
    gitignore: bool = True,
) -> tuple[list[tuple[str, Path]], list[str]]:
    """(display path, file) pairs in sorted order, and paths that do not exist. Directories that cannot be
    listed are appended to `unreadable` as (display path, reason). `gitignore`: a walk leaves out what
    the .gitignore files of its git work tree leave out (a file named explicitly is checked anyway)."""
    files: list[tuple[str, Path]] = []
    missing: list[str] = []
    excludes = Excludes(exclude)
    for arg in paths:
        p = Path(arg)
        if p.is_dir():
            # A directory named explicitly is checked even if it matches an exclude pattern.
            patterns = Excludes([]) if _excluded(p, excludes, root) else excludes
            stacks: dict[str, list[GitIgnore] | None] = {}
            if gitignore:
                stacks[str(p)] = _ignore_stack(p)

            def walk_error(e: OSError, arg: str = arg, p: Path = p) -> None:
                if unreadable is not None:
                    rel = os.path.relpath(e.filename, p) if e.filename else "."
                    unreadable.append((arg if rel == "." else os.path.join(arg, rel), e.strerror or str(e)))

            for dirpath, dirnames, filenames in os.walk(p, onerror=walk_error):
                d = Path(dirpath)
                stack = stacks.pop(dirpath, None)
                if stack is not None:
                    own = _gitignore_at(d)
                    stack = [*stack, own] if own is not None else stack
                    real = d.resolve()
                dirnames[:] = sorted(
                    n
                    for n in dirnames
                    if not skipped_dir(n)
                    and not _excluded(d / n, patterns, root)
                    and not (stack is not None and git_ignored(real / n, True, stack))
                )
                for n in dirnames:
                    stacks[os.path.join(dirpath, n)] = stack
                for name in sorted(filenames):
                    if name.endswith((".py", ".pyi", ".ipynb")):
                        f = d / name
                        if _excluded(f, patterns, root) or (
                            stack is not None and git_ignored(real / name, False, stack)
                        ):
                            continue
                        files.append((os.path.join(arg, os.path.relpath(f, p)), f))
        elif os.path.lexists(p):
            files.append((arg, p))  # named explicitly: checked even if excluded (and told if not a regular file)
        else:
            missing.append(arg)
    seen: set[Path] = set()
    out = []
    for disp, f in files:
        try:
            key = f.resolve()
        except (OSError, RuntimeError):  # a symlink loop: reported when it is read
            key = f.absolute()
        if key not in seen:
            seen.add(key)
            out.append((disp, f))
    return out, missing


def is_excluded(path: Path, exclude: list[str], root: Path | None) -> bool:
    """Whether a file a run did not name would be left out of a run over its tree: an exclude pattern, or a
    directory the walk skips (hidden, virtual environments, build output)."""
    try:
        rel = path.resolve().relative_to((root or Path.cwd()).resolve())
    except (ValueError, OSError, RuntimeError):
        rel = Path(path.name)
    if any(skipped_dir(part) for part in rel.parts[:-1]):
        return True
    return _excluded(path, Excludes(exclude), root)


def reported(diags: list[Diagnostic], files: list[tuple[str, Path]]) -> list[Diagnostic]:
    """What the checked files' analyses found, one per location and code (`merge_contexts`: the other
    contexts as notes): in the checked files under their display paths, and what their calls cause inside
    other modules of the project (as mypy reports errors in the modules a checked file imports), under the
    project's display path."""
    from namedcheck.diagnostic import merge_contexts

    shown = _shown(files)
    out: list[Diagnostic] = []
    for d in diags:
        disp = _display_of(d, shown)
        out.append(d if disp is None or disp == d.path else _moved(d, disp))
    return merge_contexts(out)


def located_in(diags: list[Diagnostic], files: list[tuple[str, Path]]) -> list[Diagnostic]:
    """The diagnostics located in the checked files (under their display paths): what other modules' calls
    cause there; and those elsewhere with a cause in a checked file (a related location: a config file's
    setting, an argument), as they are: what a change of the checked file causes elsewhere."""
    shown = _shown(files)
    out: list[Diagnostic] = []
    for d in diags:
        disp = _display_of(d, shown)
        if disp is not None:
            out.append(d if disp == d.path else _moved(d, disp))
        elif any(_display_of(r, shown) is not None for r in d.related):
            out.append(d)
    return out


def _shown(files: list[tuple[str, Path]]) -> dict[str, str]:
    shown: dict[str, str] = {}
    for disp, f in files:
        shown[disp] = disp
        try:
            shown[str(f.resolve())] = disp
        except (OSError, RuntimeError):  # a symlink loop: reported as unreadable where it is read
            pass
    return shown


def _display_of(d: Diagnostic | Related, shown: dict[str, str]) -> str | None:
    disp = shown.get(d.path)
    if disp is None:
        try:
            disp = shown.get(str(Path(d.path).resolve()))
        except (OSError, RuntimeError):
            disp = None
    return disp


def _moved(d: Diagnostic, path: str) -> Diagnostic:
    from dataclasses import replace

    return replace(d, path=path)
