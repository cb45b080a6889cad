"""One analysis for every front end (analyzer/session.py): the editor, the changed-files run and `check -`
see the project as the whole-tree run does.

- the editor's diagnostics for each file of every project under tests/projects/ equal `namedcheck check .`'s
  for that file, whatever order the files are opened in;
- `namedcheck check <some files>` (pre-commit) reports every diagnostic the whole run finds in those files
  (what their importers cause there included) and what they cause elsewhere, never more than the whole run;
- `check -` of a buffer named by --stdin-filename is analysed in its project, its text read by its importers.
"""

from __future__ import annotations

import io
import json
import random
import sys
from pathlib import Path

import pytest

import namedcheck.analyzer.project as project_registry
from namedcheck.analyzer.incremental import DocumentAnalyser
from namedcheck.analyzer.session import Session
from namedcheck.cli.config import Config
from namedcheck.cli.main import main, run_check

PROJECTS = Path(__file__).parent / "projects"
NAMES = sorted(p.name for p in PROJECTS.iterdir() if p.is_dir() and not p.name.startswith("_"))


def _key(d: object) -> tuple[str, int, int, str, str]:
    return (str(Path(d.path).resolve()), d.line, d.column, d.code, d.message)  # type: ignore[attr-defined]


def _whole(project: Path) -> set[tuple[str, int, int, str, str]]:
    project_registry._PROJECTS.clear()
    return {_key(d) for d in run_check([str(project)], Config(), jobs=1)}


def _files(project: Path) -> list[Path]:
    return sorted(p.resolve() for p in project.rglob("*.py"))


@pytest.mark.parametrize("name", NAMES)
def test_editor_equals_the_whole_run_in_any_order(name: str) -> None:
    project = PROJECTS / name
    whole = _whole(project)
    files = _files(project)
    orders = [files, files[::-1], random.Random(name).sample(files, len(files))]
    for order in orders:
        project_registry._PROJECTS.clear()
        session = Session()
        for f in order:  # each file opened (its buffer in the session), then analysed as the server does
            text = f.read_text()
            session.set_text(f, text)
            got = {_key(d) for d in DocumentAnalyser(str(f), session=session).analyse(text).diagnostics}
            want = {k for k in whole if k[0] == str(f)}
            assert got == want, f"{f.name} opened in order {[p.name for p in order]}"


@pytest.mark.parametrize("name", [n for n in NAMES if n.endswith("_bugs")])
def test_changed_files_run_reports_what_the_files_cause_and_suffer(name: str) -> None:
    project = PROJECTS / name
    whole = _whole(project)
    assert whole, "a _bugs project has diagnostics"
    for f in _files(project):
        project_registry._PROJECTS.clear()
        got = {_key(d) for d in run_check([str(f)], Config(), jobs=1)}
        located = {k for k in whole if k[0] == str(f)}
        assert located <= got <= whole, f.name


LAYERS = """import jax.numpy as jnp


def dense(x, w):
    return x @ w
"""
TRAIN = """import jax.numpy as jnp

from pkg.layers import dense


def step():
    x = jnp.ones((4, 8))
    w = jnp.ones((5, 3))
    return dense(x, w)
"""


def _package(root: Path) -> None:
    (root / "pkg").mkdir()
    (root / "pkg/__init__.py").write_text("")
    (root / "pkg/layers.py").write_text(LAYERS)
    (root / "pkg/train.py").write_text(TRAIN)


def _cli_json(
    argv: list[str], stdin: str | None = None, monkeypatch: pytest.MonkeyPatch | None = None, cache: bool = False
) -> list:
    out = io.StringIO()
    if stdin is not None and monkeypatch is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    old = sys.stdout
    sys.stdout = out
    try:
        main(["check", *([] if cache else ["--no-cache"]), "--format", "json", *argv])
    finally:
        sys.stdout = old
    return json.loads(out.getvalue())


