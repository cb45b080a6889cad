"""`namedcheck types`: every binding of the checked files with the types inferred there (analyzer/bindings.py),
text and JSON; bad paths and broken files give a message, never a traceback."""

from __future__ import annotations

import json
import sys

import pytest

from namedcheck.cli.main import main

PROGRAM = """import jax
import jax.numpy as jnp


def f(x, n, *rest, scale=2.0, **kw):
    y = jnp.sum(x, axis=0)
    a, (b, c) = y, (x, x.T)
    y += 1.0
    for row in x:
        z = row * scale
    return y


x = jnp.zeros((3, 4))
w = f(x, 2)
k: jax.Array = jnp.ones((5,), jnp.int32)
with open(__file__) as fh:
    pass
try:
    pass
except ValueError as err:
    pass
q = [r.sum() for r in x]
"""


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def program(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NAMEDCHECK_NO_CACHE", "1")
    (tmp_path / "prog.py").write_text(PROGRAM)
    return tmp_path


def by_site(doc: dict) -> dict[tuple[int, str], list[dict]]:
    return {(b["line"], b["name"]): b for b in doc["bindings"]}


def test_json_lists_every_binding_with_its_types(program, capsys):
    code, out, err = run(capsys, "types", "--format", "json", "prog.py")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["version"] == 1 and doc["problems"] == []
    sites = by_site(doc)
    names = [(b["line"], b["column"], b["name"], b["kind"]) for b in doc["bindings"]]
    assert names == [
        (5, 7, "x", "parameter"),
        (5, 10, "n", "parameter"),
        (5, 14, "rest", "parameter"),
        (5, 20, "scale", "parameter"),
        (5, 33, "kw", "parameter"),
        (6, 5, "y", "assignment"),
        (7, 5, "a", "assignment"),
        (7, 9, "b", "assignment"),
        (7, 12, "c", "assignment"),
        (8, 5, "y", "assignment"),
        (9, 9, "row", "assignment"),
        (10, 9, "z", "assignment"),
        (14, 1, "x", "assignment"),
        (15, 1, "w", "assignment"),
        (16, 1, "k", "assignment"),
        (17, 24, "fh", "assignment"),
        (21, 22, "err", "assignment"),
        (23, 1, "q", "assignment"),
        (23, 18, "r", "assignment"),
    ]
    # f is analysed on its own (x unknown) and at the call (x known): both are listed
    xs = sites[(5, "x")]["types"]
    # (`own`: the function's own analysis gives it; `via`: the outermost call that gave it, `w = f(x, 2)`, and
    # the path of calls from it)
    assert {"type": "unknown", "array": False, "dtype": None, "shape": None, "rank": None, "own": True, "via": []} in xs
    assert {
        "type": "f32[Array, Dims(3, 4)]",
        "array": True,
        "dtype": "float32",
        "shape": [3, 4],
        "rank": 2,
        "own": False,
        "via": [{"file": "prog.py", "line": 15, "path": [{"file": "prog.py", "line": 15}]}],
    } in xs
    assert [t["shape"] for t in sites[(6, "y")]["types"] if t["array"]] == [[4]]
    assert [t["shape"] for t in sites[(7, "c")]["types"] if t["array"]] == [[4, 3]]
    assert [t["shape"] for t in sites[(9, "row")]["types"] if t["array"]] == [[4]]
    assert sites[(15, "w")]["types"] == [
        {
            "type": "f32[Array, Dims(4)]",
            "array": True,
            "dtype": "float32",
            "shape": [4],
            "rank": 1,
            "own": True,
            "via": [],
        }
    ]
    assert [t["dtype"] for t in sites[(16, "k")]["types"]] == ["int32"]
    assert [t["type"] for t in sites[(5, "n")]["types"]] == ["unknown", "2"]
    assert sites[(23, "r")]["types"][0]["shape"] == [4]


def test_symbols_and_unknown_sizes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.py").write_text(
        "import jax.numpy as jnp\n\n\ndef f(x, n):\n    B, D = x.shape\n    y = jnp.zeros((B, 2))\n"
        "    z = jnp.zeros((n(), 2))\n    return y, z\n"
    )
    code, out, _ = run(capsys, "types", "--format", "json", "s.py")
    assert code == 0
    sites = by_site(json.loads(out))
    assert sites[(6, "y")]["types"][0]["shape"] == ["B", 2]
    assert sites[(7, "z")]["types"][0]["shape"] == [None, 2]
    assert sites[(7, "z")]["types"][0]["rank"] == 2


def test_text_output(program, capsys):
    code, out, _ = run(capsys, "types", "prog.py")
    assert code == 0
    lines = out.splitlines()
    assert "prog.py:15:1: w: f32[Array, Dims(4)]" in lines
    assert "prog.py:5:7: x: unknown | f32[Array, Dims(3, 4)]" in lines


