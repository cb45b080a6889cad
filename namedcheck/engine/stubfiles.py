"""Where the op signature stubs live (no rule imports: the result cache fingerprints them cheaply)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


class StubError(Exception):
    """A stub file that does not follow the format (a bug in the stubs, reported with its place)."""


def builtin_stub_dir() -> Path:
    """The stubs shipped with namedcheck: the repository's `stubs/` or the installed copy."""
    here = Path(__file__).resolve().parent
    for cand in (here.parent.parent / "stubs", here.parent / "stubs"):
        if cand.is_dir():
            return cand
    raise StubError(f"namedcheck's stubs directory is missing (looked beside {here.parent})")


def stub_files(extra_dirs: Iterable[str] = ()) -> list[Path]:
    return [f for d in (builtin_stub_dir(), *map(Path, extra_dirs)) for f in sorted(Path(d).glob("*.pyi"))]
