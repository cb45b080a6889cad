"""Whole-project runs share work between checked files: one project for the run's roots (a script's directory
adds a root on top of it), and a dependency's complete call analyses kept from one checked file to the next,
their diagnostics replayed into each file's result."""

from __future__ import annotations

import textwrap
from pathlib import Path

import namedcheck.analyzer.project as project_registry
from namedcheck.analyzer.module import MAX_CALL_DEPTH
from namedcheck.analyzer.project import project_for
from namedcheck.cli.config import Config
from namedcheck.cli.main import run_check
from namedcheck.cli.runner import Job, check_file


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


def codes(root: Path, paths: list[str], cache: Path | None = None) -> set[tuple[str, int, str]]:
    project_registry._PROJECTS.clear()
    diags = run_check([str(root / p) for p in paths], Config(), jobs=1, cache_root=cache)
    return {(Path(d.path).resolve().relative_to(root.resolve()).as_posix(), d.line, d.code) for d in diags}


LAYERS = """
import jax.numpy as jnp


def mix(x, w):
    return jnp.dot(x, w)
"""

CALLER = """
import jax.numpy as jnp
from pkg.layers import mix

y = mix(jnp.zeros((3, {k})), jnp.zeros((5, 2)))
"""


def test_each_checked_file_holds_what_its_memoised_call_finds(tmp_path: Path) -> None:
    """train.py and eval.py make the same bad call: the second file's analysis reuses the first's analysis
    of `mix`, and its result still holds the diagnostic inside layers.py."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/layers.py": LAYERS,
            "pkg/train.py": CALLER.format(k=4),
            "pkg/eval.py": CALLER.format(k=4),
        },
    )
    project_registry._PROJECTS.clear()
    found = []
    for name in ("train.py", "eval.py"):
        path = tmp_path / "pkg" / name
        result = check_file(Job(str(path), str(path), (), None, Config().limits, (str(tmp_path),)))
        found.append({(Path(d.path).name, d.line, d.code) for d in result})
    assert found[0] == found[1] == {("layers.py", 6, "NC203")}


def test_cached_result_of_a_file_keeps_the_replayed_diagnostic(tmp_path: Path) -> None:
    """With the result cache: after train.py's call is fixed, eval.py's cached result (analysed after
    train.py in the same process) still reports the bug its own call causes in layers.py."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/layers.py": LAYERS,
            "pkg/train.py": CALLER.format(k=4),
            "pkg/eval.py": CALLER.format(k=4),
        },
    )
    cache = tmp_path / "cachedir"
    paths = ["pkg/train.py", "pkg/eval.py", "pkg/layers.py"]
    assert codes(tmp_path, paths, cache) == {("pkg/layers.py", 6, "NC203")}
    (tmp_path / "pkg/train.py").write_text(textwrap.dedent(CALLER.format(k=5)))
    assert codes(tmp_path, paths, cache) == {("pkg/layers.py", 6, "NC203")}
    (tmp_path / "pkg/eval.py").write_text(textwrap.dedent(CALLER.format(k=5)))
    assert codes(tmp_path, paths, cache) == set()


def _chain(n: int) -> str:
    """f0 -> f1 -> ... -> f{n-1}, the last contracting its argument with a (5, 2) array."""
    out = ["import jax.numpy as jnp", ""]
    for i in range(n - 1):
        out += [f"def f{i}(x):", f"    return f{i + 1}(x)", ""]
    out += [f"def f{n - 1}(x):", "    return jnp.dot(x, jnp.zeros((5, 2)))", ""]
    return "\n".join(out)


def test_a_call_analysis_cut_short_by_depth_is_not_reused(tmp_path: Path) -> None:
    """a.py reaches the bug only past the call-depth bound (its analysis of the chain is partial); b.py,
    checked after it in the same process, enters the chain near its end and must still find the bug."""
    n = MAX_CALL_DEPTH + 3
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/chain.py": _chain(n),
            "pkg/a.py": "import jax.numpy as jnp\nfrom pkg.chain import f0\ny = f0(jnp.zeros((3, 4)))\n",
            "pkg/b.py": f"import jax.numpy as jnp\nfrom pkg.chain import f{n - 4}\ny = f{n - 4}(jnp.zeros((3, 4)))\n",
        },
    )
    want = {("pkg/chain.py", 3 * n + 1, "NC203")}
    assert codes(tmp_path, ["pkg/a.py"]) == set()
    # chain.py given: its importer b.py runs too (after a.py) and what it causes inside chain.py is found
    assert codes(tmp_path, ["pkg/a.py", "pkg/chain.py"]) == want
    assert codes(tmp_path, ["pkg/b.py", "pkg/chain.py"]) == want
    assert codes(tmp_path, ["pkg/a.py", "pkg/b.py", "pkg/chain.py"]) == want


