"""Layering: the engine imports none of libcst, mypy or jax; the CLI never imports jax or mypy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return set(out.stdout.split())


def test_engine_imports_no_front_end():
    mods = _modules_after("import namedcheck.engine.ops, namedcheck.engine.stubs\nnamedcheck.engine.stubs.op_table()")
    assert not {"jax", "libcst", "mypy"} & mods


def test_cli_never_imports_jax_or_mypy(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(
        "import jax.numpy as jnp\nfrom namedcheck import f32\n\ndef f(x: f32[(3,)], y: f32[(4,)]):\n    return x + y\n"
    )
    mods = _modules_after(f"from namedcheck.cli.main import main\nmain(['check', '-j', '1', {str(prog)!r}])")
    assert "libcst" in mods
    assert not {"jax", "jaxlib", "mypy"} & mods


def test_import_namedcheck_is_light_and_runtime_names_load_jax_on_use():
    mods = _modules_after(
        "import namedcheck\nx = namedcheck.f32[(5, 7), {'b': 2}]\n"
        "assert repr(x) == \"f32[(5, 7), {'b': 2}]\"\nnamedcheck.ShapeError"
    )
    assert not {"jax", "libcst", "mypy"} & mods
    mods = _modules_after("import namedcheck\nnamedcheck.xmap")
    assert "jax" in mods and "libcst" not in mods


def test_mypy_plugin_imports_no_jax_and_defers_libcst():
    mods = _modules_after("import namedcheck_mypy")
    assert "mypy" in mods
    assert not {"jax", "libcst"} & mods
