"""Layering: the engine imports none of libcst, mypy or jax; the CLI never imports jax or mypy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return set(out.stdout.split())


def test_engine_imports_no_front_end():
    mods = _modules_after("import namedcheck.engine.ops, namedcheck.engine.stubs\n"
                          "namedcheck.engine.stubs.op_table()")
    assert not {"jax", "libcst", "mypy"} & mods


def test_cli_never_imports_jax_or_mypy(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text("import jax.numpy as jnp\nfrom namedcheck import f32\n\n"
                    "def f(x: f32[(3,)], y: f32[(4,)]):\n    return x + y\n")
    mods = _modules_after(f"from namedcheck.cli.main import main\nmain(['check', '-j', '1', {str(prog)!r}])")
    assert "libcst" in mods
    assert not {"jax", "jaxlib", "mypy"} & mods
