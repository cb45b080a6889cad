"""The mypy plugin follows calls into other modules of the project as the CLI does: a call of a
function imported from another module is typed (`reveal_type`) and checked against its signature."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

mypy_api = pytest.importorskip("mypy.api")

LAYERS = '''\
from namedcheck import f32


def head(x: f32[("B", 512)], w: f32[(512, 10)]) -> f32[("B", 10)]:
    return x @ w


def scale(x):
    return x * 2.0
'''

TRAIN = '''\
import jax.numpy as jnp
from namedcheck import f32  # noqa: F401  (types change where namedcheck is imported)
from .layers import head, scale

h = jnp.zeros((32, 256))
w = jnp.zeros((512, 10))
y = head(h, w)
reveal_type(head(jnp.zeros((4, 512)), w))
reveal_type(scale(jnp.zeros((3, 2))))
'''


def test_plugin_types_and_checks_cross_module_calls(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "layers.py").write_text(LAYERS)
    (pkg / "train.py").write_text(TRAIN)
    cfg = tmp_path / "mypy.ini"
    cfg.write_text(textwrap.dedent("""\
        [mypy]
        check_untyped_defs = True
        show_column_numbers = True
        plugins = namedcheck_mypy
        [mypy-namedcheck.*]
        follow_imports = silent
    """))
    out, err, _ = mypy_api.run(["--config-file", str(cfg), "--cache-dir", str(tmp_path / "cache"),
                                "--no-error-summary", str(pkg)])
    assert "Traceback" not in out + err, out + err
    train = [ln.split(":", 1)[1] for ln in out.splitlines() if ln.startswith(str(pkg / "train.py"))]
    text = "\n".join(train)
    assert any(ln.startswith("7:") and "[NC302]" in ln for ln in train), text
    assert any(ln.startswith("8:") and "f32[(4, 10)]" in ln for ln in train), text
    assert any(ln.startswith("9:") and "f32[(3, 2)]" in ln for ln in train), text
