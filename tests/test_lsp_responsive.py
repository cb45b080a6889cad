"""The language server stays responsive while it analyses a large document: analyses run on one analysis thread,
requests are answered from finished analyses (the current text's within `ANSWER_WAIT_S`, else the last one's at
the lines above the first edited line), a newer edit replaces a queued analysis of an older text, and shutdown
and exit are prompt. Spoken to in raw JSON-RPC over stdio; "answered while the big document is analysed" is
checked by the order of the messages (the reply before the big document's diagnostics), with generous time
bounds only (the machine is loaded)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")

from test_lsp_robustness import BUGGY, Raw  # noqa: E402

SMALL_BUG_LINE = 6  # BUGGY's NC203 (0-based line of `return h @ w`)
GENEROUS_S = 20.0  # a request's reply, at most (the server answers within ANSWER_WAIT_S plus the loop's latency)


def heavy(n: int, tail: str = "") -> str:
    """`n` module-level array statements (each costs the analysis some milliseconds), then `tail`."""
    head = "import jax.numpy as jnp\n\nx = jnp.zeros((3, 5))\n"
    body = "".join(f"y{i} = jnp.ones((3, 4)) @ jnp.ones((4, 5)) + x\n" for i in range(n))
    return head + body + tail


BIG_LINES = 800
BIG_BUG = "w = jnp.zeros((4, 8)) + jnp.ones((5, 8))\n"  # NC201 on the line after the heavy part


class Client(Raw):
    """`Raw` that keeps every message in arrival order, with the time it came."""

    def __init__(self, cwd: Path) -> None:
        self.log: list[tuple[float, dict[str, Any]]] = []
        super().__init__(cwd)

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line == b"\r\n":
                    break
            assert length is not None
            msg = json.loads(out.read(length))
            self.log.append((time.monotonic(), msg))
            self.messages.put(msg)

    def ask(self, method: str, params: Any) -> int:
        """Send a request without waiting; its id."""
        self.next_id += 1
        self.send(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}).encode())
        return self.next_id

    def send(self, data: bytes) -> None:
        if not data.startswith(b"Content-Length"):
            data = b"Content-Length: %d\r\n\r\n" % len(data) + data
        super().send(data)

    def index(self, test: Any, timeout: float = 120) -> int:
        """The position in the log of the first message passing `test` (waiting for it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for i, (_, m) in enumerate(list(self.log)):
                if test(m):
                    return i
            time.sleep(0.02)
        raise AssertionError(f"no such message in {timeout} s; stderr: {b''.join(self.stderr)[-2000:]!r}")

    def reply(self, msg_id: int, timeout: float = 120) -> tuple[int, dict[str, Any]]:
        i = self.index(lambda m: m.get("id") == msg_id and "method" not in m, timeout)
        return i, self.log[i][1]

    def published(self, uri: str) -> list[tuple[int, dict[str, Any]]]:
        """(log position, params) of each publishDiagnostics of `uri` so far."""
        return [
            (i, m["params"])
            for i, (_, m) in enumerate(list(self.log))
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
        ]

    def open(self, uri: str, text: str, version: int = 1) -> None:
        item = {"uri": uri, "languageId": "python", "version": version, "text": text}
        self.notify("textDocument/didOpen", {"textDocument": item})

    def change(self, uri: str, text: str, version: int) -> None:
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )


def hover(line: int, character: int, uri: str) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def codes(params: dict[str, Any]) -> list[tuple[str, int]]:
    return [(d["code"], d["range"]["start"]["line"]) for d in params["diagnostics"]]


@pytest.fixture
def client(tmp_path: Path) -> Any:
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\n")
    c = Client(tmp_path)
    c.start(tmp_path)
    yield c
    if c.proc.poll() is None:
        c.proc.kill()
        c.proc.wait()


