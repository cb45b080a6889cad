"""`[tool.namedcheck]` in pyproject.toml: select, ignore, exclude, stub-paths."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path


class ConfigError(Exception):
    """A configuration file that cannot be used (exit 2)."""


@dataclass
class Config:
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    stub_paths: list[str] = field(default_factory=list)
    root: Path | None = None  # the folder holding the pyproject.toml


def find_pyproject(start: Path) -> Path | None:
    start = start.resolve()
    for d in [start, *start.parents]:
        p = d / "pyproject.toml"
        if p.is_file():
            return p
    return None


def load_config(start: Path) -> Config:
    path = find_pyproject(start)
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read [tool.namedcheck]: {e}") from None
    section = data.get("tool", {}).get("namedcheck", {})
    cfg = Config(root=path.parent)
    known = {"select", "ignore", "exclude", "stub-paths"}
    for key, value in section.items():
        if key not in known:
            raise ConfigError(f"{path}: unknown key {key!r} in [tool.namedcheck]; expected one of {sorted(known)}")
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: [tool.namedcheck] {key} must be a list of strings; found {value!r}")
    cfg.select = section.get("select", [])
    cfg.ignore = section.get("ignore", [])
    cfg.exclude = section.get("exclude", [])
    cfg.stub_paths = [str((path.parent / p).resolve()) for p in section.get("stub-paths", [])]
    return cfg
