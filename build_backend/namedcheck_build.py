"""The build backend: setuptools' (`setuptools.build_meta`), with one addition to editable wheels.

The mypy plugin lives in `plugin/namedcheck_mypy`, so pyproject.toml maps it (`package-dir`). With a
mapping, setuptools' editable install (PEP 660) no longer writes a plain `.pth` path entry but an
import-hook finder (`editable_wheel._select_strategy`): Python imports through it, mypy does not (mypy
looks modules up in path entries), so user code doing `from namedcheck import f32` would lose namedcheck's
types. `build_editable` therefore adds `namedcheck-editable-paths.pth` to the editable wheel: the project
root (for `namedcheck`) and `plugin/` (for `namedcheck_mypy`) as static path entries. Only public
interfaces are used (the PEP 517 / 660 hooks and the wheel format), not setuptools internals; regular
wheels and sdists are setuptools' own.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (every other hook is setuptools')

PTH_NAME = "namedcheck-editable-paths.pth"
PATH_ENTRIES = (".", "plugin")  # relative to the project root (the hooks' working directory, PEP 517)


def build_editable(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    name = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    root = Path.cwd().resolve()
    entries = "".join(f"{(root / entry).resolve()}\n" for entry in PATH_ENTRIES)
    _add_file(Path(wheel_directory, name), PTH_NAME, entries.encode())
    return name


def _add_file(wheel: Path, arcname: str, data: bytes) -> None:
    """Rewrites `wheel` with one more top-level file, listed in its RECORD (written last, as usual)."""
    with zipfile.ZipFile(wheel) as src:
        members = [(info, src.read(info)) for info in src.infolist()]
    ((record, listed),) = [(info, content) for info, content in members if info.filename.endswith(".dist-info/RECORD")]
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    listed = listed.rstrip(b"\n") + f"\n{arcname},sha256={digest},{len(data)}\n".encode()
    tmp = wheel.with_name(wheel.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info, content in members:
            if info is not record:
                dst.writestr(info, content)
        dst.writestr(arcname, data)
        dst.writestr(record, listed)
    tmp.replace(wheel)
