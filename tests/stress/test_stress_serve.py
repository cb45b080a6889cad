"""The stress suite's serving parts (bench/stress_serve.py): the daemon past a client that never reads its
reply, one that trickles its request, a JSON nested 100,000 deep, refused option values and a folder at the
socket path; the language server on paths with `+` (raw and `%2B`), a space and unicode; `namedcheck.xmap`
over a dict of 2,000 leaves."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import stress_serve as serve  # noqa: E402


def test_the_daemon_serves_every_check_past_hostile_clients(tmp_path):
    sc = serve.daemon_clients(tmp_path, quick=True)
    assert sc.problems == [], sc.notes


def test_the_editor_handles_paths_that_need_escaping(tmp_path):
    pytest.importorskip("pygls")
    sc = serve.editor_paths(tmp_path)
    assert sc.problems == [], sc.notes
    assert sc.tried == len(serve.EDITOR_PATHS)


def test_xmap_over_two_thousand_leaves(tmp_path):
    pytest.importorskip("jax")
    sc = serve.xmap_leaves(tmp_path, 2000, bound=30.0)
    assert sc.problems == [], sc.notes
