"""Entry points and the configuration they build (analyzer/configs.py), against real JAX: each program of
tests/cases/entry_*.py runs as a script (flag and option defaults) or call by call, and fails exactly where
its `# expect:` lines say (and, where it stays silent on purpose, runs or fails as JAX decides)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.test_cases import expectations

CASES = Path(__file__).parent / "cases"
ENV = {
    **os.environ,
    "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
    "JAX_PLATFORMS": "cpu",
    "JAX_TRACEBACK_FILTERING": "off",
}

# script -> the exception it ends with when run with no command-line arguments
SCRIPTS = {
    "entry_flags.py": "TypeError",
    "entry_argparse.py": "TypeError",
    "entry_tests.py": "TypeError",
    "entry_parameterized.py": "TypeError",
}

# call by call: the call, and the exception JAX raises (None: it runs)
CALLS: dict[str, list[tuple[str, str | None]]] = {}
CALLS["entry_configs.py"] = [
    ("wrong_input(get_config())", "TypeError"),
    ("right_input(get_config())", None),
    ("widened(get_config())", None),
    ("mutated_by_a_call()", None),
    ("aliased()", None),
    ("branches(False)", None),
    ("branches(True)", "TypeError"),  # silent: the width depends on the argument
    ("defaults()", "TypeError"),
    ("updated()", "TypeError"),  # silent: update() is not followed
    ("namespace()", "TypeError"),
    ("from_dict()", "TypeError"),
    ("mutate_global() or uses_global()", None),
]
CALLS["entry_classes.py"] = [
    ("mlp(jnp.ones((4, 16)), Config())", None),
    ("mlp_transposed(jnp.ones((4, 16)), Config())", "TypeError"),
    ("scaled(jnp.ones(3))", None),
]

_CALLER = textwrap.dedent("""
    import importlib.util, sys
    spec = importlib.util.spec_from_file_location("case", sys.argv[1])
    case = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(case)
    for call in sys.argv[2:]:
        try:
            eval(call, vars(case))
            print("ok")
        except Exception as e:
            print(type(e).__name__)
""")


def _needs() -> None:
    pytest.importorskip("jax")
    pytest.importorskip("ml_collections")
    pytest.importorskip("absl")


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_script_fails_as_expected(script: str) -> None:
    _needs()
    out = subprocess.run(
        [sys.executable, str(CASES / script)], capture_output=True, text=True, env=ENV, timeout=300, cwd=CASES
    )
    assert out.returncode != 0
    assert any(line.startswith(SCRIPTS[script] + ":") for line in out.stderr.splitlines()), out.stderr[-2000:]
    expected, _ = expectations((CASES / script).read_text())
    assert expected, "a script that fails has its expected diagnostic written in"
    lines = {int(line.split(", line ")[1].split(",")[0]) for line in out.stderr.splitlines() if script in line}
    assert {line for line, _ in expected} <= lines, out.stderr[-2000:]


@pytest.mark.parametrize("case", sorted(CALLS))
def test_calls_under_jax(case: str) -> None:
    _needs()
    calls = CALLS[case]
    out = subprocess.run(
        [sys.executable, "-c", _CALLER, str(CASES / case), *[c for c, _ in calls]],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
    )
    got = out.stdout.split()
    assert got == [e or "ok" for _, e in calls], out.stderr[-2000:]
