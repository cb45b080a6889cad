"""How much of the array shapes a run saw (analyzer/coverage.py): exact counts on small programs, the summary
line, `namedcheck coverage` (text and JSON), and the cache (a cached run says what an uncached one says)."""

from __future__ import annotations

import io
import json
import re

import pytest

from namedcheck.analyzer.coverage import Coverage, returns_array
from namedcheck.analyzer.session import FileResult, Session
from namedcheck.cli.main import main

# every array expression's shape is known: jnp.dot(x, w), y * 2.0, jnp.tanh(...)
FULL = """import jax.numpy as jnp
from namedcheck import f32


def f(x: f32[(3, 4)], w: f32[(4, 5)]) -> f32[(3, 5)]:
    y = jnp.dot(x, w)
    return jnp.tanh(y * 2.0)
"""

# counted: jnp.dot(a, b) (Unknown), b.sum(axis=0) (shape known), jnp.zeros((n(), 4)) (rank known: a call's
# result is no size symbol), z * 2 (rank unknown), s + 1.0 (shape known, a symbol), jnp.exp(a) (Unknown);
# not counted: c + 1 (c is not known to be an array), the tuple, the names
PARTIAL = """import jax.numpy as jnp
from namedcheck import f32


def g(a, n, b: f32[(4, 5)], z: f32[(..., 4)], s: f32[("n", 4)]):
    c = jnp.dot(a, b)
    d = c + 1
    e = b.sum(axis=0)
    h = jnp.zeros((n(), 4))
    k = z * 2
    m = s + 1.0
    t = (b, e)
    return jnp.exp(a)
"""

# helper's body is analysed on its own (x Unknown) and at two calls (x known): jnp.sin(x) counts once, known;
# then helper(x), x * 2, helper(x * 2) and the sum
TWICE = """import jax.numpy as jnp
from namedcheck import f32


def helper(x):
    return jnp.sin(x)


def f(x: f32[(3,)]):
    return helper(x) + helper(x * 2)
"""

# a size the checker cannot evaluate is a symbol named after its source (engine/symbolic.py): shape known
SYMBOLIC = """import jax.numpy as jnp


def g(n):
    return jnp.zeros((n, 4)) + 1
"""

# Unknown but expected arrays: jnp.unmodelled_op(a), jnp.sum(a), -jnp.sum(a), -jnp.sum(a) * 3; not: p.mean()
# (p is a name), jax.jit(u) and the rng (not arrays), a + 1 (a is not known), jnp.shape(a) (a tuple)
UNKNOWN_CALLS = """import jax.numpy as jnp
import numpy as np
import jax


def u(a):
    p = jnp.unmodelled_op(a)
    q = p.mean()
    r = -jnp.sum(a) * 3
    s = jax.jit(u)
    t = np.random.default_rng(0)
    v = a + 1
    w = jnp.shape(a)
    return q
"""

# a wrong operation is an array expression whose shape is not known
WRONG = """import jax.numpy as jnp
from namedcheck import f32


def f(x: f32[(3, 4)], y: f32[(5,)]):
    return jnp.sin(x) + y
"""


def coverage_of(source: str) -> Coverage | None:
    return Session(projects=False).check("prog.py", source, force=True).coverage


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (FULL, Coverage(3, 3, 3)),
        (PARTIAL, Coverage(6, 3, 2)),
        (TWICE, Coverage(5, 5, 5)),
        (UNKNOWN_CALLS, Coverage(4, 0, 0)),
        (WRONG, Coverage(2, 1, 1)),
        (SYMBOLIC, Coverage(2, 2, 2)),
        ("import jax\nx = [1, 2]\n", Coverage(0, 0, 0)),
    ],
    ids=["full", "partial", "twice", "unknown-calls", "wrong", "symbolic", "no-arrays"],
)
def test_exact_counts(source, expected):
    assert coverage_of(source) == expected


def test_not_analysed_files_have_no_coverage():
    session = Session(projects=False)
    assert session.check("a.py", "x = 1\n").coverage is None  # skipped: never names jax
    broken = session.check("b.py", "import jax\ndef f(:\n", force=True)
    assert broken.failed and broken.coverage is None
    assert FileResult([]).coverage is None


def test_counts_do_not_depend_on_the_order_of_definitions():
    """The helper's body is analysed at the call before (or after) its own standalone analysis."""
    reordered = (
        TWICE.replace("def helper(x):\n    return jnp.sin(x)\n\n\n", "") + "\n\ndef helper(x):\n    return jnp.sin(x)\n"
    )
    assert reordered.index("def f(") < reordered.index("def helper")
    assert coverage_of(reordered) == coverage_of(TWICE) == Coverage(5, 5, 5)


