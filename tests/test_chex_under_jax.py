"""chex's shape assertions against the installed JAX and chex: every function of tests/cases/lib_chex.py with an
NC204 raises chex's AssertionError when run, and every function the checker is silent on runs (or raises only
the error its own `expect` names: NC201 is JAX's TypeError)."""

from __future__ import annotations

import importlib.util
import inspect
import os
from pathlib import Path

import pytest

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
pytest.importorskip("jax")
pytest.importorskip("chex")

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402

CASE = Path(__file__).parent / "cases" / "lib_chex.py"
ARGS = {"learned": (5,), "learned_fails": (5,), "conditional": (False,)}


def _functions() -> dict[str, tuple[int, int]]:
    """Each top-level function's line span."""
    import ast

    tree = ast.parse(CASE.read_text())
    return {n.name: (n.lineno, n.end_lineno or n.lineno) for n in tree.body if isinstance(n, ast.FunctionDef)}


def test_the_checkers_verdicts_are_what_jax_and_chex_do() -> None:
    diags, _ = analyse_for_test(CASE.read_text(), CASE.name)
    spec = importlib.util.spec_from_file_location("lib_chex_case", CASE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # the module's own calls run: the silent functions pass
    seen = 0
    for name, (first, last) in _functions().items():
        codes = {d.code for d in diags if first <= d.line <= last}
        fn = getattr(module, name)
        args = ARGS.get(name, ())
        assert len(args) == len(inspect.signature(fn).parameters), name
        if "NC204" in codes:
            with pytest.raises(AssertionError):
                fn(*args)
        elif "NC201" in codes:
            with pytest.raises(TypeError):
                fn(*args)
        else:
            fn(*args)
        seen += 1
    assert seen == 11


def test_variants_fail_where_the_checker_reports() -> None:
    """tests/cases/lib_chex_variants.py run by absltest: `test_wrong`'s variants raise at the line of its
    `# expect:` (the lambda `self.variant` runs), `test_right`'s pass."""
    import subprocess
    import sys

    case = Path(__file__).parent / "cases" / "lib_chex_variants.py"
    from tests.test_cases import expectations

    expected = {ln for ln, code in expectations(case.read_text())[0] if code == "NC203"}
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run([sys.executable, str(case)], capture_output=True, text=True, timeout=600, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "FAIL" in out or "ERROR" in out, out
    failed = {line.split("(")[0].split()[-1] for line in out.splitlines() if line.startswith(("ERROR:", "FAIL:"))}
    assert failed and all(name.startswith("test_wrong") for name in failed), out
    assert any(f'lib_chex_variants.py", line {ln}' in out for ln in expected), out
