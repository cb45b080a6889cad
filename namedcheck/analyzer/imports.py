"""Where a project's modules are: dotted module names <-> files under the project's roots (the directory of
the nearest pyproject.toml and its `src/`, the parent of the outermost package holding a checked file, the
directory of a checked script), and the absolute name of a relative import. Reads only the file system."""

from __future__ import annotations

import os
import re
from pathlib import Path


class ProjectIndex:
    """Dotted module names <-> files under the project's roots."""

    def __init__(self, roots: list[Path]) -> None:
        self.roots: list[Path] = []
        for r in roots:
            r = r.resolve()
            if r not in self.roots and r.is_dir():
                self.roots.append(r)
        self._files: dict[str, Path | None] = {}
        self._tops: dict[str, bool] = {}
        self._dirs: dict[str, bool] = {}  # namespace packages
        self._names: dict[str, tuple[str, bool] | None] = {}

    @classmethod
    def for_paths(cls, paths: list[str | Path]) -> ProjectIndex:
        roots: list[Path] = []
        for p in paths:
            p = Path(p).resolve()
            d = p if p.is_dir() else p.parent
            pyproject = _nearest_pyproject(d)
            if pyproject is not None:
                roots.append(pyproject.parent)
                if (pyproject.parent / "src").is_dir():
                    roots.append(pyproject.parent / "src")
            top = d
            while (top / "__init__.py").is_file() and top.parent != top:
                top = top.parent
            roots.append(top)  # the parent of the outermost package (or the script's own directory)
            if p.is_dir() and not (p / "__init__.py").is_file():
                roots.append(p)  # a project directory given itself: its packages are top-level
        return cls(roots)

    def has_top(self, name: str) -> bool:
        """Whether a top-level name is one of the project's modules or packages (cheap, memoised)."""
        top = name.split(".", 1)[0]
        hit = self._tops.get(top)
        if hit is None:
            hit = any((r / f"{top}.py").is_file() or (r / top).is_dir() for r in self.roots) and not _shadows_library(
                top, self.roots
            )
            self._tops[top] = hit
        return hit

    def module_file(self, name: str) -> Path | None:
        """The file of a module (a package's `__init__.py`); None when it is not the project's or is a
        namespace package (a directory without `__init__.py`)."""
        if name in self._files:
            return self._files[name]
        found: Path | None = None
        if self.has_top(name):
            rel = Path(*name.split("."))
            for r in self.roots:
                if _is_file((r / rel).with_suffix(".py")):
                    found = (r / rel).with_suffix(".py")
                    break
                if _is_file(r / rel / "__init__.py"):
                    found = r / rel / "__init__.py"
                    break
        self._files[name] = found
        return found

    def is_module(self, name: str) -> bool:
        """A module, package or namespace package of the project (memoised, as `module_file` is)."""
        if not self.has_top(name):
            return False
        if self.module_file(name) is not None:
            return True
        hit = self._dirs.get(name)
        if hit is None:
            rel = Path(*name.split("."))
            hit = self._dirs[name] = any(_is_dir(r / rel) for r in self.roots)
        return hit

    def module_name(self, path: str | Path) -> tuple[str, bool] | None:
        """(dotted name, is a package) of a file under one of the roots; the deepest root wins."""
        key = os.path.abspath(path)
        if key in self._names:
            return self._names[key]
        p = Path(path).resolve()
        best: tuple[str, bool] | None = None
        best_len = -1
        for r in self.roots:
            try:
                rel = p.relative_to(r)
            except ValueError:
                continue
            if not rel.name:  # the root itself (a directory named as a file): no module
                continue
            parts = list(rel.with_suffix("").parts)
            if not parts or not all(x.isidentifier() for x in parts):
                continue
            is_pkg = parts[-1] == "__init__"
            if is_pkg:
                parts = parts[:-1]
            if parts and len(r.parts) > best_len:
                best, best_len = (".".join(parts), is_pkg), len(r.parts)
        if len(self._names) > 100_000:
            self._names.clear()
        self._names[key] = best
        return best


def stamp(path: Path) -> tuple[int, int]:
    """(mtime in ns, size) of a file; (-1, -1) when it cannot be stat'ed."""
    try:
        st = path.stat()
    except OSError:
        return (-1, -1)
    return (st.st_mtime_ns, st.st_size)


