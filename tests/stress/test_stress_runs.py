"""The stress suite's process scenarios (bench/stress_runs.py): kill -9 of a worker mid-run (every file's result
still comes, and the warm cache then equals --no-cache), kill -9 of the CLI (no worker left alive), runs at once
sharing one cache with files edited between and during them, and the mypy plugin over a project that plants a
module for every standard-library name (none may run)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import stress_runs as runs  # noqa: E402


def test_kill_of_the_cli_leaves_no_worker(tmp_path):
    sc = runs.kill_cli(tmp_path, rounds=1)
    assert sc.problems == []


def test_kill_of_a_worker_loses_no_result(tmp_path):
    sc = runs.kill_workers(tmp_path, rounds=1)
    assert sc.problems == []


@pytest.mark.slow
def test_kill_of_workers_repeatedly(tmp_path):
    sc = runs.kill_workers(tmp_path, rounds=4)
    assert sc.problems == []
    sc = runs.kill_cli(tmp_path, rounds=4)
    assert sc.problems == []


@pytest.mark.slow
def test_concurrent_runs_share_a_cache(tmp_path):
    sc = runs.concurrent(tmp_path, runs=8, rounds=3)
    assert sc.problems == []


@pytest.mark.slow
def test_mypy_plugin_runs_no_project_module(tmp_path):
    if shutil.which("mypy", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("mypy is not installed")
    sc = runs.mypy_plugin(tmp_path)
    assert sc.problems == []


def test_planted_names_cover_the_modules_the_issue_names():
    names = set(runs.planted_names())
    assert {"textwrap", "pathlib", "json", "random", "enum", "dataclasses"} <= names