def test_a_scripts_project_shares_the_runs_modules(tmp_path: Path) -> None:
    """scripts/ has no __init__.py: its files import their siblings by bare name (a root of their own) and the
    package; the package's modules are loaded once, by the project of the run's roots."""
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/layers.py": LAYERS,
            "pkg/train.py": CALLER.format(k=5),
            "scripts/helpers.py": "import jax.numpy as jnp\n\ndef widen(x):\n    return x @ jnp.zeros((7, 2))\n",
            "scripts/run.py": "import jax.numpy as jnp\nfrom helpers import widen\nfrom pkg.layers import mix\n"
            "a = widen(jnp.zeros((3, 6)))\nb = mix(jnp.zeros((3, 4)), jnp.zeros((5, 2)))\n",
        },
    )
    project_registry._PROJECTS.clear()
    roots = [str(tmp_path)]
    script = project_for(tmp_path / "scripts/run.py", (), roots)
    package = project_for(tmp_path / "pkg/train.py", (), roots)
    assert script is not None and package is not None
    assert script.base is package and package.base is None
    assert codes(tmp_path, ["."]) == {("scripts/helpers.py", 4, "NC203"), ("pkg/layers.py", 6, "NC203")}


def test_past_the_memory_mark_a_process_starts_afresh(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Over `RETAIN_MB` of resident memory, what was kept for earlier files is let go before the next one: the
    results are the same, each module is loaded again as needed."""
    monkeypatch.setattr(project_registry, "RETAIN_MB", 0)
    monkeypatch.setattr(project_registry, "_LEFT_RESIDENT", [0.0])
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/layers.py": LAYERS,
            "pkg/train.py": CALLER.format(k=4),
            "pkg/eval.py": CALLER.format(k=4),
        },
    )
    assert codes(tmp_path, ["pkg/train.py", "pkg/eval.py", "pkg/layers.py"]) == {("pkg/layers.py", 6, "NC203")}
    project = project_for(tmp_path / "pkg/train.py", (), [str(tmp_path / "pkg/train.py")])
    assert project is not None
    assert project.load("pkg.layers") is not None and project.loaded
    # (the runs above left their own mark: the process may have shrunk below it since, as the collector and
    # other tests' processes go; the release asked for here is past a mark of 0)
    monkeypatch.setattr(project_registry, "_LEFT_RESIDENT", [0.0])
    project.let_go_if_grown()
    assert project.loaded == {} and project.parsed == {}


def test_a_release_lets_go_of_the_memos_and_waits_for_growth(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A release empties the module-level memos (they keep values alive, and through them whole modules), and
    the next one waits until the process has grown again: memory the allocator kept is no reason to release
    (and re-parse) before every file."""
    from namedcheck.analyzer import iteration
    from namedcheck.engine.values import Seq

    monkeypatch.setattr(project_registry, "RETAIN_MB", 40)
    monkeypatch.setattr(project_registry, "_LEFT_RESIDENT", [0.0])
    write(tmp_path, {"pkg/__init__.py": "", "pkg/layers.py": LAYERS, "pkg/train.py": CALLER.format(k=4)})
    project = project_for(tmp_path / "pkg/train.py", (), [str(tmp_path / "pkg/train.py")])
    assert project is not None
    assert project.load("pkg.layers") is not None
    iteration.weight(Seq((1, 2)))
    assert iteration._WEIGHTS
    assert project.let_go_if_grown() >= 0.0  # this process is past 40 MB: everything goes
    assert project.loaded == {} and not iteration._WEIGHTS
    assert project_registry._LEFT_RESIDENT[0] > 0
    assert project.load("pkg.layers") is not None
    assert project.let_go_if_grown() == 0.0  # grown by far less than 10 MB since: kept
    assert "pkg.layers" in project.loaded


def test_letting_go_is_not_the_checked_files_time(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A process past its memory mark lets go of what it kept before the next checked file, and the collection
    that frees it (tens of seconds in a large process: a test runner that ran mypy in process, an editor) is not
    charged to the file's time budget: the file is checked whole. (It was: the file's diagnostics were lost, in
    the parallel test suite `check` of a notebook found nothing, and a whole-project run of a bug project none.)"""
    import time

    from namedcheck.analyzer.budget import Limits
    from namedcheck.analyzer.session import Session

    monkeypatch.setattr(project_registry, "RETAIN_MB", 0)
    monkeypatch.setattr(project_registry, "_LEFT_RESIDENT", [0.0])
    slow: list[float] = []

    def slow_collect(*_args: object) -> int:  # a collection of a large heap
        slow.append(time.monotonic())
        time.sleep(1.5)
        return 0

    monkeypatch.setattr(project_registry.gc, "collect", slow_collect)
    write(tmp_path, {"pkg/__init__.py": "", "pkg/layers.py": LAYERS, "pkg/train.py": CALLER.format(k=4)})
    project_registry._PROJECTS.clear()
    train = tmp_path / "pkg/train.py"
    result = Session(limits=Limits(time_budget=1.0), roots=[str(train)]).check(train, train.read_text(), force=True)
    assert slow  # (the release ran, in the file's check)
    assert result.complete
    assert {(Path(d.path).name, d.line, d.code) for d in result.all} == {("layers.py", 6, "NC203")}