def test_missing_path_is_a_message(program, capsys):
    code, out, err = run(capsys, "types", "--format", "json", "nope.py")
    assert code == 2
    assert "no such file or directory: nope.py" in err and "Traceback" not in err
    assert json.loads(out)["bindings"] == []


def test_unparsable_file_is_a_problem_not_a_traceback(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.py").write_text("import jax\ndef f(:\n")
    code, out, err = run(capsys, "types", "--format", "json", "bad.py")
    assert code == 0 and "Traceback" not in err
    doc = json.loads(out)
    assert doc["bindings"] == [] and [p["code"] for p in doc["problems"]] == ["NC001"]


def test_never_imports_jax(program):
    import subprocess

    code = (
        "import sys; from namedcheck.cli.main import main; main(['types', 'prog.py']); "
        "assert 'jax' not in sys.modules, 'jax imported'"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=program)
    assert proc.returncode == 0, proc.stderr


LIBRARY = """import jax.numpy as jnp


def dense(x, w):
    y = x @ w
    return jnp.tanh(y)


class Layer:
    def __init__(self, din, dout):
        self.w = jnp.zeros((din, dout))

    def __call__(self, x):
        out = x @ self.w
        return out
"""

CALLER = """import jax.numpy as jnp
from pkg.lib import Layer, dense

x = jnp.ones((4, 3))
r = dense(x, jnp.ones((3, 5)))
o = Layer(3, 7)(x)
"""


def test_a_library_function_is_typed_by_the_calls_other_files_make(tmp_path, monkeypatch, capsys):
    """Inside `pkg/lib.py`, the names take the types the calls in `main.py` give them, whichever file is
    listed first (the library's own analysis knows nothing of its parameters)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NAMEDCHECK_NO_CACHE", "1")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "lib.py").write_text(LIBRARY)
    (tmp_path / "main.py").write_text(CALLER)
    for order in (["pkg/lib.py", "main.py"], ["main.py", "pkg/lib.py"]):
        code, out, err = run(capsys, "types", "--format", "json", *order)
        assert code == 0, err
        lib = {
            (b["line"], b["name"]): [t["type"] for t in b["types"]]
            for b in json.loads(out)["bindings"]
            if b["file"].endswith("lib.py")
        }
        assert lib[(4, "x")] == ["unknown", "f32[Array, Dims(4, 3)]"]
        assert lib[(5, "y")] == ["unknown", "f32[Array, Dims(4, 5)]"]
        assert lib[(14, "out")] == ["unknown", "f32[Array, Dims(4, 7)]"]
    # the library alone: nothing calls it
    code, out, err = run(capsys, "types", "--format", "json", "pkg/lib.py")
    lib = {(b["line"], b["name"]): [t["type"] for t in b["types"]] for b in json.loads(out)["bindings"]}
    assert lib[(5, "y")] == ["unknown"]


def test_via_paths_name_every_call_and_set_up_is_its_own(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NAMEDCHECK_NO_CACHE", "1")
    (tmp_path / "lib.py").write_text(
        "import jax.numpy as jnp\n\n\ndef inner(x):\n    y = x * 2\n    return y\n\n\n"
        "def outer(x):\n    return inner(x)\n"
    )
    (tmp_path / "lib_test.py").write_text(
        "import jax.numpy as jnp\nfrom absl.testing import absltest\n\nimport lib\n\n\n"
        "class LibTest(absltest.TestCase):\n"
        "    def setUp(self):\n"
        "        super().setUp()\n"  # 9
        "        self.y = lib.inner(jnp.zeros((3, 2)))\n\n"
        "    def test_outer(self):\n"
        "        z = lib.outer(jnp.ones((4,)))\n"  # 13
        "        return z\n\n\n"
        "if __name__ == '__main__':\n"
        "    absltest.main()\n"
    )
    code, out, err = run(capsys, "types", "--format", "json", "lib.py", "lib_test.py")
    assert code == 0, err
    ys = by_site(json.loads(out))[(5, "y")]["types"]
    paths = {t["type"]: [[(h["file"], h["line"]) for h in v["path"]] for v in t["via"]] for t in ys if t["array"]}
    # from the test run as a whole: its first line (13), the call there, the call inside `outer`; from the
    # test's own analysis: the call there, the call inside `outer`
    assert paths["f32[Array, Dims(4)]"] == [
        [("lib_test.py", 13), ("lib.py", 10)],
        [("lib_test.py", 13), ("lib_test.py", 13), ("lib.py", 10)],
    ]
    # from `setUp` run before the test: where `setUp` begins (9, not the `absltest.main()` line), then its call
    assert [("lib_test.py", 9), ("lib_test.py", 10)] in paths["f32[Array, Dims(3, 2)]"]
    assert all(("lib_test.py", 18) not in p for p in paths["f32[Array, Dims(3, 2)]"])
