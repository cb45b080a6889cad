"""`[tool.namedcheck]` in pyproject.toml: select, ignore, exclude, stub-paths, devices (the run's device
count, or a list of counts each checked), and the resource guard's time-budget, memory-budget and
max-file-size."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from namedcheck.analyzer.budget import Limits
from namedcheck.analyzer.sources import read_text


class ConfigError(Exception):
    """A configuration file that cannot be used (exit 2)."""


@dataclass
class Config:
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    stub_paths: list[str] = field(default_factory=list)
    root: Path | None = None  # the folder holding the pyproject.toml
    limits: Limits = field(default_factory=Limits)
    devices: tuple[int, ...] = ()  # the device counts programs are checked under (empty: not stated)


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
        data = tomllib.loads(read_text(path, 16 * 1024 * 1024))  # the guarded reader
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read [tool.namedcheck]: {e}") from None
    section = _section(path, data)
    cfg = Config(root=path.parent)
    known = {"select", "ignore", "exclude", "stub-paths", "devices", *_NUMBERS}
    for key, value in section.items():
        if key not in known:
            raise ConfigError(f"{path}: unknown key {key!r} in [tool.namedcheck]; expected one of {sorted(known)}")
        if key in _NUMBERS or key == "devices":
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: [tool.namedcheck] {key} must be a list of strings; found {value!r}")
    cfg.select = section.get("select", [])
    cfg.ignore = section.get("ignore", [])
    for key in ("select", "ignore"):
        bad = unknown_codes(section.get(key, []))
        if bad:
            raise ConfigError(
                f"{path}: [tool.namedcheck] {key} names no known code: {', '.join(map(repr, bad))} "
                f"(expected codes or prefixes such as 'NC2' or 'NC502'; see `namedcheck explain`)"
            )
    cfg.exclude = section.get("exclude", [])
    if "devices" in section:
        cfg.devices = _devices(path, section["devices"])
    cfg.stub_paths = [str((path.parent / p).resolve()) for p in section.get("stub-paths", [])]
    numbers: dict[str, Any] = {_NUMBERS[k][0]: _number(path, k, v) for k, v in section.items() if k in _NUMBERS}
    cfg.limits = Limits(**numbers)  # each number of its field's kind (_NUMBERS)
    return cfg


# key -> (Limits field, type, smallest value, largest value)
_NUMBERS: dict[str, tuple[str, type, float, float]] = {
    "time-budget": ("time_budget", float, 0.1, 86_400),  # seconds per file: at most a day
    "memory-budget": ("memory_budget", int, 64, 1024 * 1024),  # MB per file: at most 1 TB
    "max-file-size": ("max_file_size", int, 1, 1024),  # MB: at most 1 GB
}


def _section(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table; found {tool!r}")
    section = tool.get("namedcheck", {})
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: [tool.namedcheck] must be a table; found {section!r}")
    return section


def _number(path: Path, key: str, value: Any) -> float | int:
    name, kind, least, most = _NUMBERS[key]
    ok = isinstance(value, int | float) and not isinstance(value, bool) and (kind is float or isinstance(value, int))
    # nan compares false with everything and inf is no budget: a number must be finite and in range
    if not ok or not least <= value <= most or not math.isfinite(value):
        unit = "seconds" if kind is float else "MB"
        raise ConfigError(
            f"{path}: [tool.namedcheck] {key} must be {'a finite number' if kind is float else 'an integer'} "
            f"of {unit} from {least:g} to {most:g}; found {value!r}"
        )
    return kind(value)


def _devices(path: Path, value: Any) -> tuple[int, ...]:
    """`devices = 8` or `devices = [8, 256]`: positive ints, each once, in the order written."""
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in items):
        raise ConfigError(
            f"{path}: [tool.namedcheck] devices must be a device count (a positive integer) or a non-empty "
            f"list of them; found {value!r}"
        )
    return tuple(dict.fromkeys(items))


def unknown_codes(patterns: list[str]) -> list[str]:
    """The select / ignore entries that are no code and no prefix of one (`NC2` is a prefix, `zz` none)."""
    from namedcheck.engine.codes import CODES

    return [p for p in patterns if not p.strip() or not any(c.startswith(p.strip().upper()) for c in CODES)]


def stub_problem(cfg: Config) -> str | None:
    """A stub that cannot be used, said once before anything is checked (mypy stops at a stub it cannot
    parse too): never a hang on a FIFO, a pass on an endless file, or every file's NC000."""
    if not cfg.stub_paths:
        return None
    from namedcheck.engine.stubs import stub_problem as first_bad_stub

    problem = first_bad_stub(tuple(cfg.stub_paths))
    if problem is None:
        return None
    where = f" (stub-paths in {cfg.root / 'pyproject.toml'})" if cfg.root is not None else ""
    return f"a stub file cannot be used: {problem}{where}; hint: fix the stub, or take it out of stub-paths"
