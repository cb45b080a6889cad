"""`namedcheck check` as ruff users drive it: `--output-format`, `-q` / `-s`, `--exit-zero`, `[*]` fix markers
and the fixable count, `--show-fixes`, `--diff`, `extend-exclude`, `per-file-ignores`, .gitignore."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from namedcheck.cli.main import main

SAFE = """import jax.numpy as jnp
from namedcheck import xmap

y = xmap(lambda a: a * 2, in_axes=['i', ...], out_axes=[...])(jnp.ones(4))
"""
UNSAFE = """from jax import lax
from namedcheck import f32


def f(x: f32[(3,), {'batch': 8}]) -> f32[(3,)]:
    return lax.psum(x, 'btach')
"""
SHAPE = "import jax.numpy as jnp\n\nz = jnp.ones((2, 3)) + jnp.ones((4, 5))\n"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", "--no-cache", "-j", "1", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\n")
    (tmp_path / "safe.py").write_text(SAFE)
    (tmp_path / "unsafe.py").write_text(UNSAFE)
    return tmp_path


def _heads(out: str) -> list[str]:
    """The `path:line:col: CODE message` lines of a text output."""
    return [ln for ln in out.splitlines() if ".py:" in ln and ": NC" in ln]


def test_output_format_is_format(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, a, _ = run(capsys, "safe.py", "--output-format", "json")
    _, b, _ = run(capsys, "safe.py", "--format", "json")
    assert [d["code"] for d in json.loads(a)] == ["NC404"]
    assert json.loads(a) == json.loads(b)


def test_fix_markers_and_fixable_count(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "safe.py", "unsafe.py")
    assert code == 1
    assert _heads(out) == [
        "safe.py:4:56: NC404 [*] the result carries named axis 'i', which out_axes does not place",
        "unsafe.py:6:12: NC705 lax.psum names axis 'btach', which no enclosing map or mesh binds (bound here: 'batch')",
    ]
    lines = out.splitlines()
    assert lines[-3:-1] == [
        "Found 2 errors.",
        "[*] 1 fixable with the `--fix` option (1 hidden fix can be enabled with the `--unsafe-fixes` option).",
    ]
    _, out, _ = run(capsys, "unsafe.py")
    assert "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)." in out.splitlines()
    _, out, _ = run(capsys, "safe.py")
    assert out.splitlines()[-2] == "[*] 1 fixable with the `--fix` option."


def test_quiet_silent_exit_zero(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "safe.py", "-q")
    assert code == 1
    assert out.splitlines()[0].startswith("safe.py:4:56: NC404 [*]")
    assert not any(ln.startswith(("Found", "Checked", "[*]")) for ln in out.splitlines())
    code, out, err = run(capsys, "safe.py", "-s")
    assert (code, out, err) == (1, "", "")
    code, out, _ = run(capsys, "safe.py", "--exit-zero")
    assert code == 0 and "NC404" in out
    code, _, _ = run(capsys, "safe.py", "missing.py", "--exit-zero")
    assert code == 2  # a path that cannot be read still fails the run (ruff's)
    code, out, _ = run(capsys, "safe.py", "--quiet", "--statistics")
    assert code == 1 and out.splitlines() == ["1\tNC404\ta result carries a named axis missing from out_axes"]


def test_diff_writes_nothing(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "safe.py", "unsafe.py", "--fix", "--diff")
    assert code == 1
    assert out.splitlines() == [
        "--- a/safe.py",
        "+++ b/safe.py",
        "@@ -1,4 +1,4 @@",
        " import jax.numpy as jnp",
        " from namedcheck import xmap",
        " ",
        "-y = xmap(lambda a: a * 2, in_axes=['i', ...], out_axes=[...])(jnp.ones(4))",
        "+y = xmap(lambda a: a * 2, in_axes=['i', ...], out_axes=['i', ...])(jnp.ones(4))",
    ]
    assert err.strip() == "Would fix 1 error."
    assert (tree / "safe.py").read_text() == SAFE
    code, out, _ = run(capsys, "unsafe.py", "--diff")
    assert (code, out) == (0, "")  # its one fix is unsafe: nothing to do
    code, out, _ = run(capsys, "unsafe.py", "--diff", "--unsafe-fixes")
    assert code == 1 and "+    return lax.psum(x, 'batch')" in out.splitlines()
    assert (tree / "unsafe.py").read_text() == UNSAFE


def test_show_fixes(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "safe.py", "unsafe.py", "--show-fixes")
    assert out.splitlines()[-3:] == [
        "Fixable 1 error:",
        "- safe.py:",
        "    1 x NC404 (a result carries a named axis missing from out_axes)",
    ]
    code, out, err = run(capsys, "safe.py", "unsafe.py", "--fix", "--show-fixes")
    assert code == 1  # unsafe.py's NC705 is left
    assert out.splitlines()[-3:] == [
        "Fixed 1 error:",
        "- safe.py:",
        "    1 x NC404 (a result carries a named axis missing from out_axes)",
    ]
    assert "out_axes=['i', ...]" in (tree / "safe.py").read_text()
    assert err.strip() == "Fixed 1 error."


def test_fix_removes_unused_suppressions(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "s.py").write_text(
        "import jax.numpy as jnp\n\n"
        "a = jnp.ones((2, 3))  # noqa: NC201\n"
        "b = jnp.ones((2, 3))  # noqa: NC201, E501\n"
        "c = jnp.ones((2, 3))  # type: ignore[NC202, attr-defined]  # why\n"
        "d = jnp.ones((2, 3)) + jnp.ones((4, 5))  # noqa: NC201\n"
    )
    code, out, _ = run(capsys, "s.py", "-q")
    assert _heads(out) == [
        "s.py:3:31: NC002 [*] `# noqa` names NC201, which nothing reports on this line",
        "s.py:4:31: NC002 [*] `# noqa` names NC201, which nothing reports on this line",
        "s.py:5:38: NC002 [*] `# type: ignore` names NC202, which nothing reports on this line",
    ]
    code, out, _ = run(capsys, "s.py", "--fix")
    assert code == 0
    assert (tree / "s.py").read_text().splitlines()[2:] == [
        "a = jnp.ones((2, 3))",
        "b = jnp.ones((2, 3))  # noqa: E501",
        "c = jnp.ones((2, 3))  # type: ignore[attr-defined]  # why",
        "d = jnp.ones((2, 3)) + jnp.ones((4, 5))  # noqa: NC201",
    ]


def test_suppression_for_another_modules_call_is_not_unused(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A comment inside a function of a module another project module imports is never judged: the
    importer's call may be what it silences (here it is: checking lib.py alone would not know)."""
    (tree / "lib.py").write_text(
        "import jax.numpy as jnp\n\n\ndef add(x, y):\n    return jnp.add(x, y)  # noqa: NC201\n"
    )
    (tree / "main.py").write_text("import jax.numpy as jnp\nfrom lib import add\n\nadd(jnp.ones(3), jnp.ones(4))\n")
    code, out, _ = run(capsys, "lib.py", "main.py", "--format", "json")
    assert (code, json.loads(out)) == (0, [])
    code, out, _ = run(capsys, "lib.py", "--format", "json")
    assert (code, json.loads(out)) == (0, [])
    # a lambda too: the importer may call it
    (tree / "lam").mkdir()
    (tree / "lam" / "lib2.py").write_text(
        "import jax.numpy as jnp\n\nadd = lambda x, y: jnp.add(x, y)  # noqa: NC201\n"
    )
    _, out, _ = run(capsys, "lam/lib2.py", "--format", "json")
    assert [d["code"] for d in json.loads(out)] == ["NC002"]  # nothing imports it: judged
    (tree / "lam" / "main2.py").write_text(
        "import jax.numpy as jnp\nfrom lib2 import add\n\nadd(jnp.ones(3), jnp.ones(4))\n"
    )
    monkeypatch.setattr("namedcheck.analyzer.project.LISTING_TTL", 0.0)  # two runs in one process
    code, out, _ = run(capsys, "lam/lib2.py", "lam/main2.py", "--format", "json")
    assert (code, json.loads(out)) == (0, [])


