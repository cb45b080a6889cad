"""Warm runs cost what changed: file facts kept across runs, dependency fingerprints computed once per module
per run (and equal to the naive transitive walk), cache hits decided before any worker starts, results cut
short by a budget cached with the budgets in their key."""

from __future__ import annotations

import hashlib
import json
import os
import random
import time
from pathlib import Path

import pytest

from namedcheck.analyzer import filefacts
from namedcheck.analyzer.filefacts import FACTS_FILE, FactTable, import_statements
from namedcheck.analyzer.project import Project
from namedcheck.analyzer.session import Session
from namedcheck.cli import runner
from namedcheck.cli.main import main

HEADER = "import jax.numpy as jnp\nfrom namedcheck import Array, Dims, f32\n"
BAD = HEADER + "\n\ndef f(x: f32[Array, Dims(3, 4)], y: f32[Array, Dims(5)]):\n    return x + y\n"  # NC201, line 6


def _old(path: Path) -> None:
    """Gives a file an mtime a few seconds back (settled: the fact table saves it)."""
    past = time.time_ns() - 10 * 10**9
    os.utime(path, ns=(past, past))


def test_import_statements_never_miss_an_import() -> None:
    text = (
        "import a, b as c\n"
        "from . import (d,\n    e)\n"
        "if TYPE_CHECKING: import f\n"
        "x = 1; import g\n"
        "from h import \\\n    i\n"
        "try: from j import k\nexcept ImportError: pass\n"
    )
    got = import_statements(text)
    for name in ("import a, b as c", "from . import (d,\n    e)", "import f", "import g", "from h import      i"):
        assert name in got, name
    assert "from j import k" in got


def test_facts_are_read_once_while_the_stamp_holds(tmp_path, monkeypatch) -> None:
    f = tmp_path / "m.py"
    f.write_text("import os\n")
    table = FactTable()
    reads: list[str] = []
    real = FactTable._read

    def counted(path: str, stamp: tuple[int, int]) -> filefacts.Facts:
        reads.append(path)
        return real(path, stamp)

    monkeypatch.setattr(FactTable, "_read", staticmethod(counted))
    first = table.facts(f)
    assert first.digest == hashlib.sha256(b"import os\n").digest() and first.imports == "import os"
    assert table.facts(f) is first and len(reads) == 1
    f.write_text("import sys, os\n")
    assert table.facts(f).imports == "import sys, os" and len(reads) == 2
    with table.run():  # inside a run a file is stat'ed once: a change after that is seen by `fresh` only
        seen = table.facts(f)
        f.write_text("import json  # longer than before\n")
        assert table.facts(f) is seen and not table.current(f)
        assert table.fresh(f).imports == "import json"
    assert table.facts(f).imports == "import json"


def test_facts_survive_a_run_and_a_damaged_file_is_ignored(tmp_path) -> None:
    f = tmp_path / "m.py"
    f.write_text("import os\n")
    _old(f)
    cache = tmp_path / "cache"
    table = FactTable()
    table.facts(f)
    table.save(cache)
    again = FactTable()
    again.load(cache)
    assert len(again) == 1 and again.facts(f) == table.facts(f)
    fresh = tmp_path / "n.py"
    fresh.write_text("import sys\n")  # modified just now: not saved (a second edit in its mtime tick)
    table.facts(fresh)
    table.changed = True
    table.save(cache)
    assert str(fresh) not in json.loads((cache / FACTS_FILE).read_text())["files"]
    for damaged in (b"\x00", b"[]", b'{"version": 1, "files": {"x": [1]}}', b'{"version": 2, "files": {}}'):
        (cache / FACTS_FILE).write_bytes(damaged)
        broken = FactTable()
        broken.load(cache)
        assert broken.facts(f).imports == "import os"


