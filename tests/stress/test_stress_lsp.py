"""The stress suite's language-server parts (bench/stress_lsp.py): a soak of unique edits with requests between
them (every request answered; in the slow test, resident memory flat), malformed JSON-RPC frames and bad
parameters (each answered or skipped, the next valid request answered), hostile buffers opened in the
editor (the server answers, stays alive and still publishes the other document's diagnostics), and requests
answered while a large document is analysed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")

BENCH = Path(__file__).resolve().parent.parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import stress_gen as gen  # noqa: E402
import stress_lsp as lsp  # noqa: E402
import stress_runs as runs  # noqa: E402

BUFFER_LIMIT = runs.TIME_BUDGET + runs.TIME_SLACK


def test_soak_answers_every_request(tmp_path):
    s = lsp.soak(tmp_path, 200, 20)
    assert s.died == ""
    assert s.requests == 200 and s.unanswered == 0 and s.errors == 0
    assert len(s.latencies) == 200


def test_malformed_frames_and_bad_parameters(tmp_path):
    got = lsp.frames(tmp_path, answer_s=10.0)
    assert len(got) == len(lsp._frames("file:///x.py", "/tmp/fifo"))
    bad = [f"{f.name}: answered={f.answered} then answered={f.after} {f.detail} {f.closed}" for f in got if not f.ok]
    assert bad == []


def test_requests_answered_while_a_large_document_is_analysed(tmp_path):
    got = lsp.latency(tmp_path, 400)
    assert got.died == "" and got.published, got
    assert got.requests >= 3 and got.unanswered == 0 and got.errors == 0, got
    assert max(got.latencies) <= 5.0, got  # (1 s on an idle machine: `bench/stress.py latency`; this one is shared)


@pytest.mark.parametrize("kind", ["bool_chain", "nested_lambda", "dotted_import", "comprehension_generators"])
def test_hostile_buffer_in_the_editor(kind, tmp_path):
    k = gen.KINDS[kind]
    b = lsp.hostile_buffer(tmp_path, kind, k.make(k.quick, True).decode(), BUFFER_LIMIT + runs.HANG_AFTER)
    assert b.ok, b
    assert b.seconds <= BUFFER_LIMIT, b
    assert b.peak_mb <= runs.MEMORY_BUDGET + runs.MEMORY_SLACK, b


@pytest.mark.slow
def test_soak_memory_stays_flat(tmp_path):
    """3,000 unique edits: the server's caches are bounded (main grew about 36 KB per edit)."""
    s = lsp.soak(tmp_path, 3000, 100)
    assert s.died == "" and s.unanswered == 0 and s.errors == 0
    assert s.slope() <= 10.0, s.rss  # MB per 1,000 edits over the second half


@pytest.mark.slow
@pytest.mark.parametrize("kind", [k for k, v in gen.KINDS.items() if not v.special])
def test_hostile_buffer_at_full_size(kind, tmp_path):
    k = gen.KINDS[kind]
    text = k.make(k.size, True).decode("utf-8", "replace")
    b = lsp.hostile_buffer(tmp_path, kind, text, BUFFER_LIMIT + runs.HANG_AFTER)
    assert b.ok, b
    assert b.seconds <= BUFFER_LIMIT, b
    assert b.peak_mb <= runs.MEMORY_BUDGET + runs.MEMORY_SLACK, b
