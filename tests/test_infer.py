"""`namedcheck infer`: the round trip (strip the array annotations of the clean examples and of the case
files, infer them back, compare), idempotence, and the command line."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from namedcheck.analyzer.check import check_source
from namedcheck.analyzer.literals import ANNOTATION_HEADS, parse_annotation_subscript
from namedcheck.cli.main import main
from namedcheck.edits.infer import infer_source

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(
    [
        p
        for p in [*ROOT.glob("examples/**/*.py"), *ROOT.glob("tests/cases/*.py")]
        if "buggy" not in p.parts and p.name != "nc001_syntax.py"
    ]
)


def _array_annotation(node: cst.BaseExpression | None) -> object | None:
    """The ArrayType an `f32[...]` annotation states (None for anything else)."""
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value in ANNOTATION_HEADS:
        try:
            return parse_annotation_subscript(node.value.value, node)
        except Exception:
            return None
    return None


class _Sites(cst.CSTTransformer):
    """Collects array annotations by site (function path, kind, name) and strips them."""

    def __init__(self) -> None:
        self.path: list[str] = []
        self.found: dict[tuple[str, str, str], object] = {}

    def _key(self, kind: str, name: str) -> tuple[str, str, str]:
        return (".".join(self.path), kind, name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.path.append(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.path.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        self.path.pop()
        return updated_node

    def leave_Param(self, original_node: cst.Param, updated_node: cst.Param) -> cst.Param:
        t = _array_annotation(updated_node.annotation.annotation) if updated_node.annotation else None
        if t is None:
            return updated_node
        self.found[self._key("parameter", updated_node.name.value)] = t
        return updated_node.with_changes(annotation=None, equal=cst.MaybeSentinel.DEFAULT)

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        t = _array_annotation(updated_node.returns.annotation) if updated_node.returns else None
        if t is not None:
            self.found[self._key("return", updated_node.name.value)] = t
            updated_node = updated_node.with_changes(returns=None)
        self.path.pop()
        return updated_node

    def leave_AnnAssign(self, original_node: cst.AnnAssign, updated_node: cst.AnnAssign) -> cst.BaseSmallStatement:
        t = _array_annotation(updated_node.annotation.annotation)
        if (
            t is None or updated_node.value is None or not isinstance(updated_node.target, cst.Name) or not self.path
        ):  # class fields and module-level names are declarations, not inferred
            return updated_node
        self.found[self._key("local", updated_node.target.value)] = t
        return cst.Assign([cst.AssignTarget(updated_node.target)], updated_node.value)


def _sites(source: str) -> tuple[str, dict[tuple[str, str, str], object]]:
    v = _Sites()
    stripped = cst.parse_module(source).visit(v)
    return stripped.code, v.found


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_inferred_annotations_parse_are_idempotent_and_add_no_diagnostic(path: Path) -> None:
    stripped, _ = _sites(path.read_text())
    inferred, _ = infer_source(stripped, str(path))
    cst.parse_module(inferred)
    again, added = infer_source(inferred, str(path))
    assert again == inferred and added == []
    before = sorted(d.code for d in check_source(stripped, str(path)))
    after = sorted(d.code for d in check_source(inferred, str(path)))
    assert after == before


def round_trip() -> tuple[dict[tuple[str, str], int], list[str]]:
    """Counts by (site kind, outcome: same / other / missing), and the sites recovered with another type."""
    counts: dict[tuple[str, str], int] = {}
    notes = []
    for path in CORPUS:
        stripped, want = _sites(path.read_text())
        inferred, _ = infer_source(stripped, str(path))
        _, got = _sites(inferred)
        for key, t in want.items():
            outcome = "missing" if key not in got else "same" if got[key] == t else "other"
            counts[(key[1], outcome)] = counts.get((key[1], outcome), 0) + 1
            if outcome == "other":
                notes.append(f"{path.relative_to(ROOT)} {key}: wrote {t}, inferred {got[key]}")
    return counts, notes


def test_round_trip_agreement(capsys: pytest.CaptureFixture[str]) -> None:
    """Parameters of functions the file never calls cannot come back (nothing says what they receive);
    symbolic sizes come back as the calls' concrete ones; some case files state wrong types on purpose."""
    counts, notes = round_trip()
    total = sum(counts.values())
    same = sum(n for (_, o), n in counts.items() if o == "same")
    with capsys.disabled():
        print(f"\ninfer round trip: {total} stripped annotations, {same} recovered exactly ({same / total:.0%})")
        for kind in ("parameter", "return", "local"):
            row = {o: counts.get((kind, o), 0) for o in ("same", "other", "missing")}
            print(f"  {kind:9} same {row['same']:3}  another type {row['other']:3}  not recovered {row['missing']:3}")
    assert total > 100 and same / total >= 0.2
    # in the clean examples, another type only where the original states a symbolic size
    for note in notes:
        if note.startswith("examples"):
            assert "'" in note.split("wrote", 1)[1].split("inferred")[0].split("{")[0] or "'B'" in note, note


