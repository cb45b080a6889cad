"""The layers of the architecture (docs/ARCHITECTURE.md): engine -> language -> analysis -> edits -> front ends.
A module imports only from its own layer or lower ones, and no set of modules imports itself in a circle,
counting imports inside functions. Not edges: imports of external packages (the lazy ones of libcst and
pygls), and imports for type checkers only (`if TYPE_CHECKING:`), which never run."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"namedcheck": ROOT / "namedcheck", "namedcheck_mypy": ROOT / "plugin" / "namedcheck_mypy"}
LAYERS = [  # (layer, module prefixes), lowest first
    ("engine", ("namedcheck.engine",)),
    ("language", ("namedcheck.annotations", "namedcheck.errors", "namedcheck.diagnostic")),
    ("analysis", ("namedcheck.analyzer",)),
    ("edits", ("namedcheck.edits",)),
    (
        "front ends",
        (
            "namedcheck.cli",
            "namedcheck.lsp",
            "namedcheck_mypy",
            "namedcheck.runtime",
            "namedcheck.compat",
            "namedcheck.lax",
            "namedcheck.numpy",
            "namedcheck.nn",
            "namedcheck.__main__",
        ),
    ),
]


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for top, where in PACKAGES.items():
        if not where.exists():
            where = ROOT / top
        for f in where.rglob("*.py"):
            parts = [top, *f.relative_to(where).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = f
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules `name` imports, anywhere in its text."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text())):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".") if is_package else name.split(".")[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        for t in targets:
            while t and t not in modules:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of the tree outside `if TYPE_CHECKING:` blocks."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, ast.If) and _type_checking(node.test):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _layer(name: str) -> int:
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(name == p or name.startswith(p + ".") for p in prefixes):
            return rank
    raise AssertionError(f"{name} belongs to no layer: add it to LAYERS (and to docs/ARCHITECTURE.md)")


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {m: _imports(m, f, modules) for m, f in modules.items() if m != "namedcheck"}


def test_every_module_has_a_layer_and_imports_downwards() -> None:
    graph = _graph()
    wrong = [
        f"{m} ({LAYERS[_layer(m)][0]}) imports {d} ({LAYERS[_layer(d)][0]})"
        for m, deps in sorted(graph.items())
        for d in sorted(deps)
        if d != "namedcheck" and _layer(d) > _layer(m)
    ]
    assert not wrong, "\n".join(wrong)


def test_no_import_circle() -> None:
    graph = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                circles.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_the_graph_is_read() -> None:
    """The reader finds known edges, inside functions too (a reader that sees nothing passes vacuously), and
    skips type-checking-only imports."""
    graph = _graph()
    assert "namedcheck.engine.values" in graph["namedcheck.engine.algebra"]
    assert "namedcheck.cli.cache" in graph["namedcheck.cli.runner"]  # imported inside check_file
    assert "namedcheck.engine.mesh" not in graph["namedcheck.engine.values"]  # for ArrayType.mesh's annotation only
    assert "namedcheck_mypy.worker" in graph or "namedcheck_mypy.hooks" in graph