def test_coverage_shares_and_sums():
    c = Coverage(3, 2, 1) + Coverage(4, 4, 4)
    assert c == Coverage(7, 6, 5)
    assert (c.shape_percent, c.rank_percent) == (71, 85)  # rounded down: 100 only when all are known
    assert Coverage(200, 200, 199).shape_percent == 99
    assert Coverage().shape_percent == 100
    assert Coverage.from_json(c.entry()) == c
    for bad in ({"arrays": 1, "rank_known": 2, "shape_known": 0}, {"arrays": 1}, [1, 1, 1], {**c.as_json(), "x": 1}):
        with pytest.raises(ValueError):
            Coverage.from_json(bad)


@pytest.mark.parametrize(
    ("name", "array"),
    [
        ("jax.numpy.sum", True),
        ("numpy.mean", True),
        ("jax.lax.psum", True),
        ("jax.random.normal", True),
        ("namedcheck.numpy.einsum", True),  # the runtime's spelling of jax.numpy.einsum
        ("jax.jit", False),
        ("jax.lax.scan", False),
        ("jax.tree.map", False),
        ("flax.linen.Dense", False),  # a class
        ("numpy.random.default_rng", False),
        ("functools.partial", False),
        ("optax.adam", False),
    ],
)
def test_which_calls_should_give_arrays(name, array):
    assert returns_array(name) is array


# ---- the command line ---------------------------------------------------------------------------


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "full.py").write_text(FULL)
    (tmp_path / "pkg" / "partial.py").write_text(PARTIAL)
    (tmp_path / "pkg" / "calls.py").write_text(UNKNOWN_CALLS)
    (tmp_path / "pkg" / "plain.py").write_text("x = 1\n")  # skipped: not analysed, not listed
    return tmp_path


SUMMARY = (
    r"Checked 4 files \(3 analysed\) in \d+\.\d\d s: 0 errors in 0 files; "
    r"shapes known for 38% of 13 array expressions \(ranks for 46%\)"
)


def test_summary_line_says_how_much_was_seen(tree, capsys):
    code, out, _ = run(capsys, "check", "pkg", "--no-cache")
    assert code == 0
    lines = out.splitlines()
    assert lines[-2] == "All checks passed."
    assert re.fullmatch(SUMMARY, lines[-1]), lines[-1]  # (3 + 2 + 0) of (3 + 6 + 4); ranks (3 + 3 + 0)


def test_statistics_text_says_it_too(tree, capsys):
    code, out, _ = run(capsys, "check", "pkg", "--statistics", "--no-cache")
    assert code == 0
    assert re.fullmatch(SUMMARY, out.splitlines()[-1])


def test_json_output_keeps_its_shape(tree, capsys):
    """`check --format json` stays one array of diagnostics (coverage is `namedcheck coverage`'s)."""
    (tree / "pkg" / "wrong.py").write_text(WRONG)
    code, out, _ = run(capsys, "check", "pkg", "--format", "json", "--no-cache")
    assert code == 1
    data = json.loads(out)
    assert isinstance(data, list) and [d["code"] for d in data] == ["NC201"]
    _, out, _ = run(capsys, "check", "pkg", "--format", "json", "--statistics", "--no-cache")
    assert json.loads(out) == [{"code": "NC201", "name": "positional broadcasting mismatch", "count": 1}]


def test_stdin_buffer_summary(tree, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(PARTIAL))
    code, out, _ = run(capsys, "check", "-", "--stdin-filename", "pkg/buffer.py")
    assert code == 0
    assert out.splitlines()[-1].endswith(
        " s: 0 errors in 0 files; shapes known for 33% of 6 array expressions (ranks for 50%)"
    )


def test_coverage_command_text_worst_first(tree, capsys):
    code, out, _ = run(capsys, "coverage", "pkg", "--no-cache")
    assert code == 0
    assert out.splitlines() == [
        "shapes   ranks   arrays  file",
        "    0%      0%        4  pkg/calls.py",
        "   33%     50%        6  pkg/partial.py",
        "  100%    100%        3  pkg/full.py",
        "   38%     46%       13  total (3 files)",
    ]


