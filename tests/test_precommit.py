"""The pre-commit hook works as the README says: `pre-commit try-repo` on a temporary git repository
holding a buggy file (exit 1, the diagnostic shown) and a clean one (exit 0).

pre-commit builds the hook's environment from this repository (pip, from PyPI); the test is skipped only
when pre-commit is not installed or that environment cannot be installed (no network).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.network]  # pre-commit builds its own environment of the hook

ROOT = Path(__file__).resolve().parent.parent

BUGGY = """import jax.numpy as jnp
from namedcheck import f32


def f(x: f32[(3, 4)], y: f32[(5,)]):
    return x + y
"""

CLEAN = BUGGY.replace("f32[(5,)]", "f32[(4,)]")


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _snapshot(dest: Path) -> Path:
    """This working tree (tracked and untracked, not ignored files) committed to a fresh repository, so the
    hook under test is the one on disk and pre-commit installs its environment once for both runs."""
    files = _git(ROOT, "ls-files", "-co", "--exclude-standard").split("\n")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_symlink():  # e.g. namedcheck/stubs -> ../stubs: kept a link, as git keeps it
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(src), dest / name)
        elif src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    _git(dest, "init", "-q", ".")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "snapshot")
    return dest


def _try_repo(hook_repo: Path, user_repo: Path, home: Path, name: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "NAMEDCHECK_NO_CACHE": "1"}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(hook_repo),
            "namedcheck",
            "--ref",
            "HEAD",
            "--files",
            name,
        ],
        cwd=user_repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_pre_commit_try_repo_reports_the_buggy_file_and_passes_the_clean_one(tmp_path):
    pytest.importorskip("pre_commit", reason="pre-commit is in the dev extras")
    hook_repo = _snapshot((tmp_path / "namedcheck").resolve())
    (hook_repo.parent / "home").mkdir()
    user = tmp_path / "user"
    user.mkdir()
    (user / "buggy.py").write_text(BUGGY)
    (user / "clean.py").write_text(CLEAN)
    _git(user, "init", "-q", ".")
    _git(user, "add", "-A")
    _git(user, "commit", "-q", "-m", "user code")
    home = hook_repo.parent / "home"

    bad = _try_repo(hook_repo, user, home, "buggy.py")
    out = bad.stdout + bad.stderr
    if bad.returncode not in (0, 1) and "Installing environment" in out:
        pytest.skip(f"pre-commit could not install the hook's environment (offline?): {out[-400:]}")
    assert bad.returncode == 1, out
    assert "namedcheck" in out and "Failed" in out
    assert "buggy.py:6:12: NC201 Cannot broadcast positional shapes (3, 4) of `x` and (5,) of `y`" in out

    good = _try_repo(hook_repo, user, home, "clean.py")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout


LOCAL_CONFIG = """repos:
  - repo: local
    hooks:
      - id: namedcheck
        name: namedcheck
        entry: namedcheck check
        language: unsupported
        types_or: [python, pyi]
        require_serial: true
"""


def test_readme_local_hook_form_runs_the_installed_namedcheck(tmp_path):
    """The README's `repo: local` form, verbatim, with namedcheck on PATH (no environment to install)."""
    pytest.importorskip("pre_commit", reason="pre-commit is in the dev extras")
    readme = (ROOT / "README.md").read_text()
    assert LOCAL_CONFIG in readme
    (tmp_path / ".pre-commit-config.yaml").write_text(LOCAL_CONFIG)
    (tmp_path / "buggy.py").write_text(BUGGY)
    (tmp_path / "clean.py").write_text(CLEAN)
    _git(tmp_path, "init", "-q", ".")
    _git(tmp_path, "add", "-A")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "home"),
        "NAMEDCHECK_NO_CACHE": "1",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    runs = {
        name: subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", "--files", name],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        for name in ("buggy.py", "clean.py")
    }
    assert runs["buggy.py"].returncode == 1, runs["buggy.py"].stdout + runs["buggy.py"].stderr
    assert "buggy.py:6:12: NC201" in runs["buggy.py"].stdout
    assert runs["clean.py"].returncode == 0, runs["clean.py"].stdout + runs["clean.py"].stderr
