"""The shape oracle's comparison (bench/shape_oracle.py) and its tracer (bench/oracle_trace.py) on small inputs:
no network, no corpus, no JAX (the tracer records numpy arrays)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import shape_oracle as so  # noqa: E402


def t(shape, dtype="float32"):
    return {"type": "T", "array": True, "dtype": dtype, "shape": shape, "rank": None if shape is None else len(shape)}


UNKNOWN = {"type": "unknown", "array": False, "dtype": None, "shape": None, "rank": None}


def test_levels():
    assert so.level(t([3, 4]), (3, 4)) == "exact"
    assert so.level(t(["B", 4]), (3, 4)) == "symbolic"
    assert so.level(t([None, 4]), (3, 4)) == "rank-only"
    assert so.level(t(["B", None]), (3, 4)) == "rank-only"
    assert so.level(t(None), (3, 4)) == "unknown"
    assert so.level(UNKNOWN, (3, 4)) == "unknown"
    assert so.level(t([3, 5]), (3, 4)) is None  # a known size differs
    assert so.level(t([3]), (3, 4)) is None  # the rank differs
    assert so.level(t(["B", "B"]), (3, 4)) is None  # one symbol for two sizes
    assert so.level(t(["B", "B"]), (3, 3)) == "symbolic"


def test_judge_best_of_the_inferred_types():
    run = ((3, 4), "float32")
    assert so.judge(run, [run], [UNKNOWN, t([3, 4])]).category == "exact"
    assert so.judge(run, [run], [t(["B", 4]), t([None, 4])]).category == "symbolic"
    assert so.judge(run, [run], []).category == "unknown"
    wrong = so.judge(run, [run], [UNKNOWN, t([3, 5])])
    assert wrong.category == "disagree" and wrong.inferred == "T"


def test_another_calls_shapes_are_not_a_disagreement():
    a, b = ((3, 4), "float32"), ((5, 6), "float32")
    # inferred [3, 4] (one call) while the run also saw [5, 6] (another call): [5, 6] is unknown, not wrong
    assert so.judge(b, [a, b], [t([3, 4])]).category == "unknown"
    assert so.judge(a, [a, b], [t([3, 4])]).category == "exact"


def test_dtype_mismatch_is_counted_apart():
    v = so.judge(((2,), "int64"), [((2,), "int64")], [t([2], "int32")])
    assert v.category == "exact" and v.dtype_mismatch
    assert not so.judge(((2,), "int64"), [((2,), "int64")], [t([2], None)]).dtype_mismatch
    # another call's dtype (parameterized tests): not a mismatch
    assert not so.judge(((2,), "int64"), [((2,), "int64"), ((2,), "int32")], [t([2], "int32")]).dtype_mismatch


def test_statement_lines_and_parameters():
    src = "import x\n\n\n@deco\ndef f(a,\n      b):\n    y = g(\n        a)\n    for r in y:\n        pass\n"
    lines, params = so.statement_lines(src)
    assert lines[7] == lines[8] == 7  # a statement over two lines: its first
    assert lines[9] == 9
    assert params[(4, "a")] == (5, 7) and params[(4, "b")] == (6, 7)  # the code object's first line: the decorator


def test_compare_counts(tmp_path):
    (tmp_path / "m.py").write_text("def f(x):\n    y = (\n        x * 2)\n    return y\n")
    recorded = {
        "values": [["m.py", 2, "y", [3], "float32"], ["m.py", 3, "y", [4], "float32"], ["other.py", 1, "z", [1], "f"]],
        "params": [["m.py", 1, "x", [3], "float32"]],
    }
    inferred = {
        "bindings": [
            {"file": "m.py", "line": 1, "column": 7, "name": "x", "kind": "parameter", "types": [t(["N"])]},
            {"file": "m.py", "line": 2, "column": 5, "name": "y", "kind": "assignment", "types": [t([3])]},
        ],
        "problems": [],
    }
    fig = so.compare(tmp_path, recorded, inferred)
    # x: symbolic; y [3] exact (line 3 is the same statement); y [4] another call; other.py not analysed
    assert fig.counts == {"exact": 1, "symbolic": 1, "rank-only": 0, "unknown": 2, "disagree": 0}
    inferred["bindings"][1]["types"] = [t([7])]
    fig = so.compare(tmp_path, recorded, inferred)
    assert fig.counts["disagree"] == 2 and fig.disagreements[0].startswith("m.py:2: y: recorded float32[3]")
    assert "total" in so.table([("m", fig)])


def test_read_list_and_held_out(tmp_path):
    lst = tmp_path / "list.txt"
    lst.write_text(
        "# comment\nflax google/flax pytest:tests/*_test.py !tests/x.py\nvit google-research/vision_transformer "
        "pytest:*.py\njx jax-ml/jax root:examples script:*.py\n"
    )
    cbs = so.read_list(lst)
    assert [c.name for c in cbs] == ["flax", "jx"]  # a held-out repository is never listed
    assert cbs[0].runs == [("pytest", "tests/*_test.py")] and cbs[1].subdir == "examples"
    assert so.held_out(cbs[0], "tests/x.py") and so.held_out(cbs[0], "examples/lm1b/train.py")
    assert so.held_out(cbs[0], "tests/nnx/transforms_test.py") and not so.held_out(cbs[0], "tests/y_test.py")


def test_tracer_records_numpy_locals(tmp_path):
    rec = _trace(
        tmp_path,
        "p.py",
        "import numpy as np\n\n\ndef f(a):\n    b = a.sum(0)\n    c = 1\n    return b\n\n\nx = np.zeros((2, 3))\ny = f(x)\n",
    )
    assert sorted(map(tuple, (r[:3] + [tuple(r[3]), r[4]] for r in rec["values"]))) == [
        ("p.py", 5, "b", (3,), "float64"),
        ("p.py", 10, "x", (2, 3), "float64"),
        ("p.py", 11, "y", (3,), "float64"),
    ]
    assert [r[:3] for r in rec["params"]] == [["p.py", 4, "a"]]


def test_tracer_records_comprehensions_lambdas_and_multiline_statements(tmp_path):
    rec = _trace(
        tmp_path,
        "q.py",
        "import numpy as np\n\n"
        "xs = [np.zeros((2,)), np.zeros((3,))]\n"
        "ys = [x + 1 for x in xs]\n"
        "f = lambda a: a * 2\n"
        "z = (\n    f(np.ones((4, 1))))\n"
        "for i in range(2):\n    w = np.ones((i + 1,))\n",
    )
    values = sorted((r[1], r[2], tuple(r[3])) for r in rec["values"])
    assert values == [(4, "x", (2,)), (4, "x", (3,)), (6, "z", (4, 1)), (9, "w", (1,)), (9, "w", (2,))]
    assert [(r[1], r[2], tuple(r[3])) for r in rec["params"]] == [(5, "a", (4, 1))]


def test_read_list_env_and_resume_order(tmp_path):
    lst = tmp_path / "list.txt"
    lst.write_text("ein arogozhnikov/einops env:EINOPS_TEST_BACKENDS=numpy,jax pytest:t/*.py\n")
    (cb,) = so.read_list(lst)
    assert cb.env == {"EINOPS_TEST_BACKENDS": "numpy,jax"} and cb.runs == [("pytest", "t/*.py")]
    (tmp_path / "t").mkdir()
    for i in range(5):
        (tmp_path / "t" / f"{i}.py").write_text("")
    order = [r for _, r in so.programs(cb, tmp_path)]
    assert sorted(order) == [f"t/{i}.py" for i in range(5)] and order == [r for _, r in so.programs(cb, tmp_path)]
    assert [rels for _, rels in so.batches(so.programs(cb, tmp_path)[2:], 2)] == [order[2:4], order[4:]]


def called(shape, *paths, own=False):
    """An inferred type a call gave, with the paths of calls (each a list of (file, line)) that gave it."""
    vias = [{"file": p[0][0], "line": p[0][1], "path": [{"file": f, "line": ln} for f, ln in p]} for p in paths]
    return {**t(shape), "own": own, "via": vias}


def test_a_site_whose_values_were_capped_holds_only_the_files_own_types():
    run = ((3,), "float32")
    other = called([5], [("t.py", 3)])
    v = so.judge(run, [run], [other], None, capped=True)
    assert v.category == "unknown" and v.capped and v.inferred == "T"  # the run may have dropped [5]
    assert so.judge(run, [run], [other], None, capped=False).category == "disagree"
    assert so.judge(run, [run], [{**t([5]), "own": True, "via": []}], None, capped=True).category == "disagree"


def test_full_sites_from_the_tracer_or_from_the_count():
    rows = [["m.py", 4, "x", [i], "float32"] for i in range(so.MAX_PER_SITE)]
    assert so.full_sites({"values": rows, "params": []}) == {("values", "m.py", 4, "x")}
    assert so.full_sites({"values": rows[:-1], "params": []}) == set()  # fewer than the cap: nothing dropped
    assert so.full_sites({"values": rows, "params": [], "full": [["params", "m.py", 1, "y"]]}) == {
        ("params", "m.py", 1, "y")
    }


LIB = "def lib(x, deep=False):\n    if deep:\n        return inner(x)\n    y = x + 1\n    return y\n\n\ndef inner(x):\n    return x\n"
TEST = (
    "from lib import lib\n\n\n"
    "def test_a(n):\n"
    "    a = lib(n)\n"  # 5
    "    if n:\n"
    "        b = lib(n)\n"  # 7: did not run
    "    return a\n\n\n"
    "if __name__ == '__main__':\n"
    "    lib(3)\n"  # 12
)


def test_a_call_counts_where_every_call_of_its_path_ran(tmp_path):
    (tmp_path / "lib.py").write_text(LIB)
    (tmp_path / "test_m.py").write_text(TEST)
    recorded = {
        "values": [["lib.py", 4, "y", [3], "float32"]],
        "params": [["lib.py", 1, "x", [3], "float32"]],
        "calls": [["lib.py", 1, True], ["test_m.py", 4, True], ["test_m.py", 0, True]],
        "lines": {"lib.py": [2, 4, 5], "test_m.py": [1, 4, 5, 6, 8, 11]},
    }
    ex = so.Executed(tmp_path, recorded)
    assert ex.ran("test_m.py", 5) and not ex.ran("test_m.py", 7) and not ex.ran("test_m.py", 12)
    assert ex.ran_path({"file": "test_m.py", "line": 5, "path": [{"file": "test_m.py", "line": 5}]})
    # the test's call ran, but not the call inside `lib` its analysis followed to the binding
    not_run = {
        "file": "test_m.py",
        "line": 5,
        "path": [{"file": "test_m.py", "line": 5}, {"file": "lib.py", "line": 3}],
    }
    assert not ex.ran_path(not_run) and not ex.ran("lib.py", 9)
    types = [called([7], [("test_m.py", 7)]), called([3], [("test_m.py", 5)])]
    inferred = {
        "bindings": [{"file": "lib.py", "line": 4, "column": 5, "name": "y", "kind": "assignment", "types": types}]
    }
    fig = so.compare(tmp_path, recorded, inferred)
    assert fig.counts["exact"] == 1 and fig.counts["disagree"] == 0
    types[1] = called([9], [("test_m.py", 5)])  # a call that ran gave another shape: held
    fig = so.compare(tmp_path, recorded, inferred)
    assert fig.counts["disagree"] == 1


def test_an_older_record_tells_functions_and_main_blocks(tmp_path):
    (tmp_path / "lib.py").write_text(LIB)
    (tmp_path / "test_m.py").write_text(TEST)
    recorded = {"values": [["test_m.py", 5, "a", [3], "float32"]], "params": []}
    ex = so.Executed(tmp_path, recorded)
    assert ex.ran("test_m.py", 7)  # (the function recorded a value: an older record tells no more)
    assert not ex.ran("test_m.py", 12)  # a `__main__` block: the file ran under pytest
    assert so.Executed(tmp_path, {**recorded, "scripts": ["test_m.py"]}).ran("test_m.py", 12)


def test_tracer_records_what_ran_and_the_sites_it_capped(tmp_path):
    rec = _trace(
        tmp_path,
        "r.py",
        "import numpy as np\n\n\n"
        "def f(n):\n"
        "    if n > 100:\n"
        "        return None\n"  # 6: never runs
        "    return np.zeros((n,))\n\n\n"
        "def g():\n"
        "    return 1\n\n\n"
        "for i in range(1, 11):\n"
        "    z = f(i)\n"
        "g()\n",
    )
    assert ["values", "r.py", 15, "z"] in rec["full"]  # ten shapes, eight kept
    assert len([r for r in rec["values"] if r[1] == 15]) == 8
    calls = {(f, first): traced for f, first, traced in rec["calls"]}
    assert calls == {("r.py", 0): True, ("r.py", 4): False, ("r.py", 10): False}  # f and g bind nothing
    assert {5, 7}.isdisjoint(rec["lines"]["r.py"]) and {14, 15, 16} <= set(rec["lines"]["r.py"])


def test_a_call_the_test_expects_to_raise_is_not_held(tmp_path):
    (tmp_path / "test_r.py").write_text(
        "import pytest\n\n\ndef test_r(self):\n    with pytest.raises(AssertionError):\n        f(1)\n"
        "    with self.assertRaisesRegex(ValueError, 'x'):\n        f(2)\n    f(3)\n"
    )
    ex = so.Executed(tmp_path, {"values": [["test_r.py", 9, "a", [1], "f"]], "params": []})
    assert [ex.raising("test_r.py", ln) for ln in (6, 8, 9)] == [True, True, False]
    hop = lambda ln: {"file": "test_r.py", "line": ln, "path": [{"file": "test_r.py", "line": ln}]}  # noqa: E731
    assert not ex.ran_path(hop(6)) and ex.ran_path(hop(9))


def _trace(tmp_path: Path, name: str, source: str) -> dict:
    (tmp_path / name).write_text(source)
    out = tmp_path / "rec.json"
    cmd = [sys.executable, str(BENCH / "oracle_trace.py"), "--root", str(tmp_path), "--out", str(out), "script"]
    proc = subprocess.run([*cmd, str(tmp_path / name)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return dict(json.loads(out.read_text()))


def test_tracer_records_a_name_rebound_to_the_object_it_held(tmp_path):
    rec = _trace(
        tmp_path,
        "s.py",
        "import numpy as np\n\n\n"
        "def ident(x, *a):\n    return x\n\n\n"
        "def f(x):\n"
        "    y = ident(x)\n"  # 9: the same object, rebound
        "    z = ident(\n        y, 1)\n"  # 10: a multi-line statement
        "    try:\n        bad = ident(y, np.zeros(3)[5])\n"  # 13: raises before the store
        "    except IndexError:\n        pass\n"
        "    return z\n\n\n"
        "for n in (3, 4):\n    f(np.ones(n))\n",
    )
    values = sorted((r[1], r[2], tuple(r[3])) for r in rec["values"])
    assert values == [(9, "y", (3,)), (9, "y", (4,)), (10, "z", (3,)), (10, "z", (4,))]


def test_tracer_keeps_the_lines_run_under_each_path_of_calls(tmp_path):
    rec = _trace(
        tmp_path,
        "b.py",
        "import numpy as np\n\n\n"
        "def f(x, init):\n"
        "    if init:\n"
        "        y = x[0]\n"  # 6: only under the call at line 13
        "    return x\n\n\n"
        "def g(x):\n"
        "    return f(x, False)\n\n\n"  # 11
        "f(np.ones((2, 3)), True)\n"  # 14
        "g(np.ones((4, 5)))\n",
    )
    reach = {(f, first, tuple(map(tuple, chain))): set(ls) for f, first, chain, ls in rec["reach"]}
    assert 6 in reach[("b.py", 4, (("b.py", 14),))]
    assert 6 not in reach[("b.py", 4, (("b.py", 15), ("b.py", 11)))]


def test_a_type_whose_calls_ran_but_not_through_the_binding_is_listed_apart(tmp_path):
    (tmp_path / "lib.py").write_text("def f(x, init):\n    if init:\n        y = x[0]\n    return x\n")
    (tmp_path / "test_m.py").write_text("def test_a():\n    f(a(), True)\n\n\ndef test_b():\n    f(b(), False)\n")
    recorded = {
        "values": [["lib.py", 3, "y", [3], "float32"]],
        "params": [],
        "calls": [["lib.py", 1, True], ["test_m.py", 1, True], ["test_m.py", 5, True]],
        "lines": {"lib.py": [2, 3, 4], "test_m.py": [2, 6]},
        "reach": [
            ["lib.py", 1, [["test_m.py", 2]], [2, 3, 4]],
            ["lib.py", 1, [["test_m.py", 6]], [2, 4]],
            ["test_m.py", 1, [], [2]],
            ["test_m.py", 5, [], [6]],
        ],
    }
    via_b = {"file": "test_m.py", "line": 6, "path": [{"file": "test_m.py", "line": 6}]}
    via_a = {"file": "test_m.py", "line": 2, "path": [{"file": "test_m.py", "line": 2}]}
    t = {"type": "f32[(9,)]", "array": True, "rank": 1, "shape": [9], "dtype": "f32", "own": False, "via": [via_b]}
    inferred = {
        "bindings": [{"file": "lib.py", "line": 3, "column": 9, "name": "y", "kind": "assignment", "types": [t]}]
    }
    fig = so.compare(tmp_path, recorded, inferred)
    assert fig.counts["disagree"] == 0 and len(fig.apart) == 1 and "(not reached)" in fig.apart[0]
    t["via"] = [via_a]  # the call under which the line ran: held
    assert so.compare(tmp_path, recorded, inferred).counts["disagree"] == 1
    # a record without `reach` tells only that the calls ran: held
    old = {k: v for k, v in recorded.items() if k != "reach"}
    t["via"] = [via_b]
    assert so.compare(tmp_path, old, inferred).counts["disagree"] == 1
    # a test only some of whose items ran (parameter sets): which set gave the type is not known
    partial = {
        **recorded,
        "tests": [["test_m.py", 1, "test_m.py::test_a0", True], ["test_m.py", 1, "x::test_a1", False]],
    }
    t["via"] = [via_a]
    fig = so.compare(tmp_path, partial, inferred)
    assert fig.counts["disagree"] == 0 and "(partial)" in fig.apart[0]


def test_on_path_matches_calls_in_order_and_skips_the_checkers_own_entries():
    chain = [("t.py", 2), ("w.py", 9), ("lib.py", 5)]
    where = {("t.py", 2): ("t.py", 1), ("t.py", 3): ("t.py", 3), ("lib.py", 7): ("lib.py", 6)}.get
    at, none = ("lib.py", 7), frozenset()
    assert so._on_path([(("t.py", 2), none), (("lib.py", 5), none)], chain, at, where)  # a wrapper between
    assert not so._on_path([(("lib.py", 5), none), (("t.py", 2), none)], chain, at, where)  # out of order
    # the checker's entry of a test (its header): the call found next is made inside that test
    test = frozenset({("t.py", 1)})
    assert so._on_path([(("t.py", 1), test), (("t.py", 2), none), (("lib.py", 5), none)], chain, at, where)
    other = frozenset({("t.py", 3)})
    assert not so._on_path([(("t.py", 3), other), (("t.py", 2), none)], chain, at, where)  # another function's
    assert not so._on_path([(("t.py", 3), none)], chain, at, where)
    cut = [("a.py", i) for i in range(so.MAX_CHAIN)]
    assert so._on_path([(("x.py", 1), none)], cut, at, where)  # beyond a cut chain