def test_requests_are_answered_while_a_big_document_is_analysed(client: Client, tmp_path: Path) -> None:
    small, big = (tmp_path / "small.py").as_uri(), (tmp_path / "big.py").as_uri()
    client.open(small, BUGGY)
    assert [d["code"] for d in client.diagnostics(small)] == ["NC203"]
    client.notify("workspace/didChangeConfiguration", {"settings": {"namedcheck": {"inlayHints": True}}})

    client.open(big, heavy(BIG_LINES, BIG_BUG))
    time.sleep(0.3)  # the big document's analysis has started
    sent = time.monotonic()
    asked = [
        client.ask("textDocument/hover", hover(5, 4, small)),
        client.ask("textDocument/hover", hover(3, 1, big)),  # nothing finished for it yet: null, not a wait
        client.ask(
            "textDocument/inlayHint",
            {
                "textDocument": {"uri": small},
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 8, "character": 0}},
            },
        ),
        client.ask(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": small},
                "range": {
                    "start": {"line": SMALL_BUG_LINE, "character": 0},
                    "end": {"line": SMALL_BUG_LINE, "character": 20},
                },
                "context": {"diagnostics": []},
            },
        ),
    ]
    replies = [client.reply(i) for i in asked]
    big_done = client.index(
        lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == big
    )
    # every reply came before the big document's diagnostics, i.e. while its analysis ran
    assert all(at < big_done for at, _ in replies), (replies, big_done)
    assert all(client.log[at][0] - sent < GENEROUS_S for at, _ in replies)
    (_, h_small), (_, h_big), (_, hints), (_, actions) = replies
    assert "f32[Array, Dims(4, 8)]" in h_small["result"]["contents"]["value"]
    assert h_big["result"] is None
    assert [h["label"] for h in hints["result"]] == [": f32[Array, Dims(4, 8)]"]
    assert any(a["title"] == "Ignore NC203 on this line" for a in actions["result"])
    assert codes(client.published(big)[-1][1]) == [("NC201", BIG_LINES + 3)]

    # the small document's diagnostics still come for its new text, and a hover on the big one now answers
    client.change(small, BUGGY.replace("return h @ w", "return h"), 2)
    at = client.index(
        lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == 2
    )
    assert client.log[at][1]["params"]["uri"] == small and client.log[at][1]["params"]["diagnostics"] == []
    got = client.request("textDocument/hover", hover(BIG_LINES + 2, 1, big))
    assert "f32[Array" in got["result"]["contents"]["value"]
    assert client.close() == 0


def test_a_stale_analysis_answers_above_the_edit_only(client: Client, tmp_path: Path) -> None:
    """While the edited big document is analysed again, a hover above the edited line is answered from the
    last analysis (same text there), one below it is null (a line there may hold another expression now)."""
    big = (tmp_path / "big.py").as_uri()
    text = heavy(3 * BIG_LINES, BIG_BUG)  # (its analysis takes seconds even on a fast machine)
    client.open(big, text)
    assert codes({"diagnostics": client.diagnostics(big)}) == [("NC201", 3 * BIG_LINES + 3)]
    edited = text.replace("y100 = jnp.ones((3, 4))", "y100 = jnp.ones((3, 4, 1))")
    client.change(big, edited, 2)
    time.sleep(0.3)  # past the debounce: the edited text is being analysed
    above = client.ask("textDocument/hover", hover(50, 1, big))  # `y47`
    below = client.ask("textDocument/hover", hover(300, 1, big))
    at_above, got_above = client.reply(above)
    at_below, got_below = client.reply(below)
    done = client.index(
        lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == 2
    )
    assert at_above < done and at_below < done
    assert "f32[Array, Dims(3, 5)]" in got_above["result"]["contents"]["value"]
    assert got_below["result"] is None
    # once analysed, the new text answers everywhere
    got = client.request("textDocument/hover", hover(300, 1, big))
    assert "f32[Array, Dims(3, 5)]" in got["result"]["contents"]["value"]


