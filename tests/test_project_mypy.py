"""The mypy plugin follows calls into other modules of the project as the CLI does: a call of a
function imported from another module is typed (`reveal_type`) and checked against its signature."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

mypy_api = pytest.importorskip("mypy.api")

pytestmark = pytest.mark.slow  # runs mypy and dmypy over projects

LAYERS = """\
from namedcheck import f32


def head(x: f32[("B", 512)], w: f32[(512, 10)]) -> f32[("B", 10)]:
    return x @ w


def scale(x):
    return x * 2.0
"""

TRAIN = """\
import jax.numpy as jnp
from namedcheck import f32  # noqa: F401  (types change where namedcheck is imported)
from .layers import head, scale

h = jnp.zeros((32, 256))
w = jnp.zeros((512, 10))
y = head(h, w)
reveal_type(head(jnp.zeros((4, 512)), w))
reveal_type(scale(jnp.zeros((3, 2))))
"""


def test_plugin_types_and_checks_cross_module_calls(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "layers.py").write_text(LAYERS)
    (pkg / "train.py").write_text(TRAIN)
    cfg = tmp_path / "mypy.ini"
    cfg.write_text(
        textwrap.dedent("""\
        [mypy]
        check_untyped_defs = True
        show_column_numbers = True
        plugins = namedcheck_mypy
        [mypy-namedcheck.*]
        follow_imports = silent
    """)
    )
    out, err, _ = mypy_api.run(
        ["--config-file", str(cfg), "--cache-dir", str(tmp_path / "cache"), "--no-error-summary", str(pkg)]
    )
    assert "Traceback" not in out + err, out + err
    train = [ln.split(":", 1)[1] for ln in out.splitlines() if ln.startswith(str(pkg / "train.py"))]
    text = "\n".join(train)
    assert any(ln.startswith("7:") and "[NC302]" in ln for ln in train), text
    assert any(ln.startswith("8:") and "f32[(4, 10)]" in ln for ln in train), text
    assert any(ln.startswith("9:") and "f32[(3, 2)]" in ln for ln in train), text


# ---- the test projects: mypy with the plugin reports what the CLI reports, file by file ----------------

PROJECTS = Path(__file__).parent / "projects"
BUGS = sorted(p.name for p in PROJECTS.iterdir() if p.name.endswith("_bugs"))
_CONFIG = """\
[mypy]
check_untyped_defs = True
ignore_missing_imports = True
plugins = namedcheck_mypy
[mypy-namedcheck.*]
follow_imports = silent
"""


def _package(project: Path) -> Path:
    root = project / "src" if (project / "src").is_dir() else project
    return next(p for p in sorted(root.iterdir()) if (p / "__init__.py").is_file())


def _cli(project: Path) -> set[tuple[str, int, str]]:
    import namedcheck.analyzer.project as project_registry
    from namedcheck.cli.config import Config
    from namedcheck.cli.main import run_check

    project_registry._PROJECTS.clear()
    return {(str(Path(d.path).resolve()), d.line, d.code) for d in run_check([str(project)], Config(), jobs=1)}


def _plugin(project: Path, cache: Path) -> set[tuple[str, int, str]]:
    import re

    cfg = cache.parent / "mypy.ini"
    cfg.write_text(_CONFIG)
    out, err, _ = mypy_api.run(
        ["--config-file", str(cfg), "--cache-dir", str(cache), "--no-error-summary", str(_package(project))]
    )
    assert "Traceback" not in out + err, out + err
    got = set()
    for ln in out.splitlines():
        m = re.match(r"(.+?):(\d+): error: .*\[(NC\d+)\]$", ln)
        if m:
            got.add((str(Path(m[1]).resolve()), int(m[2]), m[3]))
    return got


def _cause(project: Path, right_project: Path) -> Path:
    """The module whose code (not its `# expect:` comments) the bug project changes: the caller (train.py)
    where it does, else the first such module (a config)."""
    import re

    def code(path: Path) -> str:
        return re.sub(r"\s*# expect:.*", "", path.read_text())

    package, right = _package(project), _package(right_project)
    changed = [f for f in sorted(package.rglob("*.py")) if code(f) != code(right / f.relative_to(package))]
    return next((f for f in changed if f.name == "train.py"), changed[0])


@pytest.mark.parametrize("name", BUGS)
def test_plugin_reports_the_cli_diagnostics_cold_and_after_editing_the_caller(name: str, tmp_path: Path) -> None:
    """Each bug project: mypy with the plugin reports exactly the CLI's (file, line, code) set, with an
    empty cache and then from a warm cache after editing only the cause (the caller, train.py, or a config:
    to the right project's version, which removes diagnostics inside the modules it reaches, and back)."""
    import shutil

    project = tmp_path / name
    shutil.copytree(PROJECTS / name, project)
    cache = tmp_path / "cache"
    caller = _cause(project, PROJECTS / name.removesuffix("_bugs"))
    buggy = caller.read_text()
    right = (_package(PROJECTS / name.removesuffix("_bugs")) / caller.relative_to(_package(project))).read_text()
    assert buggy != right
    want = _cli(project)
    assert any(Path(f) != caller.resolve() for f, _, _ in want)  # diagnostics the cause makes elsewhere
    assert _plugin(project, cache) == want, "cold"
    for text, when in ((right, "warm, caller fixed"), (buggy, "warm, caller broken again")):
        caller.write_text(text)
        want = _cli(project)
        assert _plugin(project, cache) == want, when


_BLOCK = "import jax.numpy as jnp\n\n\ndef block(x, w):\n    return jnp.dot(x, w)\n"
_CALLER = "import jax.numpy as jnp\n\nfrom .layers import block\n\ny = block(jnp.zeros((4, {n})), jnp.zeros((8, 2)))\n"


def test_a_caller_fresh_in_the_cache_still_counts(tmp_path: Path) -> None:
    """Editing one caller makes mypy check the callee again; the other caller, fresh in mypy's cache and
    not checked, still causes its diagnostic inside the callee (the worker analyses it too)."""
    project = tmp_path / "proj"
    pkg = project / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "layers.py").write_text(_BLOCK)
    (pkg / "a.py").write_text(_CALLER.format(n=3))  # a shape clash inside layers.py
    (pkg / "b.py").write_text(_CALLER.format(n=8))
    cache = tmp_path / "cache"
    layers = str((pkg / "layers.py").resolve())
    want = _cli(project)
    assert (layers, 5, "NC203") in want
    assert _plugin(project, cache) == want
    (pkg / "b.py").write_text(_CALLER.format(n=5))  # now b's call clashes too (the same line of layers.py)
    want = _cli(project)
    assert _plugin(project, cache) == want
    (pkg / "b.py").write_text(_CALLER.format(n=8) + "# edited\n")
    assert _plugin(project, cache) == _cli(project) == {(layers, 5, "NC203")}


@pytest.mark.xfail(
    strict=True,
    reason="dmypy's fine-grained update does not check a module again when only "
    "a module importing it changed, so the callee keeps its old report",
)
def test_dmypy_after_editing_only_the_caller(tmp_path: Path) -> None:
    import subprocess
    import sys

    project = tmp_path / "proj"
    pkg = project / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "layers.py").write_text(_BLOCK)
    (pkg / "a.py").write_text(_CALLER.format(n=3))
    (project / "mypy.ini").write_text(_CONFIG)
    dmypy = [sys.executable, "-m", "mypy.dmypy", "--status-file", str(tmp_path / "dmypy.json")]

    def run() -> str:
        done = subprocess.run(
            [*dmypy, "run", "--", "--config-file", "mypy.ini", "pkg"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=600,
        )
        return done.stdout + done.stderr

    try:
        assert "layers.py:5: error" in run()
        (pkg / "a.py").write_text(_CALLER.format(n=8))  # the caller fixed
        assert "NC203" not in run()
    finally:
        subprocess.run([*dmypy, "kill"], cwd=project, capture_output=True, timeout=60)
