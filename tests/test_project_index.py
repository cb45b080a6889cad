"""The project index: imports of a project's own modules resolve (src layouts, namespace packages,
relative imports, re-exports, aliases), module-level values of other modules are known where they are
used, and the result cache re-checks a file when a module it imports changes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import namedcheck.analyzer.project as project_registry
from namedcheck.analyzer.check import analyse_for_plugin, check_source
from namedcheck.analyzer.project import Project, ProjectIndex, absolute_import
from namedcheck.cli.config import Config
from namedcheck.cli.main import run_check
from namedcheck.engine.stubs import op_table

LAYERS = """
from namedcheck import f32
import jax.numpy as jnp

WIDTH = 4


def head(x: f32[("B", 512)], w: f32[(512, 10)]) -> f32[("B", 10)]:
    return x @ w


def mix(x, w):
    return jnp.dot(x, w)
"""


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


def codes(root: Path, paths: list[str] | None = None, cache: Path | None = None) -> set[tuple[str, int, str]]:
    project_registry._PROJECTS.clear()
    diags = run_check([str(root / p) for p in (paths or ["."])], Config(), jobs=1, cache_root=cache)
    return {(Path(d.path).resolve().relative_to(root.resolve()).as_posix(), d.line, d.code) for d in diags}


CALLER = """
import jax.numpy as jnp
{imports}