def test_extend_exclude_and_per_file_ignores(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for d in ("gen", "tests", "src/deep"):
        (tree / d).mkdir(parents=True)
    (tree / "gen" / "out.py").write_text(SHAPE)
    (tree / "tests" / "test_x.py").write_text(SHAPE)
    (tree / "src" / "deep" / "conftest.py").write_text(SHAPE)
    (tree / "src" / "deep" / "model.py").write_text(SHAPE)
    (tree / "pyproject.toml").write_text(
        "[tool.namedcheck]\n"
        'exclude = ["unsafe.py"]\n'
        'extend-exclude = ["gen"]\n'
        '[tool.namedcheck.per-file-ignores]\n"tests/*.py" = ["NC2"]\n"conftest.py" = ["NC201"]\n'
        '"!src/**" = ["NC404"]\n'
    )
    _, out, _ = run(capsys, ".", "--format", "json")
    got = sorted((d["path"], d["code"]) for d in json.loads(out))
    # gen/ and unsafe.py excluded; tests/ drops NC2xx; conftest.py (by its name) drops NC201; every file
    # outside src/ drops NC404
    assert got == [("./src/deep/model.py", "NC201")]
    _, out, _ = run(capsys, "gen/out.py", "--format", "json")
    assert [d["code"] for d in json.loads(out)] == ["NC201"]  # named explicitly: checked


def test_bad_config_keys(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "pyproject.toml").write_text('[tool.namedcheck]\nper-file-ignores = {"a.py" = ["XX9"]}\n')
    code, _, err = run(capsys, "safe.py")
    assert code == 2 and "per-file-ignores 'a.py' names no known code: 'XX9'" in err
    (tree / "pyproject.toml").write_text('[tool.namedcheck]\nrespect-gitignore = "no"\n')
    code, _, err = run(capsys, "safe.py")
    assert code == 2 and "respect-gitignore must be true or false; found 'no'" in err


def _git_tree(tree: Path) -> None:
    (tree / ".git").mkdir()
    (tree / "sub" / "keep").mkdir(parents=True)
    (tree / "build_out").mkdir()
    for f in ("top.py", "sub/a.py", "sub/b.py", "sub/keep/c.py", "build_out/d.py", "scratch.py"):
        (tree / f).write_text(SHAPE)
    (tree / ".gitignore").write_text("# generated\nbuild_out/\nscratch.py\n*.py\n!top.py\n!sub/\n")
    (tree / "sub" / ".gitignore").write_text("!*.py\nb.py\n")


def test_gitignore_is_respected(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _git_tree(tree)
    (tree / "safe.py").unlink()
    (tree / "unsafe.py").unlink()
    _, out, _ = run(capsys, ".", "--format", "json")
    # the root ignores every .py but top.py; sub/.gitignore re-includes its .py files but b.py
    assert sorted({d["path"] for d in json.loads(out)}) == ["./sub/a.py", "./sub/keep/c.py", "./top.py"]
    _, out, _ = run(capsys, ".", "--format", "json", "--no-respect-gitignore")
    assert len({d["path"] for d in json.loads(out)}) == 6
    _, out, _ = run(capsys, "scratch.py", "--format", "json")
    assert [d["path"] for d in json.loads(out)] == ["scratch.py"]  # named explicitly: checked (ruff's default)
    (tree / "pyproject.toml").write_text("[tool.namedcheck]\nrespect-gitignore = false\n")
    _, out, _ = run(capsys, ".", "--format", "json")
    assert len({d["path"] for d in json.loads(out)}) == 6


def test_gitignore_outside_a_repository_is_not_read(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _git_tree(tree)
    (tree / ".git").rmdir()
    (tree / "safe.py").unlink()
    (tree / "unsafe.py").unlink()
    _, out, _ = run(capsys, ".", "--format", "json")
    assert len({d["path"] for d in json.loads(out)}) == 6


def test_unused_suppression_is_not_cached(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whether a comment inside a function is judged depends on the modules importing its file, which the
    result cache's key does not name: a result with NC002 is never cached."""
    monkeypatch.setattr("namedcheck.analyzer.project.LISTING_TTL", 0.0)  # two runs in one process
    (tree / "lib.py").write_text(
        "import jax.numpy as jnp\n\n\ndef add(x, y):\n    return jnp.add(x, y)  # noqa: NC201\n"
    )
    main(["check", "lib.py", "--format", "json"])
    assert [d["code"] for d in json.loads(capsys.readouterr()[0])] == ["NC002"]
    (tree / "main.py").write_text("import jax.numpy as jnp\nfrom lib import add\n\nadd(jnp.ones(3), jnp.ones(4))\n")
    main(["check", "lib.py", "main.py", "--format", "json"])
    assert json.loads(capsys.readouterr()[0]) == []


def test_gitignored_importer_is_no_context(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What a gitignored script's call causes in a checked module is left out, as the script itself is."""
    (tree / ".git").mkdir()
    (tree / ".gitignore").write_text("scratch/\n")
    (tree / "scratch").mkdir()
    (tree / "lib.py").write_text("import jax.numpy as jnp\n\n\ndef add(x, y):\n    return jnp.add(x, y)\n")
    (tree / "scratch" / "try_it.py").write_text(
        "import jax.numpy as jnp\nfrom lib import add\n\nadd(jnp.ones(3), jnp.ones(4))\n"
    )
    _, out, _ = run(capsys, "lib.py", "--format", "json")
    assert json.loads(out) == []
    _, out, _ = run(capsys, "lib.py", "--format", "json", "--no-respect-gitignore")
    assert [(d["path"], d["line"], d["code"]) for d in json.loads(out)] == [("lib.py", 5, "NC201")]


@pytest.mark.parametrize(
    ("glob", "path", "hit"),
    [
        ("tests/*.py", "tests/a.py", True),
        ("tests/*.py", "tests/x/a.py", False),
        ("**/test_*.py", "a/b/test_x.py", True),
        ("**/test_*.py", "test_x.py", True),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("{src,lib}/*.py", "lib/c.py", True),
        ("[!a]*.py", "a.py", False),
        ("[a-c]?.py", "bx.py", True),
        ("*a" * 12 + "*b", "a" * 255 + ".py", False),  # no backtracking blow-up on a hostile pattern
    ],
)
def test_globs(glob: str, path: str, hit: bool) -> None:
    from namedcheck.cli.config import Glob

    assert Glob(glob).match(path) is hit


def test_hostile_gitignore_pattern(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / ".git").mkdir()
    (tree / ".gitignore").write_text("*a" * 40 + "*b\n" + "[" * 1000 + "\n" + "{" * 500 + "\nunsafe.py\n")
    (tree / ("a" * 200 + ".py")).write_text(SHAPE)
    _, out, _ = run(capsys, ".", "--format", "json")
    assert sorted(d["code"] for d in json.loads(out)) == ["NC201", "NC404"]