def test_coverage_command_json(tree, capsys):
    code, out, _ = run(capsys, "coverage", "pkg", "--format", "json", "--no-cache")
    assert code == 0
    assert json.loads(out) == {
        "files": [
            {"path": "pkg/calls.py", "arrays": 4, "rank_known": 0, "shape_known": 0},
            {"path": "pkg/partial.py", "arrays": 6, "rank_known": 3, "shape_known": 2},
            {"path": "pkg/full.py", "arrays": 3, "rank_known": 3, "shape_known": 3},
        ],
        "total": {"files": 3, "arrays": 13, "rank_known": 6, "shape_known": 5},
    }


def test_coverage_command_files_without_arrays_and_errors(tree, capsys):
    """A file with no array expression is listed last; a file with diagnostics is counted all the same."""
    (tree / "pkg" / "wrong.py").write_text(WRONG)
    (tree / "pkg" / "none.py").write_text("import jax\nx = [1, 2]\n")
    code, out, _ = run(capsys, "coverage", "pkg/wrong.py", "pkg/none.py", "pkg/full.py", "--no-cache")
    assert code == 0  # diagnostics are `check`'s business
    assert out.splitlines() == [
        "shapes   ranks   arrays  file",
        "   50%     50%        2  pkg/wrong.py",
        "  100%    100%        3  pkg/full.py",
        "     -       -        0  pkg/none.py",
        "   80%     80%        5  total (3 files)",
    ]


def test_coverage_command_respects_excludes(tree, capsys):
    (tree / "pyproject.toml").write_text('[tool.namedcheck]\nexclude = ["pkg/calls.py"]\n')
    _, out, _ = run(capsys, "coverage", "pkg", "--format", "json", "--no-cache", "--config-root", str(tree))
    data = json.loads(out)
    assert [f["path"] for f in data["files"]] == ["pkg/partial.py", "pkg/full.py"]
    assert data["total"] == {"files": 2, "arrays": 9, "rank_known": 6, "shape_known": 5}


def test_coverage_command_missing_path(tree, capsys):
    code, _, err = run(capsys, "coverage", "nope/")
    assert code == 2 and "nope/" in err


def test_cached_run_says_what_an_uncached_run_says(tree, capsys, monkeypatch):
    monkeypatch.delenv("NAMEDCHECK_NO_CACHE", raising=False)
    _, uncached, _ = run(capsys, "coverage", "pkg", "--format", "json", "--no-cache")
    _, first, _ = run(capsys, "coverage", "pkg", "--format", "json")  # fills the cache
    assert list((tree / ".namedcheck_cache").rglob("*"))

    def no_analysis(*args, **kwargs):
        raise AssertionError("a cached file was analysed again")

    monkeypatch.setattr(Session, "check", no_analysis)
    _, cached, _ = run(capsys, "coverage", "pkg", "--format", "json")
    assert cached == first == uncached
    _, out, _ = run(capsys, "check", "pkg")
    assert re.fullmatch(SUMMARY, out.splitlines()[-1])


def test_a_cache_entry_with_a_bad_coverage_is_a_miss(tmp_path):
    from namedcheck.cli.cache import ResultCache

    cache = ResultCache(tmp_path, ())
    key = cache.key("a.py", b"import jax\n")
    cache.put(key, [], Coverage(3, 2, 1))
    assert cache.get(key) == ([], Coverage(3, 2, 1))
    cache.put(key, [])
    assert cache.get(key) == ([], None)
    entry = next(p for p in (tmp_path / ".namedcheck_cache").rglob(key))
    doc = json.loads(entry.read_text())
    body = json.dumps({"diagnostics": [], "coverage": {"arrays": 1, "rank_known": 2, "shape_known": 0}})
    import hashlib

    doc.update(diagnostics=body, sha256=hashlib.sha256(body.encode()).hexdigest())
    entry.write_text(json.dumps(doc))
    assert cache.get(key) is None


def test_worker_processes_carry_each_files_coverage(tmp_path, capsys, monkeypatch):
    """Over 8 files the run uses worker processes: each file's coverage comes back with its diagnostics."""
    monkeypatch.chdir(tmp_path)
    for i in range(12):
        (tmp_path / f"m{i:02}.py").write_text(PARTIAL if i % 2 else FULL)
    _, pooled, _ = run(capsys, "coverage", ".", "--format", "json", "-j", "2", "--no-cache")
    data = json.loads(pooled)
    assert data["total"] == {"files": 12, "arrays": 54, "rank_known": 36, "shape_known": 30}
    assert [f["arrays"] for f in data["files"]] == [6] * 6 + [3] * 6
    code, out, _ = run(capsys, "check", ".", "-j", "2", "--no-cache")
    assert code == 0
    assert out.splitlines()[-1].endswith("; shapes known for 55% of 54 array expressions (ranks for 66%)")
