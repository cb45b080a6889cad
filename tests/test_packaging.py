"""The wheel holds every package of namedcheck: pyproject.toml lists packages by name, so a new subpackage left
out of the list installs from a checkout (editable) but is missing from a built wheel (pre-commit, users)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "namedcheck").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert found - listed == set()