def _naive_fingerprint(project: Project, path: Path) -> str:
    """The transitive walk a fingerprint stands for: every readable project module reached through imports
    and packages, hashed with its bytes (the definition the memoised computation must equal)."""
    named = project.index.module_name(path)
    todo = list(project.imported_modules(path, *(named or (None, False))))
    seen: set[str] = set()
    digests = []
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        f = project.index.module_file(m)
        if f is None:
            continue
        digests.append(m.encode() + b"\0" + hashlib.sha256(f.read_bytes()).digest())
        todo.extend(project.imported_modules(f, m, f.name == "__init__.py"))
        if "." in m:
            todo.append(m.rpartition(".")[0])
    return hashlib.sha256(b"\n".join(sorted(digests))).hexdigest() if digests else ""


@pytest.mark.parametrize("seed", range(6))
def test_fingerprints_equal_the_naive_walk_on_graphs_with_cycles(tmp_path, seed) -> None:
    rng = random.Random(seed)
    (tmp_path / "pyproject.toml").write_text("")
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from pkg import m0\n")
    names = [f"pkg.m{i}" if i % 3 else f"pkg.sub.m{i}" for i in range(12)]
    for i, name in enumerate(names):
        deps = rng.sample(names, rng.randint(0, 3))
        body = "".join(f"import {d}\n" for d in deps) + f"X{i} = {i}\n"
        Path(tmp_path, *name.split(".")).with_suffix(".py").write_text(body)
    from namedcheck.analyzer.filefacts import FACTS

    session = Session()
    for name in names:
        path = Path(tmp_path, *name.split(".")).with_suffix(".py")
        project = session.project(path)
        assert project is not None
        expected = _naive_fingerprint(project, path)
        assert project.dependency_fingerprint(path) == expected
        with FACTS.run():
            assert project.dependency_fingerprint(path) == expected
            assert project.dependency_fingerprint(path, fresh=True) == expected


def _tree(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "sizes.py").write_text("N = 3\n")
    (pkg / "model.py").write_text(
        HEADER + "from pkg.sizes import N\n\n\ndef f(x: f32[Array, Dims(3)]):\n    return x\n\n\nf(jnp.zeros((N,)))\n"
    )
    for i in range(10):
        (pkg / f"other{i}.py").write_text(BAD)
    for f in tmp_path.rglob("*.py"):
        _old(f)


def _new_process() -> None:
    """What a new process of the command starts without: projects, sessions and file facts."""
    from namedcheck.analyzer import project, session

    for memo in (project._PROJECTS, project._RUN_PROJECTS, project._WALKS, project._LISTINGS, project._RESOLVED):
        memo.clear()
    session._SESSIONS.clear()
    filefacts.FACTS._by_path.clear()


def _analysed(monkeypatch) -> list[str]:
    """The files a run analyses (a cache hit is not analysed)."""
    seen: list[str] = []
    real = Session.check

    def counted(self, path, source=None, display=None, *args, **kwargs):
        seen.append(Path(str(path)).name)
        return real(self, path, source, display, *args, **kwargs)

    monkeypatch.setattr(Session, "check", counted)
    return seen


def test_a_warm_run_analyses_nothing_and_an_edit_what_depends_on_it(tmp_path, monkeypatch, capsys) -> None:
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "_in_pool", lambda todo, jobs, record: [runner.check_file(j) for j in todo])
    assert main(["check", "--format", "json", "."]) == 1
    cold = capsys.readouterr().out
    assert (tmp_path / ".namedcheck_cache" / FACTS_FILE).is_file()
    analysed = _analysed(monkeypatch)
    read: list[str] = []
    real_read = FactTable._read
    monkeypatch.setattr(FactTable, "_read", staticmethod(lambda p, s: read.append(p) or real_read(p, s)))
    _new_process()  # the facts come from the saved file
    assert main(["check", "--format", "json", "."]) == 1
    assert capsys.readouterr().out == cold
    assert analysed == [] and read == []  # no analysis, and no file read for its imports or digest
    (tmp_path / "pkg" / "sizes.py").write_text("N = 4\n")
    _new_process()
    assert main(["check", "--format", "json", "."]) == 1
    assert analysed == ["model.py"]  # the importer of the edited module (itself holds nothing to check)
    assert [d["line"] for d in json.loads(capsys.readouterr().out) if d["path"].endswith("model.py")] == [10]


