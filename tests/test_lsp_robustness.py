"""The language server under hostile clients: `namedcheck lsp` spoken to in raw JSON-RPC over stdio (malformed
frames, bad parameters, documents never opened, oversized buffers), and its caches bounded over a long session
of unique edits."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")

from namedcheck.analyzer import chunks, parsing  # noqa: E402
from namedcheck.analyzer.budget import Limits, resident_mb  # noqa: E402
from namedcheck.analyzer.check import check_source  # noqa: E402
from namedcheck.analyzer.incremental import DocumentAnalyser  # noqa: E402
from namedcheck.analyzer.session import Session  # noqa: E402

BUGGY = """import jax.numpy as jnp
from namedcheck import f32


def project(x: f32[(4, 8)], w: f32[(16, 3)]):
    h = jnp.tanh(x)
    return h @ w
"""


def frame(obj: Any) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Raw:
    """`namedcheck lsp` as a subprocess, spoken to in bytes; a thread collects what it sends back."""

    def __init__(self, cwd: Path) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "namedcheck", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
        )
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.stderr: list[bytes] = []
        self.next_id = 100
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._err, daemon=True).start()

    def _err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)

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
            self.messages.put(json.loads(out.read(length)))

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send(frame({"jsonrpc": "2.0", "method": method, "params": params}))

    def request(self, method: str, params: Any, raw: bytes | None = None) -> dict[str, Any]:
        """Send a request (or `raw` bytes holding one with the next id) and wait for its response."""
        self.next_id += 1
        msg_id = self.next_id
        if raw is None:
            raw = frame({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        self.send(raw)
        return self.wait(lambda m: m.get("id") == msg_id and "method" not in m)

    def wait(self, test: Any, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no answer in {timeout} s; stderr: {b''.join(self.stderr)[-2000:]!r}")
            try:
                m = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if test(m):
                return m

    def diagnostics(self, uri: str) -> list[dict[str, Any]]:
        m = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)
        return list(m["params"]["diagnostics"])

    def start(self, root: Path) -> None:
        got = self.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
        assert "result" in got
        self.notify("initialized", {})

    def close(self) -> int:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            return self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def server(tmp_path: Path) -> Any:
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\nmax-file-size = 1\n")
    raw = Raw(tmp_path)
    raw.start(tmp_path)
    yield raw
    if raw.proc.poll() is None:
        raw.proc.kill()
        raw.proc.wait()


def _hover(raw: Raw, uri: str, line: int = 5, character: int = 4) -> dict[str, Any]:
    return raw.request(
        "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
    )


def _open(raw: Raw, path: Path, text: str) -> str:
    uri = path.as_uri()
    raw.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}
    )
    return uri


MALFORMED = {
    "missing Content-Length": b'Content-Type: application/json\r\n\r\n{"jsonrpc": "2.0", "method": "x"}',
    "no header at all": b'{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}',
    "non-numeric Content-Length": b'Content-Length: twelve\r\n\r\n{"jsonrpc": "2.0"}',
    "negative Content-Length": b'Content-Length: -40\r\n\r\n{"jsonrpc": "2.0"}',
    "zero Content-Length": b"Content-Length: 0\r\n\r\n",
    "short Content-Length": b'Content-Length: 5\r\n\r\n{"jsonrpc": "2.0", "method": "initialized", "params": {}}',
    "Content-Length past the body": b'Content-Length: 4000\r\n\r\n{"jsonrpc": "2.0", "method": "x"}',
    "binary garbage": bytes(range(256)) * 8 + b"\r\n\r\n\x00\xff",
    "several GB Content-Length": b"Content-Length: 5000000000\r\n\r\n{}",
    "body not JSON": b"Content-Length: 9\r\n\r\n{not json",
    "JSON that is not an object": frame([1, 2, 3]),
    "header without a blank line": b"Content-Length: 10\r\n{}",
    "deeply nested JSON": b"Content-Length: 200000\r\n\r\n" + b"[" * 100_000 + b"]" * 100_000,
}


def test_malformed_frames_are_skipped(server: Raw, tmp_path: Path) -> None:
    """After each malformed frame the next valid request is answered (the reader resynchronises on the next
    header and logs the skip); the process stays up."""
    path = tmp_path / "model.py"
    path.write_text(BUGGY)
    uri = _open(server, path, BUGGY)
    assert [d["code"] for d in server.diagnostics(uri)] == ["NC203"]
    for name, bad in MALFORMED.items():
        got = server.request(
            "textDocument/hover",
            None,
            raw=bad
            + frame(
                {
                    "jsonrpc": "2.0",
                    "id": server.next_id + 1,
                    "method": "textDocument/hover",
                    "params": {"textDocument": {"uri": uri}, "position": {"line": 5, "character": 4}},
                }
            ),
        )
        assert got.get("result") is not None and "f32[Array, Dims(4, 8)]" in got["result"]["contents"]["value"], name
    assert server.proc.poll() is None
    log = b"".join(server.stderr).decode(errors="replace")
    assert "malformed input from the client" in log
    assert "more than 67108864" in log  # the several-GB frame: skipped unread
    assert server.close() == 0


def test_every_request_is_answered(server: Raw, tmp_path: Path) -> None:
    """Bad parameters get InvalidParams; positions and ranges outside the document an empty result; a
    document the client never opened an empty result (never read from disk, not even a FIFO)."""
    path = tmp_path / "model.py"
    path.write_text(BUGGY)
    uri = _open(server, path, BUGGY)
    server.diagnostics(uri)
    doc = {"uri": uri}
    bad_params = [
        ("textDocument/hover", None),
        ("textDocument/hover", {"textDocument": doc}),
        ("textDocument/hover", {"textDocument": doc, "position": {"line": "four", "character": 0}}),
        ("textDocument/hover", {"textDocument": 7, "position": {"line": 0, "character": 0}}),
        ("textDocument/hover", {"textDocument": doc, "position": {"line": -1, "character": 0}}),
        ("textDocument/hover", {"textDocument": doc, "position": {"line": 10**30, "character": 0}}),
        ("textDocument/codeAction", None),
        ("textDocument/codeAction", {"textDocument": doc, "range": [], "context": {"diagnostics": []}}),
        ("textDocument/inlayHint", {"textDocument": doc, "range": {"start": 0, "end": 1}}),
        ("textDocument/inlayHint", []),
    ]
    for method, params in bad_params:
        got = server.request(method, params)
        assert got.get("error", {}).get("code") == -32602, (method, params, got)

    def pos(line: int, character: int) -> dict[str, int]:
        return {"line": line, "character": character}

    empty = [
        ("textDocument/hover", {"textDocument": doc, "position": pos(2**31 - 1, 2**31 - 1)}),
        ("textDocument/hover", {"textDocument": doc, "position": pos(4, 10**6)}),
        ("textDocument/hover", {"textDocument": doc, "position": pos(500, 0)}),
        ("textDocument/inlayHint", {"textDocument": doc, "range": {"start": pos(900, 0), "end": pos(2**31 - 1, 0)}}),
        ("textDocument/inlayHint", {"textDocument": doc, "range": {"start": pos(6, 0), "end": pos(0, 0)}}),
        (
            "textDocument/codeAction",
            {"textDocument": doc, "range": {"start": pos(800, 0), "end": pos(900, 5)}, "context": {"diagnostics": []}},
        ),
    ]
    for method, params in empty:
        got = server.request(method, params)
        assert "error" not in got and got["result"] in (None, []), (method, params, got)

    # documents never opened: an empty result, nothing read (a FIFO would block, /dev/zero exhaust memory)
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    for never in [fifo.as_uri(), "file:///dev/zero", (tmp_path / "model2.py").as_uri(), "untitled:x"]:
        got = server.request("textDocument/hover", {"textDocument": {"uri": never}, "position": pos(0, 0)})
        assert got == {"jsonrpc": "2.0", "id": server.next_id, "result": None}, never
        got = server.request(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": never},
                "range": {"start": pos(0, 0), "end": pos(0, 0)},
                "context": {"diagnostics": []},
            },
        )
        assert got["result"] == [], never
    # an unknown method is MethodNotFound; a request that is not JSON-RPC 2.0 is InvalidRequest
    assert server.request("namedcheck/nothing", {})["error"]["code"] == -32601
    server.next_id += 1
    server.send(frame({"jsonrpc": "1.0", "id": server.next_id, "method": "textDocument/hover", "params": {}}))
    assert server.wait(lambda m: m.get("id") == server.next_id)["error"]["code"] == -32600
    assert "f32[Array, Dims(4, 8)]" in _hover(server, uri)["result"]["contents"]["value"]
    assert server.close() == 0


def test_requests_after_shutdown_are_answered(server: Raw) -> None:
    """After `shutdown`, a request is an InvalidRequest error (not silence); `exit` then ends the process."""
    assert server.request("shutdown", None)["result"] is None
    got = server.request(
        "textDocument/hover", {"textDocument": {"uri": "file:///x.py"}, "position": {"line": 0, "character": 0}}
    )
    assert got["error"]["code"] == -32600
    server.notify("exit", None)
    assert server.proc.wait(timeout=30) == 0


def test_buffer_past_the_size_cap(server: Raw, tmp_path: Path) -> None:
    """A buffer larger than max-file-size (1 MB here) is one NC001, not analysed; hover answers at once."""
    path = tmp_path / "big.py"
    text = BUGGY + "x = 1  # " + "y" * (1024 * 1024) + "\n"
    uri = _open(server, path, text)
    diags = server.diagnostics(uri)
    assert [(d["code"], d["range"]["start"]["line"]) for d in diags] == [("NC001", 0)]
    assert "larger than 1 MB" in diags[0]["message"]
    assert _hover(server, uri)["result"] is None
    assert server.close() == 0


def test_a_bad_stub_is_said_once_and_the_file_still_checked(tmp_path: Path) -> None:
    """A stub-paths entry that cannot be used (here a syntax error) is one error message, as the CLI's exit-2
    message, and the buffer is analysed without it: its own NC203 is reported, never an NC000 per file."""
    (tmp_path / "stubs").mkdir()
    (tmp_path / "stubs" / "broken.pyi").write_text("def f(:\n")
    (tmp_path / "pyproject.toml").write_text('[tool.namedcheck]\nstub-paths = ["stubs"]\n')
    raw = Raw(tmp_path)
    try:
        raw.start(tmp_path)
        uri = _open(raw, tmp_path / "model.py", BUGGY)
        shown = raw.wait(lambda m: m.get("method") == "window/showMessage")
        assert "stub file cannot be used" in shown["params"]["message"]
        assert "broken.pyi" in shown["params"]["message"]
        codes = [d["code"] for d in raw.diagnostics(uri)]
        assert codes == ["NC203"]
        assert raw.close() == 0
    finally:
        if raw.proc.poll() is None:
            raw.proc.kill()
            raw.proc.wait()


# ---- memory over a long session ------------------------------------------------------------------------------


def _edit(i: int) -> str:
    return BUGGY.replace("(4, 8)", f"({i % 97 + 1}, 8)") + f"\n\ndef helper_{i}(a):\n    return a * {i}\n"


@pytest.mark.slow
def test_caches_stay_bounded_over_unique_edits(tmp_path: Path) -> None:
    """1,500 unique edits through DocumentAnalyser: the chunk cache stays within its bounds and resident memory
    grows by far less than the ~36 KB per edit an unbounded cache took."""
    path = tmp_path / "model.py"
    path.write_text(BUGGY)
    old = chunks._cache
    chunks._cache = chunks.LRU(200, 50_000)  # small bounds, so that 1,500 edits pass them many times
    try:
        analyser = DocumentAnalyser(str(path), session=Session(limits=Limits(), editor=True))
        for i in range(300):  # warm up: the interpreter's own caches
            analyser.analyse(_edit(i))
        start = resident_mb()
        for i in range(300, 1800):
            a = analyser.analyse(_edit(i))
            assert [d.code for d in a.diagnostics] == ["NC203"]
            assert len(chunks._cache) <= 200 and chunks._cache.weight <= 50_000
        grown = resident_mb() - start
    finally:
        chunks._cache = old
    assert len(analyser.replays) <= 2
    assert grown < 15, f"resident memory grew {grown:.1f} MB over 1,500 unique edits"


def test_lru_bounds() -> None:
    lru: chunks.LRU[str, int] = chunks.LRU(3, 10)
    for k, w in [("a", 2), ("b", 2), ("c", 2)]:
        lru.put(k, 1, w)
    assert lru.get("a") == 1  # a is now the most recent
    lru.put("d", 1, 2)  # over the count: b (least recently used) leaves
    assert "b" not in lru and "a" in lru and len(lru) == 3
    lru.put("e", 1, 7)  # over the weight: the oldest leave until it fits
    assert lru.weight <= 10 and "e" in lru and len(lru) == 2


def test_program_records_do_not_grow_over_edits(tmp_path: Path) -> None:
    """The project's shared config records (mutated configs, where settings were set) once grew by each edit's
    entries (about 30 KB an edit, holding old syntax trees); they return to their size after each analysis."""
    src = (Path(__file__).parent / "cases" / "entry_configs.py").read_text()
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\n")
    path = tmp_path / "model.py"
    path.write_text(src)
    session = Session(limits=Limits(), editor=True)
    analyser = DocumentAnalyser(str(path), session=session)
    project = session.project(str(path))
    assert project is not None
    sizes = []
    for i in range(20):
        analyser.analyse(src.replace("config.batch_size = 4", f"config.batch_size = {i + 4}"))
        sizes.append(sum(len(getattr(project.program, n)) for n in ("mutated", "set_at", "read_at", "flags")))
    assert sizes[-1] == sizes[1], sizes


HOSTILE = {
    "binary chain": "x = " + " + ".join(["1"] * 5000) + "\n",
    "unary chain": "x = " + "-" * 100_000 + "1\n",
    "nested lambdas": "x = " + "lambda: " * 5000 + "1\n",
    "attribute chain": "x = a" + ".b" * 20_000 + "\n",
    "NUL byte": "x = '\0'\n",
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_hostile_buffers_are_refused_before_libcst(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every chunk of a buffer passes the resource guard before libcst parses it: a hostile statement is one
    NC001 (as the CLI reports it), and libcst never sees it."""
    text = "import jax.numpy as jnp\n\n" + HOSTILE[kind]
    want = check_source(text, "h.py")
    assert [d.code for d in want] == ["NC001"]
    seen: list[str] = []
    real = parsing.parse_module

    def parse(source: str, trusted: bool = False) -> Any:
        seen.append(source)
        return real(source, trusted)

    monkeypatch.setattr(parsing, "parse_module", parse)
    assert DocumentAnalyser("h.py").analyse(text).diagnostics == want
    assert not any(HOSTILE[kind] in s for s in seen)


