"""Which calls into a library real code makes most, and whether namedcheck models each.

    python bench/library_calls.py --prefix flax. --codebase flax PATH... [--exclude GLOB ...] [--top 60] [--format text|json]

Every `.py` file under the paths is parsed (never run); each call whose callee resolves through the file's imports
to a name under a prefix (`nn.Dense(...)` with `import flax.linen as nn` -> `flax.linen.Dense`; a decorator without
a call, `@nnx.jit`, counts as a call) is counted by that name. `--method NAME` also counts `x.NAME(...)` on any
receiver, as `.NAME` (`self.param`, `state.apply_gradients`: methods a library's objects carry). A name is modelled
when the checker's op table has a rule for it (`stubs/*.pyi`) or an analyzer module lists it (`MODELLED` of
`analyzer/nn_modules.py`, `nnx.py`, `linen.py`, `haiku.py`, `optax.py`, `mapcalls.py`; initializers). The shape oracle's
held-out files of each `--codebase` (`shape_oracle.HELD_OUT`, matched from any directory of a path down) are left
out.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.shape_oracle import HELD_OUT  # noqa: E402


def _dotted(node: ast.expr) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> qualified name, from every import in the file (at any depth)."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = a.name
                else:
                    out[a.name.split(".")[0]] = a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def calls_in(text: str, prefixes: tuple[str, ...], methods: frozenset[str]) -> Counter[str]:
    """The calls of one file's text under the prefixes (and of the methods), by name."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return Counter()
    aliases = _aliases(tree)
    got: Counter[str] = Counter()

    def count(func: ast.expr) -> None:
        parts = _dotted(func)
        if parts is None:
            if isinstance(func, ast.Attribute) and func.attr in methods:
                got[f".{func.attr}"] += 1
            return
        head = aliases.get(parts[0])
        if head is not None:
            name = ".".join([head, *parts[1:]])
            if name.startswith(prefixes):
                got[name] += 1
                return
        if len(parts) > 1 and parts[-1] in methods:
            got[f".{parts[-1]}"] += 1

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            count(node.func)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for d in node.decorator_list:
                if not isinstance(d, ast.Call):
                    count(d)
    return got


def _held_out(path: str, codebases: set[str]) -> bool:
    """Whether a held-out pattern of the codebases matches the path from some directory of it down."""
    parts = path.split("/")
    tails = ["/".join(parts[i:]) for i in range(len(parts))]
    return any(fnmatch.fnmatch(t, pattern) for name, pattern in HELD_OUT if name in codebases for t in tails)


def files(paths: list[Path], excludes: list[str], codebases: set[str]) -> list[Path]:
    out: list[Path] = []
    for root in paths:
        found = [root] if root.is_file() else sorted(root.rglob("*.py"))
        for p in found:
            whole = p.as_posix()
            if _held_out(whole, codebases):
                continue
            if any(fnmatch.fnmatch(whole, g) for g in excludes):
                continue
            out.append(p)
    return out


def modelled_names() -> set[str]:
    """The names the checker models: its op table and the analyzer modules' `MODELLED` lists."""
    from namedcheck.analyzer import haiku, linen, mapcalls, nn_modules, nnx, optax
    from namedcheck.engine.stubs import op_table

    names = set(op_table())
    for mod in (nn_modules, nnx, linen, haiku, optax, mapcalls):
        names |= set(getattr(mod, "MODELLED", ()))
    return names


def is_modelled(name: str, modelled: set[str]) -> bool:
    from namedcheck.engine.names import canonical_name

    if ".initializers." in name:  # initializers: called as `init(key, shape, dtype)`
        return True
    return name in modelled or canonical_name(name) in modelled


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", type=Path)
    ap.add_argument("--prefix", action="append", required=True, help="qualified-name prefix, e.g. flax.")
    ap.add_argument("--method", action="append", default=[], help="also count x.NAME(...) on any receiver")
    ap.add_argument("--exclude", action="append", default=[], help="a glob over the file paths to leave out")
    ap.add_argument("--codebase", action="append", default=[], help="whose held-out files to leave out, e.g. flax")
    ap.add_argument("--top", type=int, default=60)
    ap.add_argument("--format", choices=("text", "json"), default="text")
    a = ap.parse_args(argv)
    total: Counter[str] = Counter()
    found = files(a.paths, a.exclude, set(a.codebase))
    for p in found:
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        total += calls_in(text, tuple(a.prefix), frozenset(a.method))
    modelled = modelled_names()
    rows = [(n, c, is_modelled(n, modelled)) for n, c in total.most_common()]
    calls = sum(total.values())
    covered = sum(c for _, c, m in rows if m)
    if a.format == "json":
        doc = {"files": len(found), "calls": calls, "modelled": covered, "rows": rows}
        print(json.dumps(doc, indent=1))
        return 0
    print(
        f"{len(found)} files, {calls} calls, {len(total)} names; modelled: {covered} calls "
        f"({100 * covered / max(calls, 1):.1f}%)"
    )
    print(f"{'calls':>6}  {'modelled':8}  name")
    for n, c, m in rows[: a.top]:
        print(f"{c:>6}  {'yes' if m else '-':8}  {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