h = jnp.zeros((32, 256))
w = jnp.zeros((512, 10))
y = {head}(h, w)
z = {mix}(jnp.zeros((3, {width})), jnp.zeros((5, 2)))
"""


def _caller(imports: str, head: str, mix: str, width: str = "WIDTH") -> str:
    return CALLER.format(imports=imports, head=head, mix=mix, width=width)


WANT = {("pkg/train.py", 7, "NC302"), ("pkg/mlp/layers.py", 13, "NC203")}


def test_absolute_imports_from_a_src_layout(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": "[project]\nname = 'pkg'\n",
            "src/pkg/__init__.py": "",
            "src/pkg/mlp/__init__.py": "",
            "src/pkg/mlp/layers.py": LAYERS,
            "src/pkg/train.py": _caller("from pkg.mlp.layers import head, mix, WIDTH", "head", "mix"),
        },
    )
    assert codes(tmp_path) == {("src/" + f, line, c) for f, line, c in WANT}


def test_relative_imports_and_aliases(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/mlp/__init__.py": "",
            "pkg/mlp/layers.py": LAYERS,
            "pkg/train.py": _caller(
                "from .mlp import layers as L; from .mlp.layers import mix as m", "L.head", "m", "L.WIDTH"
            ),
        },
    )
    assert codes(tmp_path) == WANT


def test_reexports_through_init(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/mlp/__init__.py": "from .layers import head, mix, WIDTH\n",
            "pkg/mlp/layers.py": LAYERS,
            "pkg/train.py": _caller("from pkg.mlp import head, mix, WIDTH", "head", "mix"),
        },
    )
    assert codes(tmp_path) == WANT


def test_import_dotted_module_as_and_plain(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/mlp/__init__.py": "",
            "pkg/mlp/layers.py": LAYERS,
            "pkg/train.py": _caller(
                "import pkg.mlp.layers as c; import pkg.mlp.layers", "c.head", "pkg.mlp.layers.mix", "c.WIDTH"
            ),
        },
    )
    assert codes(tmp_path) == WANT


def test_from_dot_import_module(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/mlp/__init__.py": "",
            "pkg/mlp/layers.py": LAYERS,
            "pkg/mlp/run.py": _caller("from . import layers", "layers.head", "layers.mix", "layers.WIDTH"),
        },
    )
    assert codes(tmp_path) == {("pkg/mlp/run.py", 7, "NC302"), ("pkg/mlp/layers.py", 13, "NC203")}


def test_namespace_package(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "ns/mlp/layers.py": LAYERS,
            "ns/train.py": _caller("from ns.mlp.layers import head, mix, WIDTH", "head", "mix"),
        },
    )
    got = codes(tmp_path, ["."])
    assert got == {("ns/train.py", 7, "NC302"), ("ns/mlp/layers.py", 13, "NC203")}


def test_config_module_without_jax_text(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": """
            from dataclasses import dataclass
            from typing import NamedTuple

            @dataclass(frozen=True)
            class Sizes:
                d_in: int = 16
                d_out: int = 8

            class Run(NamedTuple):
                batch: int = 4

            SIZES = Sizes(d_out=12)
            RUN = Run()
            TABLE = {"d_in": 16, "d_out": 8}
        """,
            "pkg/model.py": """
            import jax.numpy as jnp
            from .config import RUN, SIZES, TABLE, Sizes

            w = jnp.zeros((SIZES.d_in, SIZES.d_out))
            a = jnp.zeros((RUN.batch, SIZES.d_out)) @ w  # SIZES.d_out is 12: NC203
            b = jnp.zeros((RUN.batch, TABLE["d_in"])) @ w
            c = jnp.zeros((RUN.batch, Sizes().d_out)) @ w  # a fresh Sizes has d_out 8: NC203
        """,
        },
    )
    assert codes(tmp_path) == {("pkg/model.py", 6, "NC203"), ("pkg/model.py", 8, "NC203")}


def test_mutated_config_object_is_not_trusted(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/config.py": """
            from dataclasses import dataclass

            @dataclass
            class Sizes:
                d_in: int = 16

            SIZES = Sizes()
        """,
            "pkg/model.py": """
            import jax.numpy as jnp
            from .config import SIZES

            SIZES.d_in = 8
            y = jnp.zeros((2, 8)) @ jnp.zeros((SIZES.d_in, 3))
        """,
        },
    )
    assert codes(tmp_path) == set()


def test_import_cycle_is_harmless(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "import jax.numpy as jnp\nfrom .b import g\nN = 3\ndef f(x):\n    return g(x)\n",
            "pkg/b.py": "import jax.numpy as jnp\nfrom .a import N\ndef g(x):\n    return x @ jnp.zeros((N, 2))\n",
            "pkg/c.py": "import jax.numpy as jnp\nfrom .a import f\ny = f(jnp.zeros((2, 4)))\n",
        },
    )
    assert codes(tmp_path) == {("pkg/b.py", 4, "NC203")}


def test_diagnostics_in_other_modules_reported_once_and_by_the_files_that_cause_them(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/mlp/__init__.py": "",
            "pkg/mlp/layers.py": LAYERS,
            "pkg/train.py": _caller("from pkg.mlp.layers import head, mix, WIDTH", "head", "mix"),
            "pkg/eval.py": _caller("from pkg.mlp.layers import head, mix, WIDTH", "head", "mix"),
        },
    )
    project_registry._PROJECTS.clear()
    diags = run_check([str(tmp_path)], Config(), jobs=1)
    assert sum(d.code == "NC203" for d in diags) == 1
    whole = {("pkg/train.py", 7, "NC302"), ("pkg/eval.py", 7, "NC302"), ("pkg/mlp/layers.py", 13, "NC203")}
    assert codes(tmp_path) == whole
    # only train.py checked (a pre-commit run): what its call causes inside layers.py fails the hook too
    assert codes(tmp_path, ["pkg/train.py"]) == {("pkg/train.py", 7, "NC302"), ("pkg/mlp/layers.py", 13, "NC203")}
    # only layers.py checked: its importers run, and what they cause in it is reported (not their own findings)
    assert codes(tmp_path, ["pkg/mlp/layers.py"]) == {("pkg/mlp/layers.py", 13, "NC203")}
    # a changed-files run reports a subset of the whole run's findings, whatever the files
    for files in (["pkg/train.py"], ["pkg/eval.py", "pkg/mlp/layers.py"], ["pkg/__init__.py"]):
        assert codes(tmp_path, files) <= whole


def test_cache_rechecks_importers_of_an_edited_module(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/mlp/__init__.py": "",
            "pkg/mlp/layers.py": LAYERS,
            "pkg/train.py": _caller("from pkg.mlp.layers import head, mix, WIDTH", "head", "mix"),
        },
    )
    cache = tmp_path / "cachedir"
    assert ("pkg/train.py", 7, "NC302") in codes(tmp_path, ["pkg/train.py"], cache)
    layers = tmp_path / "pkg/mlp/layers.py"
    layers.write_text(layers.read_text().replace('f32[("B", 512)]', 'f32[("B", 256)]'))
    # the call of `head` is right now; the one of `mix` still fails inside layers.py
    assert codes(tmp_path, ["pkg/train.py"], cache) == {("pkg/mlp/layers.py", 13, "NC203")}


def test_plugin_analysis_follows_project_imports(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/mlp/__init__.py": "",
            "pkg/mlp/layers.py": LAYERS,
            "pkg/train.py": _caller("from pkg.mlp.layers import head, mix, WIDTH", "head", "mix"),
        },
    )
    project_registry._PROJECTS.clear()
    path = tmp_path / "pkg/train.py"
    diags, types = analyse_for_plugin(path.read_text(), str(path))
    assert [(d.line, d.code) for d in diags] == [(7, "NC302")]
    assert any(repr(v) == "f32[(3, 2)]" for v in types.values()) is False  # z's call fails inside layers.py
    assert any(repr(v) == "f32[(32, 256)]" for v in types.values())


def test_index_names_and_relative_imports(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"pyproject.toml": "", "src/pkg/__init__.py": "", "src/pkg/sub/__init__.py": "", "src/pkg/sub/m.py": ""},
    )
    index = ProjectIndex.for_paths([tmp_path / "src/pkg/sub/m.py"])
    assert index.module_name(tmp_path / "src/pkg/sub/m.py") == ("pkg.sub.m", False)
    assert index.module_name(tmp_path / "src/pkg/sub/__init__.py") == ("pkg.sub", True)
    assert index.module_file("pkg.sub.m") == (tmp_path / "src/pkg/sub/m.py").resolve()
    assert not index.has_top("jax")
    assert absolute_import("x", 1, "pkg.sub.m", False) == "pkg.sub.x"
    assert absolute_import(None, 2, "pkg.sub.m", False) == "pkg"
    assert absolute_import("y", 1, "pkg.sub", True) == "pkg.sub.y"
    assert absolute_import("y", 5, "pkg.sub.m", False) is None


def test_check_source_without_project_is_module_local(tmp_path: Path) -> None:
    write(tmp_path, {"pkg/__init__.py": "", "pkg/mlp/__init__.py": "", "pkg/mlp/layers.py": LAYERS})
    source = _caller("from pkg.mlp.layers import head, mix, WIDTH", "head", "mix")
    assert check_source(source, "train.py") == []
    project = Project(ProjectIndex.for_paths([tmp_path / "pkg/mlp/layers.py"]), op_table())
    got = check_source(source, str(tmp_path / "pkg/train.py"), project=project)
    assert {(Path(d.path).name, d.code) for d in got} == {("train.py", "NC302"), ("layers.py", "NC203")}


CHAIN = {
    "pkg/__init__.py": "",
    "pkg/layers.py": """
        import jax.numpy as jnp
        from namedcheck import f32


        def dense(x: f32[("B", 512)], w: f32[(512, 10)]) -> f32[("B", 10)]:
            return jnp.dot(x, w)
        """,
    "pkg/model.py": """
        import jax.numpy as jnp
        from . import layers


        def forward(w):
            h = jnp.zeros((32, 512))
            return layers.dense(h, w)
        """,
    "pkg/train.py": """
        import jax.numpy as jnp
        from .model import forward

        out = forward(jnp.zeros((512, 10)))
        """,
}


def test_cache_rechecks_model_when_layers_changes(tmp_path: Path) -> None:
    """Whole-project runs with a warm cache: an edit of layers.py re-checks model.py (which imports it) and
    train.py (which imports it through model.py); reverting the edit serves the first results again."""
    write(tmp_path, CHAIN)
    cache = tmp_path / "cachedir"
    assert codes(tmp_path, cache=cache) == set()
    layers = tmp_path / "pkg/layers.py"
    right = layers.read_text()
    layers.write_text(right.replace('f32[("B", 512)]', 'f32[("B", 256)]'))
    assert codes(tmp_path, cache=cache) == {("pkg/model.py", 8, "NC302"), ("pkg/layers.py", 7, "NC203")}
    layers.write_text(right)
    assert codes(tmp_path, cache=cache) == set()


@pytest.mark.slow
def test_generated_fifty_module_project(tmp_path: Path) -> None:
    """The project of bench/project_bench.py: clean; a changed return annotation in layers/dense.py is found
    at the call in train.py (three packages away) by a warm-cache run of the whole project."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "project_bench", Path(__file__).parent.parent / "bench/project_bench.py"
    )
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    files = bench.generate(tmp_path)
    assert len(list(tmp_path.rglob("*.py"))) >= 50
    cache = tmp_path / "cachedir"
    assert codes(tmp_path, cache=cache) == set()
    dense = files["layers"]
    dense.write_text(dense.read_text().replace('f32[("O",)]) -> f32[("B", "O")]', 'f32[("O",)]) -> f32[("B", 128)]'))
    assert codes(tmp_path, cache=cache) == {("src/bignet/train.py", 16, "NC301")}


