"""Load op signatures from `stubs/*.pyi` (annotation language) into the op table.

A stub file is named after its module (`jax.numpy.pyi`). Each function is one op:
- `@elementwise(...)` (or another family name): the rule family with the decorator's options;
- `@rule`: the procedural rule registered in `namedcheck.engine.ops` under the same public name;
- no decorator: declarative; the result follows from the annotated signature alone.
Parsed with the standard library's `ast` (the engine imports no libcst).
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path
from typing import Any

from namedcheck.engine.dtypes import DTYPES
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops import RULE, Op
from namedcheck.engine.ops.registry import family_key, lookup
from namedcheck.engine.readfile import read_text
from namedcheck.engine.signature import KWONLY, NORMAL, POSONLY, VARARGS, VARKW, Param, Signature
from namedcheck.engine.stubfiles import StubError, builtin_stub_dir, stub_files  # noqa: F401 (re-exported)
from namedcheck.engine.syntax import parse_item
from namedcheck.engine.values import Seq


def _annotation(node: ast.expr | None, where: str) -> Any:
    if node is None:
        return None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        head = node.value.id
        if head in DTYPES or head == "Array":
            try:
                item = ast.literal_eval(node.slice)
                return parse_item(None if head == "Array" else head, item)
            except (ValueError, RuleError) as e:
                raise StubError(f"{where}: bad annotation: {e}") from None
        if head == "tuple" and isinstance(node.slice, ast.Tuple):
            return Seq(tuple(_annotation(e, where) for e in node.slice.elts))
    return None


def _params(fn: ast.FunctionDef, where: str) -> tuple[Param, ...]:
    a = fn.args
    out: list[Param] = []
    positional = [(p, POSONLY) for p in a.posonlyargs] + [(p, NORMAL) for p in a.args]
    n_defaults = len(a.defaults)
    for i, (p, kind) in enumerate(positional):
        out.append(Param(p.arg, kind, i >= len(positional) - n_defaults, _annotation(p.annotation, where)))
    if a.vararg:
        out.append(Param(a.vararg.arg, VARARGS, True, None))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append(Param(p.arg, KWONLY, d is not None, _annotation(p.annotation, where)))
    if a.kwarg:
        out.append(Param(a.kwarg.arg, VARKW, True, None))
    return tuple(out)


def _decorator(node: ast.expr, where: str) -> tuple[str, dict[str, Any]]:
    if isinstance(node, ast.Name):
        return node.id, {}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        try:
            return node.func.id, {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
        except ValueError:
            raise StubError(f"{where}: decorator options must be literals") from None
    raise StubError(f"{where}: unsupported decorator")


MAX_STUB_BYTES = 5 * 1024 * 1024


def _tree(path: Path) -> ast.Module:
    """A stub's syntax tree, read with the guarded reader (a FIFO, a device or an over-large file is never
    read); `StubError` naming the file, the place and what is wrong when it cannot be used."""
    try:
        text = read_text(path, MAX_STUB_BYTES)
    except OSError as e:
        raise StubError(f"{path}: cannot be read: {e}") from None
    except UnicodeDecodeError as e:
        raise StubError(f"{path}: not UTF-8 text: {e}") from None
    try:
        return ast.parse(text, filename=str(path))
    except SyntaxError as e:
        raise StubError(f"{path}:{e.lineno or 1}: invalid syntax: {e.msg}") from None
    except (RecursionError, MemoryError, ValueError) as e:
        what = "nested too deeply to parse" if not isinstance(e, ValueError) else str(e)
        raise StubError(f"{path}: {what}") from None


def load_file(path: Path) -> dict[str, Op]:
    module = path.name[: -len(".pyi")]
    tree = _tree(path)
    ops: dict[str, Op] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        name = f"{module}.{node.name}"
        where = f"{path}:{node.lineno} ({name})"
        sig = Signature(name, _params(node, where), _annotation(node.returns, where))
        if not node.decorator_list:
            if sig.returns is None:
                raise StubError(f"{where}: a declarative op needs an array return annotation, or a decorator")
            ops[name] = Op(name, sig)
            continue
        deco, options = _decorator(node.decorator_list[0], where)
        if deco == RULE:
            if lookup(name).shape is None:
                raise StubError(f"{where}: @rule but no procedural rule is registered under {name!r}")
            ops[name] = Op(name, sig, RULE)
        elif lookup(family_key(deco)).shape is not None:
            ops[name] = Op(name, sig, deco, tuple(sorted((k, _freeze(v)) for k, v in options.items())))
        else:
            raise StubError(f"{where}: unknown rule family @{deco}")
    return ops


def _freeze(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


@lru_cache(maxsize=8)
def op_table(extra_dirs: tuple[str, ...] = ()) -> dict[str, Op]:
    """Every op: the built-in stubs, then user stub paths (which may add or override ops)."""
    table: dict[str, Op] = {}
    for d in (builtin_stub_dir(), *map(Path, extra_dirs)):
        for f in sorted(Path(d).glob("*.pyi")):
            try:
                table.update(load_file(f))
            except RecursionError:
                raise StubError(f"{f}: nested too deeply to read") from None
    return table


def stub_problem(extra_dirs: tuple[str, ...] = ()) -> str | None:
    """What is wrong with the user's stubs (the first bad file: its path, place and fault), None when they
    load: a front end says it once, before checking anything (as mypy stops at a stub it cannot parse).
    The built-in stubs are not loaded for it (a warm-cache run never needs them)."""
    for d in extra_dirs:
        for f in sorted(Path(d).glob("*.pyi")):
            try:
                load_file(f)
            except StubError as e:
                return str(e)
            except RecursionError:
                return f"{f}: nested too deeply to read"
    return None
