"""`install_import_hook('pkg')` after `import pkg`: a warning that says nothing of pkg is checked, and the fix."""

from __future__ import annotations

import importlib
import sys
import warnings

import pytest

from namedcheck import install_import_hook
from namedcheck.runtime.import_hook import ImportedTooEarly


@pytest.fixture
def package(tmp_path, monkeypatch):
    root = tmp_path / "nc_early_pkg"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "layers.py").write_text(
        "from jax import Array\nfrom namedcheck import Dims, f32\n\n\n"
        "def wrong(x: f32[Array, Dims('B', 'K')]) -> f32[Array, Dims('K', 'B')]:\n    return x\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "nc_early_pkg"
    for mod in [m for m in sys.modules if m == "nc_early_pkg" or m.startswith("nc_early_pkg.")]:
        del sys.modules[mod]


def test_hook_installed_after_import_warns(package):
    importlib.import_module(package + ".layers")
    with pytest.warns(ImportedTooEarly) as caught:
        hook = install_import_hook(package)
    hook.uninstall()
    text = str(caught[0].message)
    assert text.startswith(
        "install_import_hook('nc_early_pkg') was called after nc_early_pkg, nc_early_pkg.layers had been imported: "
        "the hook checks modules as they are imported, so the functions of these modules are not checked."
    )
    assert "Install the hook before the first `import nc_early_pkg`" in text
    assert caught[0].filename == __file__  # reported at the caller's line


def test_hook_installed_first_is_silent(package):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with install_import_hook(package):
            importlib.import_module(package + ".layers")
