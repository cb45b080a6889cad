"""Fixes (`check --fix` / `--unsafe-fixes`, json / SARIF `fixes`, the editor's code actions): every fix of
the corpus makes its diagnostic disappear and keeps the file parsing; the fixes of tests/cases/lsp_fixes.py
run under JAX (8 CPU devices), to the same values where the fix keeps the program's meaning."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path

import libcst as cst
import numpy as np
import pytest

from namedcheck.analyzer.check import check_source
from namedcheck.analyzer.incremental import DocumentAnalyser
from namedcheck.cli.main import main
from namedcheck.diagnostic import Diagnostic, Fix
from namedcheck.edits.fixes import FIXABLE, apply_edits, attach_fixes, distance

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted([*ROOT.glob("tests/cases/*.py"), *ROOT.glob("examples/buggy/*.py")])
FIXES_CASE = ROOT / "tests" / "cases" / "lsp_fixes.py"
RUN = re.compile(r"#\s*run:\s*(\w+)")


def _fixed(path: Path) -> list[tuple[Diagnostic, Fix]]:
    return [
        (d, f)
        for d in DocumentAnalyser(str(path), fixer=attach_fixes).analyse(path.read_text()).diagnostics
        for f in d.fixes
    ]


def _line_after(d: Diagnostic, fix: Fix) -> int:
    """The diagnostic's line once the fix is applied (an import added above it moves it down)."""
    return d.line + sum(e.text.count("\n") for e in fix.edits if e.line < d.line)


@pytest.mark.parametrize("path", [p for p in CASES if _fixed(p)], ids=lambda p: p.name)
def test_each_fix_removes_its_diagnostic(path: Path) -> None:
    src = path.read_text()
    for d, fix in _fixed(path):
        new = apply_edits(src, list(fix.edits))
        cst.parse_module(new)  # still parses
        after = check_source(new, str(path))
        assert (d.code, _line_after(d, fix)) not in {(a.code, a.line) for a in after}, (fix.title, d)


def test_every_fixable_code_has_a_fix_in_the_corpus() -> None:
    codes = {d.code for p in CASES for d, _ in _fixed(p)}
    assert codes == set(FIXABLE)


def _load(source: str, tmp: Path, name: str) -> object:
    f = tmp / f"{name}.py"
    f.write_text(source)
    spec = importlib.util.spec_from_file_location(name, f)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


X = np.arange(32, dtype=np.float32).reshape(8, 4)
# What each function should compute: the original program's intent, where a fix keeps its meaning.
REFERENCE = {
    "scan_rows": lambda: X.reshape(4, 2, 4).sum(1).reshape(16),
    "pick_rows": lambda: np.concatenate([X, X], axis=1),
    "row_sums": lambda: X.sum(0, keepdims=True),  # each device's rows summed, then the partial sums added
    "double_named": lambda: X * 2,
    "normalise": lambda: X / X.sum(0),
    "spread": lambda: X,
}