def test_prose_that_looks_like_an_import_is_no_module(tmp_path) -> None:
    """A docstring line starting `import / ...` (prose) is not read as an import of a module named '/'."""
    import namedcheck.analyzer.project as project_registry
    from namedcheck.cli.config import Config
    from namedcheck.cli.main import run_check

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "notes.py").write_text('"""Kept unless it raised an\nimport / syntax error."""\nimport jax\n')
    (tmp_path / "model.py").write_text("import jax.numpy as jnp\n\nx = jnp.ones(3) + jnp.ones(4)\n")
    project_registry._PROJECTS.clear()
    assert [d.code for d in run_check([str(tmp_path / "model.py")], Config(), jobs=1)] == ["NC201"]


def test_a_modelled_library_is_its_own_source_only_in_its_repository(tmp_path: Path) -> None:
    """optax's package beside its pyproject.toml is the project's code (its tests reach its functions); a `jax` or
    `optax` folder elsewhere (a tests folder's) is still the library the checker models."""
    write(
        tmp_path,
        {
            "repo/pyproject.toml": "[project]\nname = 'optax'\n",
            "repo/optax/__init__.py": "",
            "repo/jax/__init__.py": "",
            "loose/optax/__init__.py": "",
        },
    )
    repo = ProjectIndex([tmp_path / "repo"])
    assert repo.has_top("optax.transform")
    assert not repo.has_top("jax.numpy")  # jax is always the model
    assert not ProjectIndex([tmp_path / "loose"]).has_top("optax")


