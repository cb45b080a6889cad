"""The checker checks itself: mypy, with the project's configuration (`[tool.mypy]` in pyproject.toml),
finds no error in the package or the mypy plugin."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy")

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_mypy_is_clean_on_the_package_and_the_plugin(tmp_path: Path) -> None:
    # a fresh cache: an incremental run over a stale one can report errors that are gone (or miss new ones)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "mypy_cache"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