def _nearest_pyproject(d: Path) -> Path | None:
    for cand in [d, *d.parents]:
        if (cand / "pyproject.toml").is_file():
            return cand / "pyproject.toml"
    return None


_LIBRARIES = {
    "jax",
    "jaxlib",
    "numpy",
    "flax",
    "equinox",
    "optax",
    "haiku",
    "namedcheck",
    "functools",
    "typing",
    "dataclasses",
    "math",
    "os",
    "sys",
    "collections",
    "itertools",
    "abc",
    "enum",
}


# libraries the checker knows by models (analyzer/optax.py, haiku.py, the equinox layers) whose own source is analysed
# as the project's code when the checked tree is that library: its tests then reach into its functions
_OWN_SOURCE = {"equinox", "optax", "haiku"}
_PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


def _shadows_library(top: str, roots: list[Path]) -> bool:
    """A project directory named like a library it uses is not taken for it (`jax` under a tests dir), unless it is
    that library's own source: a package of one of `_OWN_SOURCE` at the root of a project (beside its
    pyproject.toml or setup.py)."""
    if top not in _LIBRARIES:
        return False
    if top in _OWN_SOURCE:
        return not any(
            _is_file(r / top / "__init__.py") and any(_is_file(r / m) for m in _PROJECT_FILES) for r in roots
        )
    return True


def absolute_import(module: str | None, level: int, current: str, is_package: bool) -> str | None:
    """The absolute name of `from <level dots><module> import ...` written in module `current`."""
    if level == 0:
        return module
    base = current.split(".") if is_package else current.split(".")[:-1]
    if level - 1 > len(base) or (level - 1 == len(base) and not module):
        return None
    base = base[: len(base) - (level - 1)]
    parts = [*base, *(module.split(".") if module else [])]
    return ".".join(parts) if parts else None


CONFIG_FILE_FLAG = "DEFINE_config_file"  # ml_collections' config_flags: the config file is a command-line flag


def config_file(script: Path, default: str | None) -> Path | None:
    """The config file an `ml_collections` config flag loads when the command line names none: its default
    path (`'configs/default.py'`, `'configs/default.py:arg'`), relative to the script's directory as the
    project's documented command runs it; with no default, the `configs/default.py` beside the script (the
    convention of flax's examples). None when there is no such file."""
    base = script.parent
    candidate = base / default.split(":", 1)[0] if default else base / "configs" / "default.py"
    return candidate if candidate.suffix == ".py" and candidate.is_file() else None


def config_file_defaults(text: str) -> list[str | None]:
    """The defaults of the config flags a script's text defines (None: no default), read with a regular
    expression: `config_flags.DEFINE_config_file('config', 'configs/default.py', ...)`."""
    return [m["path"] for m in _CONFIG_FLAG.finditer(text)]


_CONFIG_FLAG = re.compile(
    CONFIG_FILE_FLAG
    + r"""\(\s*(?:name\s*=\s*)?['"][^'"]*['"]\s*(?:,\s*(?:default\s*=\s*)?(?:['"](?P<path>[^'"]*)['"]|None))?"""
)

__all__ = ["CONFIG_FILE_FLAG", "ProjectIndex", "absolute_import", "config_file", "config_file_defaults", "stamp"]


def _is_file(p: Path) -> bool:
    """`p.is_file()`, False for a path the system refuses (a name too long: `import a.a.a...` of 20,000 parts)."""
    try:
        return p.is_file()
    except OSError:
        return False


def _is_dir(p: Path) -> bool:
    try:
        return p.is_dir()
    except OSError:
        return False


MAX_CONFTEST_LEVELS = 6  # folders from a test module's up searched for `conftest.py`


def conftest_files(path: Path | str) -> list[Path]:
    """The `conftest.py` files pytest loads before the module at `path`, nearest first: those in its folder and
    the folders above it, up to its project's root (a folder with `pyproject.toml` or `setup.py`)."""
    out: list[Path] = []
    try:
        here = Path(str(path)).resolve().parent
    except (OSError, RuntimeError, ValueError):
        return out
    for _ in range(MAX_CONFTEST_LEVELS):
        conftest = here / "conftest.py"
        if conftest.is_file():
            out.append(conftest)
        if here.parent == here or (here / "pyproject.toml").is_file() or (here / "setup.py").is_file():
            break
        here = here.parent
    return out
