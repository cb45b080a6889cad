"""The run's device count: configured (`[tool.namedcheck] devices = 8`, or a list of counts each checked),
stated by the program itself (`os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"` at module
level before jax is imported), or laid out by module code (a mesh of every device in a static shape). Where
none states it, it is the symbol `ndev` (engine/devices.py): sizes computed from it stay expressions.

`jax.devices()` is a list of that many devices, `jax.device_count()` / `local_device_count()` that int. A
file checked under several counts (a list) is analysed once per count when its analysis read the count;
what fails only under some counts says under which (`with 256 devices`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import libcst as cst

from namedcheck.diagnostic import Diagnostic
from namedcheck.engine.devices import NDEV
from namedcheck.engine.values import Const, Dim, DimVal

_FLAG = re.compile(r"--xla_force_host_platform_device_count=(\d+)")
# a text that may read the device count (else one analysis serves every configured count)
MAY_READ = re.compile(r"device|pmap|mesh")


def stated_count(module: cst.Module) -> int | None:
    """The count a program sets for itself: a literal `os.environ["XLA_FLAGS"] = "...=N..."` among the module's
    top-level statements before the first import of jax (a later one comes too late; any other write of
    XLA_FLAGS there, `setdefault` included, leaves it to the environment: not stated)."""
    cpu = _cpu_devices(module)
    if cpu is not None:
        return cpu
    found: int | None = None
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            if _mentions_flags(stmt):
                found = None
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import | cst.ImportFrom) and _imports_jax(small):
                return found
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and _is_flags(small.targets[0].target):
                text = _literal(small.value)
                m = _FLAG.search(text) if text is not None else None
                found = int(m.group(1)) if m is not None and int(m.group(1)) >= 1 else None
            elif _mentions_flags(small):
                found = None
    return None


def _cpu_devices(module: cst.Module) -> int | None:
    """`jax.config.update("jax_platforms", "cpu")` and `jax.config.update("jax_num_cpu_devices", N)` among the
    module's top-level statements (a test module's setting): N devices."""
    settings: dict[str, object] = {}
    for stmt in module.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            call = small.value if isinstance(small, cst.Expr) else None
            if not (isinstance(call, cst.Call) and len(call.args) == 2):
                continue
            if cst.Module([]).code_for_node(call.func) not in ("jax.config.update", "config.update"):
                continue
            key, value = call.args[0].value, call.args[1].value
            if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
                if isinstance(value, cst.Integer):
                    settings[key.evaluated_value] = int(value.value)
                elif isinstance(value, cst.SimpleString):
                    settings[key.evaluated_value] = value.evaluated_value
    n = settings.get("jax_num_cpu_devices")
    if settings.get("jax_platforms") == "cpu" and isinstance(n, int) and n >= 1:
        return n
    return None


def _imports_jax(node: cst.Import | cst.ImportFrom) -> bool:
    if isinstance(node, cst.ImportFrom):
        if node.relative or node.module is None:
            return False
        name = cst.Module([]).code_for_node(node.module)
        return name == "jax" or name.startswith("jax.")
    return any(
        (n := cst.Module([]).code_for_node(a.name)) == "jax" or n.startswith("jax.")
        for a in node.names
        if isinstance(a, cst.ImportAlias)
    )


def _is_flags(target: cst.BaseExpression) -> bool:
    """`os.environ["XLA_FLAGS"]` (or `environ["XLA_FLAGS"]`)."""
    if not (isinstance(target, cst.Subscript) and len(target.slice) == 1):
        return False
    key = target.slice[0].slice
    owner = cst.Module([]).code_for_node(target.value)
    return (
        owner in ("os.environ", "environ")
        and isinstance(key, cst.Index)
        and isinstance(key.value, cst.SimpleString)
        and key.value.evaluated_value == "XLA_FLAGS"
    )


def _literal(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        v = node.evaluated_value
        return v if isinstance(v, str) else None
    if isinstance(node, cst.ConcatenatedString):
        a, b = _literal(node.left), _literal(node.right)
        return a + b if a is not None and b is not None else None
    return None


def _mentions_flags(node: cst.CSTNode) -> bool:
    return "XLA_FLAGS" in cst.Module([]).code_for_node(node)


# ---- the count during an analysis -------------------------------------------------------------------


def configured(an: Any) -> Dim:
    """The count the run states (configuration or the program's XLA_FLAGS), else the symbol."""
    _read(an)
    n = getattr(an, "devices", None)
    return n if isinstance(n, int) else NDEV


def count(an: Any) -> Dim:
    """The run's device count: stated, else laid out by module code, else the symbol."""
    n = configured(an)
    if isinstance(n, int):
        return n
    noted = getattr(an, "device_count", None)
    return noted if isinstance(noted, int) else NDEV


def count_value(an: Any) -> Const | DimVal:
    """`jax.device_count()` as a Python value."""
    n = count(an)
    return Const(n) if isinstance(n, int) else DimVal(n)


def _read(an: Any) -> None:
    """The analysis depends on the count (a file checked under several counts is analysed under each)."""
    if an is None:
        return
    an.devices_read = True
    project = getattr(an, "project", None)
    if project is not None:
        project.devices_read = True


# ---- several counts ---------------------------------------------------------------------------------


def counts_for(module: cst.Module, configured_counts: Sequence[int]) -> tuple[int | None, ...]:
    """The counts a file is checked under: its own stated one, else the configured ones, else none known."""
    own = stated_count(module)
    if own is not None:
        return (own,)
    return tuple(configured_counts) or (None,)


def merge(found: Sequence[tuple[int | None, list[Diagnostic]]], key: Callable[[Diagnostic], Any]) -> list[Diagnostic]:
    """One list of diagnostics from the analyses of one file under several counts: one found under every
    count is kept as the first count's; one found under only some says under which (`with 256 devices`)."""
    counts = [c for c, _ in found]
    under: dict[Any, list[int | None]] = {}
    first: dict[Any, Diagnostic] = {}
    for c, diags in found:
        for d in diags:
            k = key(d)
            first.setdefault(k, d)
            if c not in under.setdefault(k, []):
                under[k].append(c)
    out = []
    for k, d in first.items():
        where = under[k]
        if len(where) == len(counts):
            out.append(d)
            continue
        shown = " and ".join(str(c) for c in where)
        out.append(replace(d, message=f"{d.message} (with {shown} devices)"))
    return out


__all__ = ["NDEV", "stated_count", "configured", "count", "count_value", "counts_for", "merge", "MAY_READ"]