def test_a_result_cut_by_its_budget_is_cached_with_its_budget(tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\ntime-budget = 0.2\n")
    body = "".join(f"v{i} = jnp.zeros(({i}, 3)) + jnp.ones((3,))\n" for i in range(1, 3000))
    (tmp_path / "slow.py").write_text("import jax.numpy as jnp\n" + body)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--format", "json", "slow.py"]) == 0  # a note: it does not fail the run
    first = json.loads(capsys.readouterr().out)
    assert [d["code"] for d in first] == ["NC001"] and first[0]["severity"] == "note"
    analysed = _analysed(monkeypatch)
    assert main(["check", "--format", "json", "slow.py"]) == 0
    assert json.loads(capsys.readouterr().out) == first and analysed == []
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\ntime-budget = 30\n")
    assert main(["check", "--format", "json", "slow.py"]) == 0
    assert json.loads(capsys.readouterr().out) == [] and analysed == ["slow.py"]


def test_an_analysing_process_collects_cycles_less_often(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """The command line sets the collector as an analysis needs (young collections every `COLLECT_AFTER`
    allocations, not CPython's 700: its nodes and values live for the whole run), and a result is the same."""
    import gc

    from namedcheck.analyzer.memo import COLLECT_AFTER

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        (tmp_path / "bad.py").write_text(BAD)
        assert main(["check", "--no-cache", str(tmp_path / "bad.py")]) == 1
        assert "NC201" in capsys.readouterr().out
        assert gc.get_threshold() == (COLLECT_AFTER, 30, 30)
    finally:
        gc.set_threshold(*before)


def test_a_tests_result_follows_its_conftests(tmp_path, monkeypatch, capsys) -> None:
    """A test's fixtures come from its `conftest.py` (not an import) and its JAX flags from the conftests and the
    project's other test modules: an edit there re-checks it, where a cached result used to stay stale."""
    (tmp_path / "pyproject.toml").write_text("")
    tests = tmp_path / "tests"
    tests.mkdir()
    fixture = "import jax.numpy as jnp\nimport pytest\n\n\n@pytest.fixture\ndef x():\n    return jnp.zeros((3, {}))\n"
    (tests / "conftest.py").write_text(fixture.format(4))
    (tests / "test_a.py").write_text(
        "import jax.numpy as jnp\n\n\ndef test_a(x):\n    y = x + jnp.ones((5,))\n    assert y.shape == (3, 5)\n"
    )
    for f in tmp_path.rglob("*.py"):
        _old(f)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "_in_pool", lambda todo, jobs, record: [runner.check_file(j) for j in todo])
    assert main(["check", "--format", "json", "."]) == 1
    assert [(d["path"], d["line"], d["code"]) for d in json.loads(capsys.readouterr().out)] == [
        ("./tests/test_a.py", 5, "NC201")
    ]
    (tests / "conftest.py").write_text(fixture.format(5))
    _new_process()
    assert main(["check", "--format", "json", "."]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_a_flag_set_by_a_conftest_is_in_the_fingerprint(tmp_path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "tests").mkdir()
    test = tmp_path / "tests" / "test_b.py"
    test.write_text("import jax.numpy as jnp\n\nX = jnp.arange(3)\n")
    other = tmp_path / "tests" / "test_c.py"
    other.write_text("X = 1\n")
    project = Session().project(test)
    assert project is not None
    plain = project.dependency_fingerprint(test)
    (tmp_path / "conftest.py").write_text('import jax\n\njax.config.update("jax_enable_x64", True)\n')
    x64_conftest = project.dependency_fingerprint(test)
    (tmp_path / "conftest.py").unlink()
    other.write_text('import jax\n\njax.config.update("jax_enable_x64", True)\nX = 1\n')
    _old(other)
    x64_other = project.dependency_fingerprint(test)
    assert len({plain, x64_conftest, x64_other}) == 3
