"""`[tool.namedcheck]` in pyproject.toml: select, ignore, exclude, extend-exclude, per-file-ignores,
respect-gitignore, stub-paths, devices (the run's device count, or a list of counts each checked), and the
resource guard's time-budget, memory-budget and max-file-size."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from namedcheck.analyzer.budget import Limits
from namedcheck.analyzer.sources import read_text
from namedcheck.diagnostic import Diagnostic


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
    # per-file-ignores: (glob, its matcher, codes or prefixes) in the order written
    per_file_ignores: list[tuple[str, Glob, list[str]]] = field(default_factory=list)
    respect_gitignore: bool = True  # a run's walk leaves out what .gitignore files leave out

    def per_file(self, diags: list[Diagnostic]) -> list[Diagnostic]:
        """The diagnostics `per-file-ignores` keeps: a file matching a glob drops the codes it names (ruff's:
        the glob is matched against the path from the project's folder, and one without `/` against the
        file's name too); NC000 and NC001 are kept, as `select` keeps them."""
        if not self.per_file_ignores:
            return diags
        from namedcheck.engine.codes import NC000, NC001, matches

        cache: dict[str, list[str]] = {}
        out = []
        for d in diags:
            codes = cache.get(d.path)
            if codes is None:
                codes = cache[d.path] = self._ignored_codes(d.path)
            if codes and d.code not in (NC000, NC001) and matches(d.code, codes):
                continue
            out.append(d)
        return out

    def _ignored_codes(self, path: str) -> list[str]:
        rel = path
        try:
            if self.root is not None:
                rel = Path(path).resolve().relative_to(self.root.resolve()).as_posix()
        except (ValueError, OSError, RuntimeError):
            pass
        name = rel.rsplit("/", 1)[-1]
        out: list[str] = []
        for glob, rx, codes in self.per_file_ignores:
            negated = glob.startswith("!")
            hit = rx.match(rel) or ("/" not in glob.lstrip("!") and rx.match(name))
            if hit != negated:
                out.extend(codes)
        return out


def find_pyproject(start: Path) -> Path | None:
    start = start.resolve()
    for d in [start, *start.parents]:
        p = d / "pyproject.toml"
        if p.is_file():
            return p
    return None


MAX_CONFIG_NESTING = 64  # arrays and tables inside each other in pyproject.toml


def _nesting(value: object) -> int:
    """How deeply a parsed TOML document's arrays and tables nest (iterative: any depth)."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        v, depth = todo.pop()
        deepest = max(deepest, depth)
        if depth > MAX_CONFIG_NESTING:
            break
        if isinstance(v, dict):
            todo.extend((x, depth + 1) for x in v.values())
        elif isinstance(v, list):
            todo.extend((x, depth + 1) for x in v)
    return deepest


def load_config(start: Path) -> Config:
    path = find_pyproject(start)
    if path is None:
        return Config()
    try:
        data = tomllib.loads(read_text(path, 16 * 1024 * 1024))  # the guarded reader
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read [tool.namedcheck]: {e}") from None
    except RecursionError:  # tomllib recurses per nested array or inline table
        data = None
    if data is None or _nesting(data) > MAX_CONFIG_NESTING:  # (how deep tomllib gets depends on the process's
        # recursion limit: the same file is refused whatever it is)
        raise ConfigError(f"{path}: cannot read [tool.namedcheck]: arrays or tables nested too deeply") from None
    section = _section(path, data)
    cfg = Config(root=path.parent)
    known = {"select", "ignore", "exclude", "extend-exclude", "stub-paths", "devices", *_NUMBERS, *_OTHER}
    for key, value in section.items():
        if key not in known:
            raise ConfigError(f"{path}: unknown key {key!r} in [tool.namedcheck]; expected one of {sorted(known)}")
        if key in _NUMBERS or key in _OTHER or key == "devices":
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
    cfg.exclude = section.get("exclude", []) + section.get("extend-exclude", [])
    if "respect-gitignore" in section:
        if not isinstance(section["respect-gitignore"], bool):
            raise ConfigError(
                f"{path}: [tool.namedcheck] respect-gitignore must be true or false; found {section['respect-gitignore']!r}"
            )
        cfg.respect_gitignore = section["respect-gitignore"]
    cfg.per_file_ignores = _per_file_ignores(path, section.get("per-file-ignores", {}))
    if "devices" in section:
        cfg.devices = _devices(path, section["devices"])
    cfg.stub_paths = [str((path.parent / p).resolve()) for p in section.get("stub-paths", [])]
    numbers: dict[str, Any] = {_NUMBERS[k][0]: _number(path, k, v) for k, v in section.items() if k in _NUMBERS}
    cfg.limits = Limits(**numbers)  # each number of its field's kind (_NUMBERS)
    return cfg


_OTHER = ("per-file-ignores", "respect-gitignore")  # keys checked where they are read


def _per_file_ignores(path: Path, value: Any) -> list[tuple[str, Glob, list[str]]]:
    """`per-file-ignores = {"tests/*.py" = ["NC2"], "!src/**" = ["NC5"]}`: globs to codes or prefixes."""
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, list) and all(isinstance(c, str) for c in v) for k, v in value.items()
    ):
        raise ConfigError(
            f"{path}: [tool.namedcheck] per-file-ignores must be a table of globs to lists of codes, e.g. "
            f'{{"tests/*.py" = ["NC2"]}}; found {value!r}'
        )
    out = []
    for glob, codes in value.items():
        bad = unknown_codes(codes)
        if bad:
            raise ConfigError(
                f"{path}: [tool.namedcheck] per-file-ignores {glob!r} names no known code: {', '.join(map(repr, bad))}"
            )
        out.append((glob, Glob(glob.lstrip("!").lstrip("/")), [c.strip().upper() for c in codes]))
    return out


class Glob:
    """A path glob matched against posix paths without backtracking (a hostile pattern such as
    `*a*a*a*a*a*b` costs the product of the lengths, never more): `*` and `?` within one component, `[...]`
    a class (`[!...]` negated), a `**` component any number of components, `{a,b}` alternatives."""

    def __init__(self, glob: str) -> None:
        self.alternatives = [
            [_component_tokens(part) for part in alt.split("/")] for alt in _braces(glob)[:MAX_ALTERNATIVES]
        ]

    def match(self, path: str) -> bool:
        parts = path.split("/")
        return any(_match_parts(tokens, parts) for tokens in self.alternatives)


MAX_ALTERNATIVES = 64  # `{a,b}{c,d}...`: at most this many spelled-out patterns
_STAR, _ANY, _DEEP = ("*",), ("?",), ("**",)


def _braces(glob: str) -> list[str]:
    """`{a,b}` alternatives spelled out (the first group first, at most MAX_ALTERNATIVES)."""
    i = glob.find("{")
    j = glob.find("}", i + 1)
    if i < 0 or j < 0:
        return [glob]
    out: list[str] = []
    for alt in glob[i + 1 : j].split(","):
        out.extend(_braces(glob[:i] + alt + glob[j + 1 :]))
        if len(out) >= MAX_ALTERNATIVES:
            break
    return out


def _component_tokens(part: str) -> list[tuple[str, ...]]:
    if part == "**":
        return [_DEEP]
    tokens: list[tuple[str, ...]] = []
    i = 0
    while i < len(part):
        c = part[i]
        if c == "*":
            if not tokens or tokens[-1] != _STAR:
                tokens.append(_STAR)
        elif c == "?":
            tokens.append(_ANY)
        elif c == "[" and "]" in part[i + 2 :]:
            j = part.index("]", i + 2)
            body = part[i + 1 : j]
            negated = body[:1] in ("!", "^")
            tokens.append(("set", "!" if negated else "", body[1:] if negated else body))
            i = j
        else:
            tokens.append(("c", c[0]))
        i += 1
    return tokens


def _one(token: tuple[str, ...], ch: str) -> bool:
    if token is _ANY:
        return True
    if token[0] == "c":
        return token[1] == ch
    body, hit, k = token[2], False, 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            hit = hit or body[k] <= ch <= body[k + 2]
            k += 3
        else:
            hit = hit or body[k] == ch
            k += 1
    return hit != bool(token[1])


def _match_component(tokens: list[tuple[str, ...]], name: str) -> bool:
    """Wildcard matching with the last `*` as the only backtrack point: linear in len(name) per token."""
    i = j = 0
    star, mark = -1, 0
    while j < len(name):
        if i < len(tokens) and tokens[i] is not _STAR and _one(tokens[i], name[j]):
            i, j = i + 1, j + 1
        elif i < len(tokens) and tokens[i] is _STAR:
            star, mark, i = i, j, i + 1
        elif star >= 0:
            mark += 1
            i, j = star + 1, mark
        else:
            return False
    while i < len(tokens) and tokens[i] is _STAR:
        i += 1
    return i == len(tokens)


def _match_parts(pattern: list[list[tuple[str, ...]]], parts: list[str]) -> bool:
    """Components against components; a `**` component takes any number of them (each pair tried once)."""
    seen: set[tuple[int, int]] = set()
    todo = [(0, 0)]
    while todo:
        i, j = todo.pop()
        if (i, j) in seen:
            continue
        seen.add((i, j))
        if i == len(pattern):
            if j == len(parts):
                return True
            continue
        if pattern[i] == [_DEEP]:
            todo.append((i + 1, j))
            if j < len(parts):
                todo.append((i, j + 1))
        elif j < len(parts) and _match_component(pattern[i], parts[j]):
            todo.append((i + 1, j + 1))
    return False


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


MAX_DEVICE_COUNTS = 16  # counts in a `devices` list


def _devices(path: Path, value: Any) -> tuple[int, ...]:
    """`devices = 8` or `devices = [8, 256]`: positive ints, each once, in the order written."""
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in items):
        raise ConfigError(
            f"{path}: [tool.namedcheck] devices must be a device count (a positive integer) or a non-empty "
            f"list of them; found {value!r}"
        )
    if len(set(items)) > MAX_DEVICE_COUNTS:  # each count may cost a whole analysis of a file
        raise ConfigError(
            f"{path}: [tool.namedcheck] devices lists {len(set(items))} counts; at most {MAX_DEVICE_COUNTS} are "
            "checked (hint: keep the counts your programs run under, e.g. [8, 256])"
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
