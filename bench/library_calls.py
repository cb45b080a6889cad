"""Which calls of a library real code makes most, and which of them namedcheck models.

    python bench/library_calls.py --prefix equinox --prefix diffrax TREE [TREE ...] [--top 40] [--json]

Every `.py` file and notebook (`.ipynb`: its code cells, magics dropped) under the trees is parsed with `ast`
(a file that does not parse is skipped and counted); imports are followed within the file (`import equinox as
eqx`, `from equinox import nn`, `from diffrax import ODETerm`), and each call (and each decorator written without
a call, `@eqx.filter_jit`, which is called on the function) whose callee resolves to a name under one of the
prefixes is counted under that qualified name (`equinox.nn.Linear`). A name counts as modelled when namedcheck's
op table has a rule for it (`engine/ops`: layers, ops and their aliases) or the analyzer handles it by name
(`MODELLED` below and the library modules of `namedcheck/analyzer/`). Prints the table, most-called first, with
the running share of the calls, and the share of calls modelled. Reusable for any library: pass its prefix.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import importlib
import json
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from namedcheck.engine.names import canonical_name
from namedcheck.engine.ops.registry import OPS

# names the analyzer handles itself (transforms, trees, pytrees), beside the op table's rules
_ANALYZER = frozenset(
    """jax.jit jax.vmap jax.pmap jax.grad jax.value_and_grad jax.checkpoint jax.remat jax.eval_shape
    jax.lax.scan jax.lax.cond jax.lax.switch jax.lax.fori_loop jax.lax.while_loop jax.lax.map
    jax.tree.map jax.tree_util.tree_map jax.tree.leaves jax.tree_util.tree_leaves""".split()
)


def analyzer_models(name: str) -> bool:
    """Whether namedcheck follows a call of `name` (a qualified name as imported)."""
    canon = canonical_name(name)
    if canon in OPS or canon in _stub_ops() or canon in _ANALYZER or ".initializers." in name:
        return True  # (an op rule or stub, a name the analyzer resolves, an initializer)
    from namedcheck.analyzer import optax

    if name.startswith("optax."):
        short = name.rpartition(".")[2]
        return short in optax.BUILDERS | optax.SCHEDULES | set(optax.WRAPPERS) | {"apply_updates", "chain"}
    for module in _LIBRARY_MODULES:  # the analyzer's library modules that list the names they handle
        try:
            handled = importlib.import_module(f"namedcheck.analyzer.{module}").MODELLED
        except (ImportError, AttributeError):
            continue
        if name in handled or canon in handled:  # (`haiku._src.transform.transform` is `haiku.transform`)
            return True
    return False


def _stub_ops() -> frozenset[str]:
    """The ops `stubs/*.pyi` declare (`nn.relu` is `jax.nn.relu`'s stub): the op table the analyzer loads."""
    global _STUBS
    if _STUBS is None:
        from namedcheck.engine.stubs import op_table

        _STUBS = frozenset(op_table())
    return _STUBS


_STUBS: frozenset[str] | None = None
_LIBRARY_MODULES = ("equinox", "diffrax", "nn_modules", "nnx", "linen", "haiku")


def sources(trees: list[Path]) -> Iterator[tuple[Path, str]]:
    for tree in trees:
        files = [tree] if tree.is_file() else sorted(tree.rglob("*"))
        for p in files:
            if p.suffix == ".py":
                yield p, p.read_text(encoding="utf-8", errors="replace")
            elif p.suffix == ".ipynb":
                try:
                    cells = json.loads(p.read_text(encoding="utf-8", errors="replace")).get("cells", [])
                except (json.JSONDecodeError, AttributeError):
                    continue
                code = []
                for c in cells:
                    if c.get("cell_type") == "code":
                        src = c.get("source", "")
                        src = "".join(src) if isinstance(src, list) else str(src)
                        code.extend(line for line in src.splitlines() if not line.lstrip().startswith(("%", "!")))
                yield p, "\n".join(code)


def _dotted(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def calls_in(text: str, prefixes: tuple[str, ...]) -> Counter[str] | None:
    """The library calls of one file by qualified name (None: the file does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    aliases[a.asname] = a.name
                else:
                    top = a.name.split(".")[0]
                    aliases[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    counts: Counter[str] = Counter()

    def count(func: ast.expr) -> None:
        dotted = _dotted(func)
        if dotted is None:
            return
        head, _, rest = dotted.partition(".")
        if head not in aliases:
            return
        full = aliases[head] + (f".{rest}" if rest else "")
        if full.split(".")[0] in prefixes:
            counts[full] += 1

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            count(node.func)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for d in node.decorator_list:
                if not isinstance(d, ast.Call):
                    count(d)
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trees", nargs="+", type=Path)
    ap.add_argument("--prefix", action="append", required=True, help="a library's top module (repeatable)")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--exclude", action="append", default=[], help="a glob over the paths to leave out (held out)")
    args = ap.parse_args(argv)
    prefixes = tuple(args.prefix)
    total: Counter[str] = Counter()
    files = unparsed = 0
    for path, text in sources(args.trees):
        if any(fnmatch.fnmatch(path.as_posix(), g) for g in args.exclude):
            continue
        got = calls_in(text, prefixes)
        if got is None:
            unparsed += 1
            continue
        files += 1
        total.update(got)
    rows = [(name, n, analyzer_models(name)) for name, n in total.most_common()]
    calls = sum(total.values())
    modelled = sum(n for _, n, m in rows if m)
    if args.json:
        print(json.dumps({"files": files, "unparsed": unparsed, "calls": calls, "modelled": modelled, "rows": rows}))
        return 0
    print(f"{files} files ({unparsed} not parsed), {calls} calls into {', '.join(prefixes)}, {len(rows)} names")
    print(f"{'name':<48} {'calls':>6} {'cum%':>6}  modelled")
    run = 0
    for name, n, m in rows[: args.top]:
        run += n
        print(f"{name:<48} {n:>6} {100 * run / max(calls, 1):>5.1f}%  {'yes' if m else '-'}")
    share = 100 * modelled / max(calls, 1)
    top = rows[: args.top]
    top_calls = sum(n for _, n, _ in top)
    top_mod = sum(n for _, n, m in top if m)
    print(
        f"modelled: {modelled} of {calls} calls ({share:.1f}%); of the top {len(top)} names' calls: "
        f"{100 * top_mod / max(top_calls, 1):.1f}%"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
