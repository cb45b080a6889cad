"""JAX configuration flags that change the rules, read where the program sets them.

`jax_remove_size_one_mesh_axis_from_type` (size-1 mesh axes leave varying sets and shardings), `jax_enable_x64` (64-bit
defaults, analyzer/widths.py) and `jax_auto_pcast`
(ops cast invariant operands to varying themselves) reach the engine as part of the axis environment
(`AxisEnv.flags`, so every rule reads them and call analyses are memoised per setting):

- `jax.config.update(name, value)` at module level with literal arguments sets the flag for the whole module
  (JAX's configuration is global); anywhere else (in a function, a helper, a loop), with a value the checker
  cannot evaluate, or named by a variable, the flag is not known in the module (`None`), and also set from the
  call on in the function that makes it;
- `with config.<name>(value):` and `@config.<name>(value)` / `@jtu.with_config(jax_<name>=value)` on a function
  set it inside the block or the function;
- the flag's environment variable named anywhere in the text makes it not known.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import libcst as cst

from namedcheck.analyzer.parsing import child_nodes
from namedcheck.engine.maps import JAX_FLAG_DEFAULTS, X64, AxisEnv
from namedcheck.engine.values import Const

Flags = tuple[tuple[str, bool | None], ...]


@dataclass(frozen=True, slots=True)
class ConfigFlags:
    """`config.<name>(value)` / `jtu.with_config(...)`: flags set by a context manager or decorator."""

    flags: Flags


def _flag_of(short: str) -> str | None:
    name = short if short.startswith("jax_") else f"jax_{short}"
    return name if name in JAX_FLAG_DEFAULTS else None


def _value(v: Any) -> bool | None:
    return v.value if isinstance(v, Const) and isinstance(v.value, bool) else None


def construct(name: str, pos: list[Any], kw: dict[str, Any]) -> Any:
    """`jax.config.update(...)` -> ("update", flags); `config.<name>(v)`, `with_config(...)` -> ConfigFlags;
    NotImplemented for every other call."""
    mod, _, short = name.rpartition(".")
    if short == "update" and mod.endswith("config") and mod.startswith("jax"):
        key = pos[0] if pos else kw.get("name")
        value = pos[1] if len(pos) > 1 else kw.get("val")
        if isinstance(key, Const) and isinstance(key.value, str):
            flag = _flag_of(key.value) if key.value.startswith("jax_") else None
            return ("update", ((flag, _value(value)),) if flag else ())
        return ("update", tuple((f, None) for f in JAX_FLAG_DEFAULTS))  # which flag: not known
    if short == "with_config" and mod.startswith("jax"):
        return ConfigFlags(tuple((f, _value(v)) for k, v in kw.items() if (f := _flag_of(k)) is not None))
    if mod.endswith("config") and mod.startswith("jax") and (flag := _flag_of(short)) is not None:
        return ConfigFlags(((flag, _value(pos[0]) if len(pos) == 1 and not kw else None),))
    return NotImplemented


def applied(env: AxisEnv, flags: Flags) -> AxisEnv:
    for name, value in flags:
        env = env.with_flag(name, value)
    return env


# ---- the module-wide setting ---------------------------------------------------------------------------------


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return _dotted(node.value) + "." + node.attr.value
    return ""


class _Scan:
    """What `scan` finds, node by node (a function's or class's body one level deeper)."""

    def __init__(self) -> None:
        self.depth = 0  # inside a function or class body
        self.found: dict[str, set[bool | None]] = {}
        self.in_functions: set[str] = set()  # flags a function sets (`jax.config.update` in its body)
        self.scoped: set[int] = set()  # `config.<name>(v)` calls used as a with item or a function decorator

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for d in node.decorators:
            self.scoped.add(id(d.decorator))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        self.scoped.add(id(node.item))

    def visit_Call(self, node: cst.Call) -> None:
        callee = _dotted(node.func)
        mod, _, short = callee.rpartition(".")
        if short == "update" and mod.endswith("config"):
            args = [a for a in node.args if a.keyword is None and not a.star]
            key = args[0].value if args else None
            if isinstance(key, cst.SimpleString) and len(args) == 2 and not any(a.star for a in node.args):
                flag = _flag_of(key.evaluated_value) if isinstance(key.evaluated_value, str) else None
                if flag is None:
                    return
                val = args[1].value
                lit = val.value == "True" if isinstance(val, cst.Name) and val.value in ("True", "False") else None
                self.found.setdefault(flag, set()).add(lit if self.depth == 0 else None)
                if self.depth:
                    self.in_functions.add(flag)
            else:
                for flag in JAX_FLAG_DEFAULTS:
                    self.found.setdefault(flag, set()).add(None)
                    if self.depth:
                        self.in_functions.add(flag)
            return
        if short == "with_config":
            for a in node.args:
                flag = _flag_of(a.keyword.value) if a.keyword is not None else None
                if flag is not None and id(node) not in self.scoped:
                    self.found.setdefault(flag, set()).add(None)
            return
        if short in ("enable_x64", "disable_x64"):  # `with jax.experimental.enable_x64():`: not followed
            self.found.setdefault(X64, set()).add(None)
            return
        flag = _flag_of(short) if mod.endswith("config") else None
        if flag is not None and id(node) not in self.scoped:
            self.found.setdefault(flag, set()).add(None)  # a context manager entered where the checker cannot tell


# what `_Scan` acts on, read from the text first: `<...>config.update(`, `with_config(`, a flag's name (a flag's
# short name is in its environment variable's and in `config.<name>(...)`)
_MAY_SET = re.compile(r"config\s*\.\s*update\b|with_config")


def module_flags(module: cst.Module, text: str) -> Flags:
    """The flags the module sets for all of its code (JAX's defaults left out; None: not known)."""
    return scan(module, text)[0]


def scan(module: cst.Module, text: str, path: Any = None) -> tuple[Flags, frozenset[str]]:
    """The flags the module sets for all of its code (JAX's defaults left out; None: not known), and the flags
    its functions set (a caller of any of them no longer knows those). `path`: the module's file, whose
    `conftest.py` files pytest runs before it (`conftest_flags`)."""
    values, in_functions = _values(module, text)
    if path is not None:
        before = conftest_flags(path)
        for flag, value in before.items():  # the module's own setting runs after a conftest's literal one
            values[flag] = None if value is None else values.get(flag, value)
        for flag, others in other_tests_flags(path).items():  # set for the session when pytest collects them
            if any(v != values.get(flag, JAX_FLAG_DEFAULTS[flag]) for v in others):
                values[flag] = None
    return tuple(sorted((k, v) for k, v in values.items() if v != JAX_FLAG_DEFAULTS[k])), in_functions


def _values(module: cst.Module, text: str) -> tuple[dict[str, bool | None], frozenset[str]]:
    """`scan`'s flags, JAX's defaults included where the module states them."""
    if not _may_set(text):
        return {}, frozenset()  # (most modules: the visit below is as costly as the module's parse)
    scan = _Scan()
    todo: list[tuple[cst.CSTNode, int]] = [(module, 0)]  # the visitor's pre-order, read from the fields (cheap)
    while todo:
        node, depth = todo.pop()
        scan.depth = depth
        if isinstance(node, cst.FunctionDef):
            scan.visit_FunctionDef(node)
        elif isinstance(node, cst.WithItem):
            scan.visit_WithItem(node)
        elif isinstance(node, cst.Call):
            scan.visit_Call(node)
        inner = depth + 1 if isinstance(node, cst.FunctionDef | cst.ClassDef) else depth
        children = child_nodes(node)
        children.reverse()
        todo.extend((c, inner) for c in children)
    out: dict[str, bool | None] = {}
    for flag, values in scan.found.items():
        out[flag] = next(iter(values)) if len(values) == 1 else None
    for flag in JAX_FLAG_DEFAULTS:
        if flag.upper() in text:  # `os.environ['JAX_AUTO_PCAST'] = ...`: set outside what the checker follows
            out[flag] = None
    return out, frozenset(scan.in_functions)


def _may_set(text: str) -> bool:
    return bool(_MAY_SET.search(text)) or any(
        f.removeprefix("jax_") in text or f.upper() in text for f in JAX_FLAG_DEFAULTS
    )


# ---- what pytest runs before a test module ------------------------------------------------------------------
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini", ".git")
_PYTEST_CONFIGS = ("pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
_CONFTEST_MAX_BYTES = 1 << 20
_CONFTESTS: dict[tuple[str, str, int, int], Any] = {}  # by reader, file, modification time, size


def conftest_flags(path: Any) -> dict[str, bool | None]:
    """The flags the `conftest.py` files pytest loads before the module at `path` set (those in its folder and
    the folders above it, up to the project's root): a literal `jax.config.update(...)` at a conftest's module
    level gives its value; a setting in one of its functions (a fixture, a hook), a context manager or the
    flag's environment variable named there or in the root's pytest configuration (pytest-env's `env`) make
    the flag not known, and so do values that differ between conftests. A module that is not a test module
    does not know a flag a conftest of its project sets, other than one in a folder above it below the root
    (the library's own code runs under the tests' settings and under its users' own)."""
    try:
        here = Path(str(path)).resolve().parent
    except (OSError, RuntimeError, ValueError):
        return {}
    test_module = Path(str(path)).name.startswith("test_") or Path(str(path)).name.endswith("_test.py")
    out: dict[str, bool | None] = {}
    for folder in (here, *here.parents):
        root = any((folder / m).exists() for m in _PROJECT_MARKERS)
        for flag, value in _memo(folder / "conftest.py", _conftest_values).items():
            out[flag] = value if out.get(flag, value) == value else None
        if root:
            for name in _PYTEST_CONFIGS:
                for flag in _memo(folder / name, _environment_named):
                    out[flag] = None
            if not test_module:
                for conftest in _project_conftests(folder):
                    for flag in _memo(conftest, _conftest_values):
                        if conftest.parent not in (here, *here.parents) or conftest.parent == folder:
                            out[flag] = None
            break
    return out


def settings_from_outside(path: Any) -> str:
    """What `scan` reads about the module at `path` from other files (the flags its `conftest.py` files and the
    project's other test modules set), as a stable text: a module's result depends on it as on an import (the
    result cache's key holds it)."""
    before = sorted(conftest_flags(path).items())
    others = sorted((flag, sorted(values, key=repr)) for flag, values in other_tests_flags(path).items())
    return repr((before, others)) if before or others else ""


def other_tests_flags(path: Any) -> dict[str, set[bool | None]]:
    """The values the project's other test modules give a flag at their module level (`jax.config.update(...)`
    as pytest imports them, for the whole session: jax_cosmo's `test_spline.py` makes `test_sparse.py`'s arrays
    64-bit when both are collected; None: set there in a way the checker does not read). Settings inside a test
    module's functions and context managers are left out (scoped or restored, as a rule)."""
    try:
        me = Path(str(path)).resolve()
    except (OSError, RuntimeError, ValueError):
        return {}
    root = next((f for f in me.parents if any((f / m).exists() for m in _PROJECT_MARKERS)), None)
    out: dict[str, set[bool | None]] = {}
    if root is None:
        return out
    for test in _project_tests(root):
        if test != me:
            for flag, value in _memo(test, _test_module_values).items():
                out.setdefault(flag, set()).add(value)
    return out


_PROJECT_TESTS: dict[Path, tuple[Path, ...]] = {}
_TESTS_MAX = 5000  # test modules of a project read for their settings
_TESTS_DEPTH = 6
_SKIPPED_FOLDERS = frozenset({"node_modules", "site-packages", "__pycache__", "build", "dist", "venv", "env"})


def _project_tests(root: Path) -> tuple[Path, ...]:
    """The project's test modules (pytest's default names), to `_TESTS_DEPTH` folders down, skipping hidden and
    environment folders (kept per process)."""
    if root not in _PROJECT_TESTS:
        found: list[Path] = []
        base = len(root.parts)
        for folder, dirs, files in os.walk(root):
            here = Path(folder)
            dirs[:] = sorted(
                d
                for d in dirs
                if not d.startswith(".") and d not in _SKIPPED_FOLDERS and len(here.parts) - base < _TESTS_DEPTH
            )
            found += (here / f for f in sorted(files) if f.endswith(".py") and _test_name(f))
            if len(found) >= _TESTS_MAX:
                break
        _PROJECT_TESTS[root] = tuple(found[:_TESTS_MAX])
    return _PROJECT_TESTS[root]


def _test_name(name: str) -> bool:
    return name.startswith("test_") or name.endswith("_test.py")


_MODULE_UPDATE = re.compile(r"^[\w.]*config\.update\(", re.M)  # a statement at a module's top level


def _test_module_values(path: Path) -> dict[str, bool | None]:
    """A test module's module-level `jax.config.update(<flag>, <literal>)` settings (read with CPython's parser)."""
    from namedcheck.analyzer.parsing import parse_ast

    text = _read(path)
    if text is None or not _MODULE_UPDATE.search(text):
        return {}
    tree = parse_ast(text)
    out: dict[str, bool | None] = {}
    for stmt in tree.body if tree is not None else []:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "update"):
            continue
        if not ast.unparse(call.func.value).endswith("config") or len(call.args) != 2:
            continue
        key, value = call.args
        flag = _flag_of(key.value) if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
        if flag is not None:
            lit = value.value if isinstance(value, ast.Constant) and isinstance(value.value, bool) else None
            out[flag] = lit if out.get(flag, lit) == lit else None
    return out


_PROJECT_CONFTESTS: dict[Path, tuple[Path, ...]] = {}
_CONFTEST_DEPTH = 3  # folders below a project's root searched for its conftests (`tests/`, `src/pkg/tests/`)


def _project_conftests(root: Path) -> tuple[Path, ...]:
    """The `conftest.py` files of the project at `root`, to `_CONFTEST_DEPTH` folders down (kept per process)."""
    if root not in _PROJECT_CONFTESTS:
        found = [root / "conftest.py"]
        for depth in range(1, _CONFTEST_DEPTH + 1):
            try:
                found += sorted(root.glob("/".join(["*"] * depth) + "/conftest.py"))[:100]
            except (OSError, ValueError):
                break
        _PROJECT_CONFTESTS[root] = tuple(f for f in found if f.is_file())
    return _PROJECT_CONFTESTS[root]


def _read(path: Path) -> str | None:
    from namedcheck.engine.readfile import read_text

    try:
        return read_text(path, _CONFTEST_MAX_BYTES, errors="replace")
    except (OSError, ValueError):
        return None


def _memo(path: Path, read: Any) -> Any:
    """`read(path)` of a file, kept while the file is unchanged (no file: nothing)."""
    try:
        st = path.stat()
    except (OSError, ValueError):
        return {}
    key = (read.__name__, str(path), st.st_mtime_ns, st.st_size)
    if key not in _CONFTESTS:
        _CONFTESTS[key] = read(path)
    return _CONFTESTS[key]


def _environment_named(path: Path) -> dict[str, bool | None]:
    """A pytest configuration naming a flag's environment variable (pytest-env's `env = JAX_ENABLE_X64=1`)."""
    text = _read(path) or ""
    return {flag: None for flag in JAX_FLAG_DEFAULTS if flag.upper() in text}


def _conftest_values(path: Path) -> dict[str, bool | None]:
    from namedcheck.analyzer.parsing import Unparsable, parse_checked

    text = _read(path)
    if text is None or not _may_set(text):
        return {}
    try:
        module = parse_checked(text)
    except (Unparsable, cst.ParserSyntaxError, RecursionError, MemoryError):
        return dict.fromkeys(JAX_FLAG_DEFAULTS)  # unreadable: whatever it sets is not known
    values, in_functions = _values(module, text)
    for flag in in_functions:  # a fixture or a hook sets it: for some tests, at some time
        values[flag] = None
    return values


def unknown(flags: frozenset[str]) -> Flags:
    return tuple((f, None) for f in sorted(flags))


__all__ = [
    "ConfigFlags",
    "construct",
    "applied",
    "conftest_flags",
    "module_flags",
    "other_tests_flags",
    "settings_from_outside",
    "scan",
    "unknown",
]