def test_precommit_of_the_caller_fails_on_the_bug_it_causes_in_the_callee(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _package(tmp_path)
    monkeypatch.chdir(tmp_path)
    project_registry._PROJECTS.clear()
    for given in (["pkg/train.py"], ["pkg/layers.py"], ["."]):
        got = [(Path(d["path"]).as_posix().removeprefix("./"), d["line"], d["code"]) for d in _cli_json(given)]
        assert got == [("pkg/layers.py", 5, "NC203")], given


def test_stdin_buffer_is_analysed_in_its_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _package(tmp_path)
    monkeypatch.chdir(tmp_path)
    project_registry._PROJECTS.clear()
    # the callee's buffer: what the caller on disk causes in it
    got = _cli_json(["--stdin-filename", "pkg/layers.py", "-"], LAYERS, monkeypatch)
    assert [(d["path"], d["line"], d["code"]) for d in got] == [("pkg/layers.py", 5, "NC203")]
    # an edited callee buffer that takes the caller's shapes: the caller reads the buffer, not the disk
    fixed = LAYERS.replace("return x @ w", "return x.sum() * w.sum()")
    project_registry._PROJECTS.clear()
    assert _cli_json(["--stdin-filename", "pkg/layers.py", "-"], fixed, monkeypatch) == []
    # the caller's buffer: what its call causes in the callee
    project_registry._PROJECTS.clear()
    got = _cli_json(["--stdin-filename", "pkg/train.py", "-"], TRAIN, monkeypatch)
    assert [(Path(d["path"]).name, d["line"], d["code"]) for d in got] == [("layers.py", 5, "NC203")]


def test_session_importers_follow_imports_transitively(tmp_path: Path) -> None:
    _package(tmp_path)
    (tmp_path / "pkg/main.py").write_text("from pkg.train import step\nstep()\n")
    project_registry._PROJECTS.clear()
    session = Session(roots=[str(tmp_path)])
    names = {p.name for p in session.importers([tmp_path / "pkg/layers.py"])}
    assert names == {"train.py", "main.py"}
    assert session.importers([tmp_path / "pkg/main.py"]) == []


CALLER = """import jax.numpy as jnp

from {module} import dense


def step():
    return dense(jnp.ones((4, 8)), jnp.ones((5, 3)))
"""
NO_JAX_CALLER = """from pkg.data import batch, weights
from pkg.layers import dense


def main():
    return dense(batch(), weights())
"""
DATA = """import jax.numpy as jnp


def batch():
    return jnp.ones((4, 8))


def weights():
    return jnp.ones((5, 3))
"""
# (layout, the callee's path): layouts where finding the callee's importers once went wrong
LAYOUTS = {
    "namespace_package": (
        {"pyproject.toml": "", "ns/sub/layers.py": LAYERS, "main.py": CALLER.format(module="ns.sub.layers")},
        "ns/sub/layers.py",
    ),
    "script_not_a_module_name": (
        {
            "pyproject.toml": "",
            "src/pkg/__init__.py": "",
            "src/pkg/layers.py": LAYERS,
            "tests/unit-tests/test-train.py": CALLER.format(module="pkg.layers"),
        },
        "src/pkg/layers.py",
    ),
    "package_named_env": (
        {
            "pkg/__init__.py": "",
            "pkg/layers.py": LAYERS,
            "env/__init__.py": "",
            "env/rollout.py": CALLER.format(module="pkg.layers"),
        },
        "pkg/layers.py",
    ),
    "caller_without_jax_text": (
        {"pkg/__init__.py": "", "pkg/layers.py": LAYERS, "pkg/data.py": DATA, "pkg/run.py": NO_JAX_CALLER},
        "pkg/layers.py",
    ),
}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_every_front_end_finds_the_callers_the_whole_run_finds(
    layout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files, callee = LAYOUTS[layout]
    _write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    want = [(callee, 5, "NC203")]

    def seen(diags: list) -> list:
        return [(Path(d["path"]).as_posix().removeprefix("./"), d["line"], d["code"]) for d in diags]

    for given in (["."], [callee]):
        project_registry._PROJECTS.clear()
        assert seen(_cli_json(given)) == want, given
    project_registry._PROJECTS.clear()
    assert seen(_cli_json(["--stdin-filename", callee, "-"], files[callee], monkeypatch)) == want
    project_registry._PROJECTS.clear()
    text = (tmp_path / callee).read_text()
    got = DocumentAnalyser(str(tmp_path / callee)).analyse(text).diagnostics
    assert [(d.line, d.code) for d in got] == [(5, "NC203")]


def test_an_excluded_importer_is_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _package(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.namedcheck]\nexclude = ["pkg/train.py"]\n')
    monkeypatch.chdir(tmp_path)
    for given in (["."], ["pkg/layers.py"]):
        project_registry._PROJECTS.clear()
        assert _cli_json(given) == [], given


def test_cached_results_name_other_files_from_any_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _package(tmp_path)
    train = str(tmp_path / "pkg/train.py")

    def run() -> list:
        out = io.StringIO()
        old, sys.stdout = sys.stdout, out
        try:
            main(["check", "--format", "json", "--config-root", str(tmp_path), train])
        finally:
            sys.stdout = old
        return [(str(Path(d["path"]).resolve()), d["line"], d["code"]) for d in json.loads(out.getvalue())]

    want = [(str((tmp_path / "pkg/layers.py").resolve()), 5, "NC203")]
    monkeypatch.chdir(tmp_path)
    project_registry._PROJECTS.clear()
    assert run() == want  # fills the cache
    monkeypatch.chdir(tmp_path / "pkg")
    project_registry._PROJECTS.clear()
    assert run() == want  # read from the cache in another directory
    # the callee alone (its importer train.py runs as context): the notes name train.py from here, cached or not
    for where in (tmp_path, tmp_path / "pkg", tmp_path / "pkg"):
        monkeypatch.chdir(where)
        project_registry._PROJECTS.clear()
        got = _cli_json(["--config-root", str(tmp_path), str(tmp_path / "pkg/layers.py")], cache=True)
        notes = [Path(r["path"]).resolve() for d in got for r in d["related"]]
        assert notes and all(p == (tmp_path / "pkg/train.py").resolve() for p in notes), (where, got)


def test_editor_forgets_replays_when_an_imported_buffer_changes(tmp_path: Path) -> None:
    _package(tmp_path)
    train, layers = tmp_path / "pkg/train.py", tmp_path / "pkg/layers.py"
    uses = TRAIN.replace("    return dense(x, w)\n", "    y = dense(x, w)\n    return y + jnp.ones((4, 5))\n")
    fits = LAYERS.replace("return x @ w", "return jnp.ones((4, 5))")
    project_registry._PROJECTS.clear()
    session = Session(editor=True)
    session.set_text(train, uses)
    editor = DocumentAnalyser(str(train), session=session)
    assert [d.code for d in editor.analyse(uses).diagnostics] == []  # dense(x, w) fails: its result Unknown
    session.set_text(layers, LAYERS.replace("return x @ w", "return jnp.ones((4, 6))"))
    editor.last = None
    assert [(d.line, d.code) for d in editor.analyse(uses).diagnostics] == [(10, "NC201")]
    session.set_text(layers, fits)  # the callee's buffer changes: the caller's replay must not be reused
    editor.last = None
    assert editor.analyse(uses).diagnostics == []


def test_an_unsaved_suppression_hides_what_a_caller_causes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _package(tmp_path)
    monkeypatch.chdir(tmp_path)
    project_registry._PROJECTS.clear()
    quiet = LAYERS.replace("return x @ w", "return x @ w  # namedcheck: ignore[NC203]")
    assert _cli_json(["--stdin-filename", "pkg/layers.py", "-"], quiet, monkeypatch) == []


def test_a_stdin_filename_that_is_a_directory_is_no_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    got = _cli_json(
        ["--stdin-filename", ".", "-"], "import jax.numpy as jnp\nx = jnp.ones(3) + jnp.ones(4)\n", monkeypatch
    )
    assert [d["code"] for d in got] == ["NC201"]


PLACED = """import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit, AxisType.Explicit))


def make():
    return jax.device_put(jnp.ones((8, 16)), NamedSharding(mesh, P(None, "data")))
"""
USE = """import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

from pkg.placed import make, mesh


def run():
    x = make()
    w = jax.device_put(jnp.ones((16, 4)), NamedSharding(mesh, P("data", None)))
    return x @ w
"""


def test_cached_notes_name_a_third_file_from_any_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cached result's related locations in another file are read back relative to the run's directory."""
    _write(
        tmp_path,
        {
            "pyproject.toml": "",
            "pkg/__init__.py": "",
            "pkg/placed.py": PLACED,
            "pkg/sub/__init__.py": "",
            "pkg/sub/use.py": USE,
        },
    )
    placed = (tmp_path / "pkg/placed.py").resolve()
    for where in (tmp_path, tmp_path / "pkg", tmp_path / "pkg/sub"):
        monkeypatch.chdir(where)
        project_registry._PROJECTS.clear()
        got = _cli_json(["--config-root", str(tmp_path), str(tmp_path / "pkg/sub/use.py")], cache=True)
        notes = [Path(r["path"]).resolve() for d in got for r in d["related"] if "`x`" in r["message"]]
        assert notes == [placed], (where, got)
