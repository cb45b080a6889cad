"""Installs as the README gives them: a user project outside the repository runs mypy with the plugin
against an editable install (`pip install -e`) and against a built wheel, each in a throwaway
environment; mypy finds namedcheck's types and the plugin (`plugin/namedcheck_mypy`), and reports
namedcheck's diagnostics. An sdist builds a wheel holding the same packages."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import tarfile
import textwrap
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("mypy")
setuptools = pytest.importorskip("setuptools")

pytestmark = pytest.mark.slow  # builds and installs the package into fresh environments

ROOT = Path(__file__).resolve().parent.parent
USER_CODE = """\
import jax.numpy as jnp
from namedcheck import f32


def f(x: f32[(5, 7)], y: f32[(7, 3)]) -> f32[(5, 3)]:
    reveal_type(x)
    return x @ y


def g(x: f32[(5, 7)]) -> None:
    z = x + jnp.ones((4,))
"""
# jax itself is skipped so that mypy runs in seconds; namedcheck's own modules are followed
USER_CONFIG = """\
[mypy]
plugins = namedcheck_mypy
[mypy-jax.*]
follow_imports = skip
"""


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)


def _environment(where: Path) -> Path:
    """A venv without pip whose site-packages also sees the test runner's packages (mypy, libcst) but
    not its namedcheck: a path entry added by a .pth file is not scanned for further .pth files."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], where)
    (Path(purelib.stdout.strip()) / "_host_packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def _pip_install(python: Path, *args: str) -> None:
    done = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            *args,
        ],
        ROOT,
    )
    assert done.returncode == 0, done.stderr


def _mypy_in_user_project(python: Path, project: Path) -> str:
    project.mkdir()
    (project / "model.py").write_text(USER_CODE)
    (project / "mypy.ini").write_text(USER_CONFIG)
    done = _run([str(python), "-m", "mypy", "--no-incremental", "--show-traceback", "model.py"], project)
    return done.stdout + done.stderr


def _assert_plugin_and_types(out: str) -> None:
    assert "Cannot find implementation or library stub" not in out, out
    assert "Error importing plugin" not in out, out
    assert "Revealed type is \"namedcheck.shaped.Shaped[Literal['f32[(5, 7)]']]\"" in out, out
    assert "model.py:11: error: " in out and "[NC201]" in out, out


@pytest.mark.skipif(
    int(setuptools.__version__.split(".")[0]) < 77,
    reason="builds without network need the build backend of the dev extras (setuptools>=77)",
)
def test_editable_and_wheel_installs_give_mypy_the_plugin_and_the_types(tmp_path):
    editable = _environment(tmp_path / "editable-env")
    _pip_install(editable, "-e", str(ROOT))
    _assert_plugin_and_types(_mypy_in_user_project(editable, tmp_path / "user-editable"))
    where = _run(
        [
            str(editable),
            "-c",
            "import namedcheck, namedcheck_mypy; print(namedcheck.__file__); print(namedcheck_mypy.__file__)",
        ],
        tmp_path,
    )
    assert where.stdout.split() == [
        str(ROOT / "namedcheck" / "__init__.py"),
        str(ROOT / "plugin" / "namedcheck_mypy" / "__init__.py"),
    ], where

    wheels = tmp_path / "wheels"
    built = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(wheels),
            str(ROOT),
        ],
        ROOT,
    )
    assert built.returncode == 0, built.stderr
    wheel = next(wheels.glob("namedcheck-*.whl"))
    installed = _environment(tmp_path / "wheel-env")
    _pip_install(installed, str(wheel))
    out = _mypy_in_user_project(installed, tmp_path / "user-wheel")
    _assert_plugin_and_types(out)
    stubs = _run(
        [str(installed), "-c", "from namedcheck.engine.stubs import builtin_stub_dir; print(builtin_stub_dir())"],
        tmp_path,
    )
    assert "wheel-env" in stubs.stdout and "namedcheck/stubs" in stubs.stdout, stubs.stdout + stubs.stderr
    assert "namedcheck-editable-paths.pth" not in zipfile.ZipFile(wheel).namelist()
    # json `url` / SARIF `helpUri`: a file: link into the installed package's docs, to a file that is there
    link = _run(
        [
            str(installed),
            "-c",
            "from pathlib import Path; from urllib.parse import unquote, urlparse; "
            "from namedcheck.engine.codes import help_uri; u = urlparse(help_uri('NC202')); "
            "print(u.scheme, u.fragment, unquote(u.path), Path(unquote(u.path)).is_file())",
        ],
        tmp_path,
    )
    scheme, fragment, path, exists = link.stdout.split()
    assert (scheme, fragment, exists) == ("file", "nc202", "True"), link.stdout + link.stderr
    assert "wheel-env" in path and path.endswith("namedcheck/docs/codes.md"), path


def _wheel_names(wheel: Path) -> set[str]:
    return set(zipfile.ZipFile(wheel).namelist())


@pytest.mark.skipif(
    int(setuptools.__version__.split(".")[0]) < 77,
    reason="builds without network need the build backend of the dev extras (setuptools>=77)",
)
def test_sdist_builds_a_wheel_with_the_plugin(tmp_path):
    """The sdist carries the build backend (backend-path) and the plugin; its wheel has the same packages as
    a wheel built from the checkout."""
    dist = tmp_path / "dist"
    sdist = _run(
        [
            sys.executable,
            "-c",
            "import sys; sys.path.insert(0, 'build_backend'); import namedcheck_build; "
            f"print(namedcheck_build.build_sdist({str(dist)!r}))",
        ],
        ROOT,
    )
    assert sdist.returncode == 0, sdist.stderr
    archive = dist / sdist.stdout.split()[-1]
    with tarfile.open(archive) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert {"build_backend/namedcheck_build.py", "plugin/namedcheck_mypy/hooks.py", "pyproject.toml"} <= names
    built = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(dist),
            str(archive),
        ],
        tmp_path,
    )
    assert built.returncode == 0, built.stderr
    names = _wheel_names(next(dist.glob("namedcheck-*.whl")))
    assert {
        "namedcheck_mypy/__init__.py",
        "namedcheck_mypy/hooks.py",
        "namedcheck_mypy/worker.py",
        "namedcheck/__init__.py",
        "namedcheck/py.typed",
        "namedcheck/shaped.pyi",
        "namedcheck/docs/codes.md",  # json `url` / SARIF `helpUri` link to it
    } <= names, sorted(names)
    assert any(n.startswith("namedcheck/stubs/") and n.endswith(".pyi") for n in names)
    assert not any(n.startswith(("plugin/", "build_backend/", "namedcheck_build")) for n in names)


def test_license_and_metadata():
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    meta = textwrap.dedent((ROOT / "pyproject.toml").read_text())
    # no project URLs until namedcheck is published somewhere (a link to nowhere is worse than none)
    assert "classifiers" in meta and "[project.urls]" not in meta