@pytest.mark.parametrize(
    "folder, spelling",
    [
        ("tiny+plus", "raw"),
        ("tiny+plus", "quoted"),
        ("with space", "quoted"),
        ("ünï cödé 名前", "quoted"),
        ("ünï+ +x", "raw"),
        ("100%", "quoted"),
    ],
)
def test_a_path_that_needs_escaping_gets_diagnostics_and_hover(
    server: Raw, tmp_path: Path, folder: str, spelling: str
) -> None:
    """A file whose path has `+`, a space, unicode or `%`, whether the URI spells them raw or percent-encoded
    (`%2B`, as VS Code sends it): diagnostics, hover, and the diagnostics sent back under the URI opened."""
    from urllib.parse import quote

    path = tmp_path / folder / "t.py"
    path.parent.mkdir()
    path.write_text(BUGGY)
    uri = "file://" + (quote(str(path)) if spelling == "quoted" else str(path))
    server.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": BUGGY}}
    )
    assert [d["code"] for d in server.diagnostics(uri)] == ["NC203"]
    assert "f32[Array, Dims(4, 8)]" in _hover(server, uri)["result"]["contents"]["value"]
    assert server.close() == 0


def test_exit_without_shutdown_ends_with_status_1(server: Raw) -> None:
    """LSP: `exit` before any `shutdown` ends the server with status 1 (after one, 0: the tests above)."""
    server.notify("exit", None)
    assert server.proc.wait(timeout=30) == 1