def test_rapid_edits_publish_the_last_text_only(client: Client, tmp_path: Path) -> None:
    """Edits while an older text is analysed: the queued analyses of the texts in between are replaced, the
    older text's diagnostics are never published after a newer one's, the last text's are."""
    big = (tmp_path / "big.py").as_uri()
    client.open(big, heavy(BIG_LINES))
    time.sleep(0.3)
    for version in range(2, 7):
        tail = f"w = jnp.zeros((4, {version})) + jnp.ones((5, {version}))\n" if version == 6 else f"z = {version}\n"
        client.change(big, heavy(BIG_LINES, tail), version)
        time.sleep(0.05 if version < 4 else 0.4)  # the last ones past the debounce: queued behind the running one
    last = client.index(
        lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == 6
    )
    time.sleep(1.0)
    published = client.published(big)
    versions = [p.get("version") for _, p in published]
    assert versions == sorted(versions) and versions[-1] == 6 and published[-1][0] == last, versions
    assert all(v in (1, 6) for v in versions), versions  # the texts in between were never published
    assert codes(published[-1][1]) == [("NC201", BIG_LINES + 3)]


def test_shutdown_and_exit_while_an_analysis_runs(client: Client, tmp_path: Path) -> None:
    big = (tmp_path / "big.py").as_uri()
    client.open(big, heavy(2 * BIG_LINES, BIG_BUG))
    time.sleep(0.3)
    start = time.monotonic()
    at, got = client.reply(client.ask("shutdown", None))
    assert "result" in got and not client.published(big)  # answered while the analysis runs
    client.notify("exit", None)
    assert client.proc.wait(timeout=GENEROUS_S) == 0
    assert time.monotonic() - start < GENEROUS_S
    assert not client.published(big)


def test_a_newer_text_replaces_a_queued_analysis() -> None:
    """The analysis thread: a queued analysis of an older text is replaced by the newer one (its future
    cancelled), the same text shares a job, `drop` cancels a queued one, state changes run in order."""
    import asyncio
    import threading

    from namedcheck.lsp.worker import AnalysisWorker

    async def scenario() -> list[str]:
        ran: list[str] = []
        gate = threading.Event()
        worker = AnalysisWorker(asyncio.get_running_loop())
        first = worker.submit("a", "1", lambda: gate.wait(30) and ran.append("a1"))
        while not worker.running:  # the first job runs (and waits for the gate)
            await asyncio.sleep(0.01)
        older = worker.submit("a", "2", lambda: ran.append("a2"))
        same = worker.submit("a", "1", lambda: ran.append("again"))  # the running text: its job
        other = worker.submit("b", "1", lambda: ran.append("b1"))
        state = worker.call(lambda: ran.append("state"))
        newer = worker.submit("a", "3", lambda: ran.append("a3"))
        dropped = worker.submit("c", "1", lambda: ran.append("c1"))
        worker.drop("c")
        assert same is first and older.cancelled() and dropped.cancelled()
        gate.set()
        await asyncio.wait({first, other, state, newer}, timeout=30)
        assert newer.done() and not newer.cancelled()
        worker.stop()
        assert worker.submit("a", "4", lambda: ran.append("a4")).cancelled()
        return ran

    assert asyncio.run(scenario()) == ["a1", "b1", "state", "a3"]


def test_the_time_budget_bounds_an_analysis_on_the_analysis_thread(tmp_path: Path) -> None:
    """The file's time budget holds on the analysis thread: the large document is cut short with its NC001
    note, and the real error before the cut is still reported."""
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\ntime-budget = 1\n")
    c = Client(tmp_path)
    try:
        c.start(tmp_path)
        big = (tmp_path / "big.py").as_uri()
        c.open(big, heavy(3, BIG_BUG) + heavy(4 * BIG_LINES))
        found = codes({"diagnostics": c.diagnostics(big)})
        assert ("NC201", 6) in found and ("NC001", 0) in found, found
        assert c.close() == 0
    finally:
        if c.proc.poll() is None:
            c.proc.kill()
            c.proc.wait()