def test_cli_infer_write_diff_and_annotated_spelling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    src = (
        "import jax.numpy as jnp\n\n\ndef scale(x):\n    y = x * 2\n    return y\n\n\n"
        "def main():\n    return scale(jnp.ones((3, 4)))\n"
    )
    (tmp_path / "m.py").write_text(src)
    assert main(["infer", "m.py"]) == 0
    out = capsys.readouterr().out
    # sites listed where they are in the file as it is (the imports infer adds above them not counted)
    assert (
        "m.py:4:12: parameter x: f32[Array, Dims(3, 4)]" in out
        and "m.py:9:11: return main: f32[Array, Dims(3, 4)]" in out
    )
    assert main(["infer", "m.py", "--diff"]) == 0
    assert "+def scale(x: f32[Array, Dims(3, 4)]) -> f32[Array, Dims(3, 4)]:" in capsys.readouterr().out
    assert (tmp_path / "m.py").read_text() == src
    assert main(["infer", "m.py", "--write", "--spelling", "literal"]) == 0
    assert "def scale(x: f32[(3, 4)]) -> f32[(3, 4)]:" in (tmp_path / "m.py").read_text()
    (tmp_path / "m.py").write_text(src)
    assert main(["infer", "m.py", "--write", "--spelling", "annotated"]) == 0
    text = (tmp_path / "m.py").read_text()
    assert "def scale(x: Annotated[jax.Array, f32[(3, 4)]]) -> Annotated[jax.Array, f32[(3, 4)]]:" in text
    assert "    y: Annotated[jax.Array, f32[(3, 4)]] = x * 2\n" in text
    # each import in its isort section, in order (ruff I001)
    assert text.startswith(
        "from typing import Annotated\n\nimport jax\nimport jax.numpy as jnp\nfrom namedcheck import f32\n\n\n"
    )
    assert main(["infer", "m.py", "--write"]) == 0 and (tmp_path / "m.py").read_text() == text


SHARDED = """import jax
import jax.numpy as jnp
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
auto = jax.make_mesh((4, 2), ('data', 'model'), axis_types=(AxisType.Auto, AxisType.Auto))
jax.set_mesh(mesh)


def scale(v):
    h = v * 2
    return h + 1


def project(v, w):
    out = jnp.matmul(v, w, out_sharding=P('data', 'model'))
    return out


x = jax.device_put(jnp.ones((8, 16)), P('data', None))
w = jax.device_put(jnp.ones((16, 4)), P(None, 'model'))
both = jax.device_put(jnp.ones((8, 16)), P(('data', 'model'), None))
y = scale(x)
z = project(x, w)
b = scale(both)
r = jnp.ones((8, 16))
with jax.set_mesh(auto):
    a = jax.device_put(jnp.ones((8, 16)), P('data'))
"""


def test_infer_writes_explicit_shardings_that_round_trip(tmp_path: Path) -> None:
    """Fully known shardings over Explicit axes are written (`f32[jax.Array, Dims('8@data', 16)]`); a value whose calls
    disagree, a replicated one and one over an Auto mesh get the plain shape. The written file checks clean,
    infers nothing more, and runs under JAX with each annotated value's jax.typeof equal to its annotation."""
    import json
    import subprocess
    import sys

    new, _ = infer_source(SHARDED, "m.py")
    for line in (
        "def scale(v: f32[jax.Array, Dims(8, 16)]) -> f32[jax.Array, Dims(8, 16)]:",
        "def project(v: f32[jax.Array, Dims('8@data', 16)], w: f32[jax.Array, Dims(16, '4@model')]) -> "
        "f32[jax.Array, Dims('8@data', '4@model')]:",
        "    out: f32[jax.Array, Dims('8@data', '4@model')] = jnp.matmul(",
        "both: f32[jax.Array, Dims('8@(data,model)', 16)] = ",
        "b: f32[jax.Array, Dims('8@(data,model)', 16)] = scale(both)",
        "r: f32[jax.Array, Dims(8, 16)] = ",
        "    a: f32[jax.Array, Dims(8, 16)] = ",
    ):
        assert any(text.startswith(line) for text in new.splitlines()), (line, new)
    assert check_source(new, "m.py") == []
    assert infer_source(new, "m.py")[0] == new
    pytest.importorskip("jax")
    f = tmp_path / "m.py"
    f.write_text(new)
    code = (
        "import json, os, sys\nos.environ['XLA_FLAGS'] = '--xla_force_host_platform_device_count=8'\n"
        "import jax\nns = {}\nexec(open(sys.argv[1]).read(), ns)\n"
        "print(json.dumps({k: str(jax.typeof(ns[k])) for k in ('x', 'w', 'both', 'y', 'z', 'b', 'r')}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(f)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT)},
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {
        "x": "float32[8@data,16]",
        "w": "float32[16,4@model]",
        "both": "float32[8@(data,model),16]",
        "y": "float32[8@data,16]",
        "z": "float32[8@data,4@model]",
        "b": "float32[8@(data,model),16]",
        "r": "float32[8,16]",
    }, got