def test_fixed_programs_run_under_jax(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    src = FIXES_CASE.read_text()
    lines = src.splitlines()
    original = _load(src, tmp_path, "lsp_fixes_original")
    checked = applied = 0
    for i, (d, fix) in enumerate(_fixed(FIXES_CASE)):
        m = RUN.search(lines[d.line - 1]) or RUN.search(lines[d.end_line - 1])
        assert m is not None, d
        name = m.group(1)
        with pytest.raises(Exception):  # noqa: B017 - JAX's own error for the mistake (TypeError, ValueError, ...)
            getattr(original, name)(X)
        module = _load(apply_edits(src, list(fix.edits)), tmp_path, f"lsp_fixes_{i}")
        result = np.asarray(getattr(module, name)(X))
        if fix.applies(unsafe=True):  # what `--fix` / `--unsafe-fixes` may write computes what was meant
            np.testing.assert_allclose(result, REFERENCE[name](), rtol=1e-6, err_msg=fix.title)
            applied += 1
        checked += 1
    assert checked >= 8 and applied >= 6


def test_check_fix_applies_safe_fixes_and_unsafe_ones_on_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(FIXES_CASE, tmp_path / "m.py")
    assert main(["check", "m.py", "--fix", "--no-cache"]) == 1
    text = (tmp_path / "m.py").read_text()
    assert "lax.pcast(total, ('data',), to='varying')" in text and "out_axes=['i', ...]" in text
    assert "'btach'" in text  # a guessed name is an unsafe fix
    capsys.readouterr()
    assert main(["check", "m.py", "--unsafe-fixes", "--no-cache", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert "'batch'" in (tmp_path / "m.py").read_text()


def test_json_and_sarif_carry_the_fixes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(FIXES_CASE, tmp_path / "m.py")
    main(["check", "m.py", "--no-cache", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    nc602 = next(d for d in out if d["code"] == "NC602")
    assert nc602["fixes"][0]["applicability"] == "safe"
    assert nc602["fixes"][0]["edits"][0]["text"] == "lax.pcast(total, ('data',), to='varying')"
    main(["check", "m.py", "--no-cache", "--format", "sarif"])
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert any(r.get("fixes") for r in results if r["ruleId"] == "NC602")


def test_edit_distance() -> None:
    assert distance("btach", "batch") == 2 and distance("dta", "data") == 1 and distance("x", "model") == 5


# a fixed case file run statement by statement under JAX on 8 CPU devices: `errors` holds [line, exception]
# of each statement that raised, `ns` the names it bound; each script adds what it prints
RUN_STATEMENTS = r"""
import ast, json, os, sys
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax
import numpy as np
path = sys.argv[1]
ns = {"__name__": "fixed"}
errors = []
for stmt in ast.parse(open(path).read()).body:
    try:
        exec(compile(ast.Module([stmt], []), path, "exec"), ns)
    except Exception as e:
        errors.append([stmt.lineno, type(e).__name__])
"""

SHD_FIXES = ROOT / "tests" / "cases" / "shd_fixes.py"
RUN_FIXED = (
    RUN_STATEMENTS
    + r"""products = {}
for k, v in ns.items():
    if k.startswith(("product", "unfixed")):
        products[k] = bool(np.allclose(np.asarray(v), ns["a"] @ ns["b"], rtol=1e-5))
print(json.dumps({"errors": errors, "products": products}))
"""
)


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_nc802_fix_runs_under_jax_to_the_same_values(tmp_path: Path, unsafe: bool) -> None:
    """`check --fix` gives each contraction the out sharding of its free dims (in module code; inside a jitted
    function only with --unsafe-fixes): the fixed program runs under JAX and every product equals a @ b."""
    from tests.fresh_process import run_fresh

    pytest.importorskip("jax")
    f = tmp_path / "m.py"
    shutil.copy(SHD_FIXES, f)
    main(["check", str(f), "--no-cache", "--unsafe-fixes" if unsafe else "--fix"])
    left = {d.line for d in check_source(f.read_text(), str(f)) if d.code == "NC802"}
    src = f.read_text()
    clash = next(i for i, line in enumerate(src.splitlines(), 1) if line.startswith("product_clash"))
    inside = {i for i, line in enumerate(src.splitlines(), 1) if line.startswith("    return jnp.matmul(u, v")}
    assert left == ({clash} if unsafe else {clash} | inside), left
    out = run_fresh(RUN_FIXED, str(f), check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    raised = {line for line, _ in got["errors"]}
    # what still raises: the clash (no fix), and without --unsafe-fixes the calls of the jitted functions
    calls = {i for i, line in enumerate(src.splitlines(), 1) if line.startswith(("product_jit", "unfixed"))}
    assert raised == ({clash} if unsafe else {clash} | calls), got
    assert got["products"] and all(got["products"].values()), got
    assert ("unfixed" in got["products"]) == unsafe and ("unfixed_rows" in got["products"]) == unsafe
    assert "out_sharding=P(None, None)" in src and "jnp.matmul(x, wm, out_sharding=P(None, 'model'))" in src
    assert "jax.sharding.reshard(product_ok, P('model', None))" in src


CARRY_FIXES = ROOT / "tests" / "cases" / "fix_sharding.py"
RUN_CARRY = (
    RUN_STATEMENTS
    + r"""a = ns["a"]
w = a.copy()
while w.max() < 100:
    w = w * 2
want = {"scanned": a * 8, "sums": np.array([a.sum(), 2 * a.sum(), 4 * a.sum()]), "looped": a + 3, "doubled": w,
        "shared_one": a * 9, "shared_two": a * 9, "stated": a * 2, "replicated": a + 1}
values = {k: bool(np.allclose(np.asarray(ns[k]), v, rtol=1e-5)) for k, v in want.items() if k in ns}
specs = {k: str(jax.typeof(ns[k])) for k in ("stated", "replicated") if k in ns}
print(json.dumps({"errors": errors, "values": values, "specs": specs}))
"""
)


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_nc809_nc811_fixes_run_under_jax_to_the_same_values(tmp_path: Path, unsafe: bool) -> None:
    """`check --fix` reshards each loop body's carry output back (a body two loops share: only with
    --unsafe-fixes) and each annotated value to its annotation's sharding: the fixed program runs under JAX,
    every value equals numpy's, and the annotated values have the stated shardings."""
    from tests.fresh_process import run_fresh

    pytest.importorskip("jax")
    f = tmp_path / "m.py"
    shutil.copy(CARRY_FIXES, f)
    main(["check", str(f), "--no-cache", "--unsafe-fixes" if unsafe else "--fix"])
    src = f.read_text()
    shared = {i for i, line in enumerate(src.splitlines(), 1) if line.startswith("shared_")}
    left = {(d.line, d.code) for d in check_source(src, str(f))}
    assert left == (set() if unsafe else {(i, "NC809") for i in shared}), left
    out = run_fresh(RUN_CARRY, str(f), check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert {line for line, _ in got["errors"]} == (set() if unsafe else shared), got
    assert got["values"] and all(got["values"].values()), got
    assert len(got["values"]) == (8 if unsafe else 6), got
    assert got["specs"] == {"stated": "float32[8,16@model]", "replicated": "float32[8,16]"}, got
    assert "lambda c: jax.sharding.reshard(jax.sharding.reshard(c * 2, P(None, 'model')), P('data', None))" in src


RESHAPE_FIXES = ROOT / "tests" / "cases" / "shd_fix_reshape.py"
RUN_RESHAPED = (
    RUN_STATEMENTS
    + r"""same = {}
for k, v in ns.items():
    if k.startswith("merged"):
        same[k] = bool(np.array_equal(np.asarray(v), ns["a"].reshape(v.shape)))
print(json.dumps({"errors": errors, "same": same}))
"""
)


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_nc805_fix_runs_under_jax_to_the_same_values(tmp_path: Path, unsafe: bool) -> None:
    """`check --fix` gives each reshape JAX rejects the `out_sharding=` JAX's message asks for (in module code;
    inside a function only with --unsafe-fixes): the fixed program runs under JAX to numpy's reshape."""
    from tests.fresh_process import run_fresh

    pytest.importorskip("jax")
    f = tmp_path / "m.py"
    shutil.copy(RESHAPE_FIXES, f)
    main(["check", str(f), "--no-cache", "--unsafe-fixes" if unsafe else "--fix"])
    src = f.read_text()
    left = {d.line for d in check_source(src, str(f)) if d.code == "NC805"}
    inside = {i for i, line in enumerate(src.splitlines(), 1) if line.startswith("    return jnp.reshape(h")}
    assert left == (set() if unsafe else inside), left
    assert "x.reshape(8, 32, out_sharding=P('data', None))" in src and "(256,), out_sharding=P(None))" in src
    out = run_fresh(RUN_RESHAPED, str(f), check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    calls = {i for i, line in enumerate(src.splitlines(), 1) if line.startswith("merged_heads")}
    assert {line for line, _ in got["errors"]} == (set() if unsafe else calls), got
    assert got["same"] and all(got["same"].values()), got
    assert ("merged_heads" in got["same"]) == unsafe