def test_a_library_test_reaches_the_library_source(tmp_path: Path) -> None:
    """In a library's own repository a test's call reaches its function: a wrong shape there is reported in the
    library's file, where the same program against the installed library meets the model."""
    write(
        tmp_path,
        {
            "setup.py": "",
            "optax/__init__.py": "from optax.numerics import outer\n",
            "optax/numerics.py": """
                import jax.numpy as jnp


                def outer(a, b):
                    return jnp.dot(a, b)
            """,
            "tests/numerics_test.py": """
                import jax.numpy as jnp
                import optax


                def test_outer():
                    optax.outer(jnp.ones((3, 4)), jnp.ones((5, 2)))
            """,
        },
    )
    assert ("optax/numerics.py", 6, "NC203") in codes(tmp_path)


STORE = """
_entries = {}
WIDTH = {"n": 4}


def record(key):
    _entries[key] = True


def trigger(name):
    globals()[name]("k")  # a call the checker cannot follow
"""

USES_STORE = """
import jax.numpy as jnp

from pkg.store import WIDTH, _entries, trigger


def test_fill():
    _entries.clear()
    trigger("record")
    size = len(_entries)
    assert size > 0
    return jnp.ones(size)


def test_width():
    x = jnp.ones(WIDTH["n"])
    return x + jnp.ones(5)
"""


def test_a_module_level_value_its_functions_change_is_not_known_where_imported(tmp_path: Path) -> None:
    """`_entries`, a cache a function of its module fills, holds whatever ran before when another module reads
    it (a call the checker cannot follow filled it: the assert holds when the program runs); a value no
    function changes is known there as before (NC201 on a width of 4 against 5)."""
    write(tmp_path, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/store.py": STORE, "test_store.py": USES_STORE})
    assert codes(tmp_path) == {("test_store.py", 17, "NC201")}
