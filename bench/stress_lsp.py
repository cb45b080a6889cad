"""The stress suite's language-server parts (`bench/stress.py soak | frames | latency`, tests/stress/): a
JSON-RPC client over stdio written from bytes up (so that it can also send malformed frames), a soak of unique
edits with requests between them, malformed frames and bad parameters each followed by a valid request, hostile
buffers opened in the editor, and the latency of requests while a large document is analysed.

The server runs in a session of its own under an address-space limit; it is killed at the end."""

from __future__ import annotations

import json
import os
import queue
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stress_runs import BUGGY, BUGGY_LINE, MEMORY_LIMIT, _project

ANSWER_S = 30.0  # seconds a request may wait for its response before it counts as unanswered


class Client:
    """`python -m namedcheck lsp` on pipes; responses by id, published diagnostics by uri."""

    def __init__(self, root: Path, memory: int = MEMORY_LIMIT) -> None:
        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "namedcheck", "lsp"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            preexec_fn=limit,
            start_new_session=True,
        )
        self.root = root
        self.next_id = 0
        self.responses: dict[Any, queue.Queue] = {}
        self.lock = threading.Lock()
        self.diagnostics: dict[str, list[dict]] = {}
        self.published = threading.Condition()
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()

    # ---- the wire ---------------------------------------------------------------------------------------
    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while True:
                length = None
                while True:
                    line = out.readline()
                    if not line:
                        raise EOFError
                    if line in (b"\r\n", b"\n"):
                        break
                    name, _, value = line.decode("ascii", "replace").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length is None:
                    continue
                body = out.read(length)
                if len(body) < length:
                    raise EOFError
                self._dispatch(json.loads(body))
        except (EOFError, ValueError, OSError):
            self.closed = True
            with self.published:
                self.published.notify_all()

    def _dispatch(self, msg: dict) -> None:
        if "method" in msg and "id" in msg:  # a request of the server's (configuration, registration)
            self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
        elif "method" in msg:
            if msg["method"] == "textDocument/publishDiagnostics":
                with self.published:
                    self.diagnostics[msg["params"]["uri"]] = msg["params"]["diagnostics"]
                    self.published.notify_all()
        else:
            with self.lock:
                q = self.responses.setdefault(msg.get("id"), queue.Queue())
            q.put(msg)

    def send_raw(self, data: bytes) -> None:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.closed = True

    def send(self, msg: dict) -> None:
        body = json.dumps(msg).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    # ---- messages ---------------------------------------------------------------------------------------
    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request_async(self, method: str, params: Any, raw_id: Any = None) -> Any:
        with self.lock:
            self.next_id += 1
            rid = self.next_id if raw_id is None else raw_id
            self.responses.setdefault(rid, queue.Queue())
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not ...:
            msg["params"] = params
        self.send(msg)
        return rid

    def wait(self, rid: Any, timeout: float = ANSWER_S) -> dict | None:
        with self.lock:
            q = self.responses.setdefault(rid, queue.Queue())
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                return q.get(timeout=0.1)
            except queue.Empty:
                if self.closed or self.proc.poll() is not None:
                    return None
        return None

    def request(self, method: str, params: Any, timeout: float = ANSWER_S) -> tuple[dict | None, float]:
        start = time.monotonic()
        got = self.wait(self.request_async(method, params), timeout)
        return got, time.monotonic() - start

    def initialize(self, hints: bool = True) -> bool:
        got, _ = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": self.root.as_uri(),
                "capabilities": {},
                "initializationOptions": {"inlayHints": hints},
            },
            120,
        )
        self.notify("initialized", {})
        return got is not None and "result" in got

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}},
        )

    def change(self, uri: str, text: str, version: int) -> None:
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
        )

    def wait_diagnostics(self, uri: str, timeout: float = ANSWER_S) -> list[dict] | None:
        deadline = time.monotonic() + timeout
        with self.published:
            while uri not in self.diagnostics:
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    return None
                self.published.wait(left)
            return self.diagnostics[uri]

    def rss_mb(self) -> float:
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0

    def alive(self) -> bool:
        return self.proc.poll() is None

    def log(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        self.stderr.close()


def _start(root: Path) -> tuple[Client, str]:
    _project(root)
    path = root / "model.py"
    path.write_text(BUGGY)
    c = Client(root)
    if not c.initialize():
        raise RuntimeError(f"the server did not answer initialize: {c.log()[-400:]}")
    return c, path.as_uri()


# ---- the soak --------------------------------------------------------------------------------------------


@dataclass
class Soak:
    edits: int
    requests: int = 0
    unanswered: int = 0
    errors: int = 0  # error responses to valid requests
    latencies: list[float] = field(default_factory=list)
    rss: list[tuple[int, float]] = field(default_factory=list)  # (edits done, MB)
    died: str = ""

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return 0.0
        xs = sorted(self.latencies)
        return xs[min(len(xs) - 1, int(q * len(xs)))]

    def slope(self, start_fraction: float = 0.5) -> float:
        """Resident memory growth in MB per 1,000 edits over the last part of the session (least squares)."""
        pts = [(e, m) for e, m in self.rss if e >= self.edits * start_fraction]
        if len(pts) < 2:
            return 0.0
        xs, ys = [e for e, _ in pts], [m for _, m in pts]
        mx, my = statistics.fmean(xs), statistics.fmean(ys)
        den = sum((x - mx) ** 2 for x in xs)
        return 1000 * sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den if den else 0.0


def edit_text(i: int) -> str:
    """The buffer after edit `i`: the buggy model and a definition no earlier edit wrote (a new text each time)."""
    return (
        BUGGY
        + f"\n\ndef extra{i}(x: f32[({i % 97 + 1}, 8)], w: f32[(8, {i % 89 + 2})]):\n"
        + f"    y = jnp.tanh(x @ w) * {i}\n    return y\n"
    )


def soak(work: Path, edits: int, sample_every: int = 50, progress=None) -> Soak:
    """`edits` unique full-text changes, each followed by a hover, inlay-hint or code-action request (which
    makes the server analyse that text); resident memory sampled every `sample_every` edits."""
    root = work / "soak"
    c, uri = _start(root)
    s = Soak(edits)
    try:
        c.open(uri, BUGGY)
        if c.wait_diagnostics(uri, 120) is None:
            s.died = "no diagnostics for the opened document"
            return s
        s.rss.append((0, c.rss_mb()))
        for i in range(1, edits + 1):
            text = edit_text(i)
            c.change(uri, text, i + 1)
            which = i % 3
            if which == 0:
                params: dict = {"textDocument": {"uri": uri}, "position": {"line": 5, "character": 4}}
                method = "textDocument/hover"
            elif which == 1:
                method = "textDocument/inlayHint"
                params = {
                    "textDocument": {"uri": uri},
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 14, "character": 0}},
                }
            else:
                method = "textDocument/codeAction"
                line = BUGGY_LINE - 1
                params = {
                    "textDocument": {"uri": uri},
                    "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 20}},
                    "context": {"diagnostics": []},
                }
            got, seconds = c.request(method, params)
            s.requests += 1
            if got is None:
                s.unanswered += 1
                if not c.alive():
                    s.died = f"the server exited ({c.proc.returncode}) at edit {i}: {c.log()[-300:]}"
                    break
            else:
                s.latencies.append(seconds)
                s.errors += "error" in got
            if i % sample_every == 0 or i == edits:
                s.rss.append((i, c.rss_mb()))
                if progress is not None:
                    progress(s, i)
    finally:
        c.close()
    return s


# ---- malformed frames and bad parameters ------------------------------------------------------------------

HOVER_OK = {"textDocument": {"uri": ""}, "position": {"line": 5, "character": 4}}


def _frames(uri: str, fifo: str) -> list[tuple[str, bytes | dict]]:
    """(name, raw bytes to send | a request's params keyed by method). Each is followed by a valid hover."""
    doc = {"uri": uri}
    far = {"line": 10**6, "character": 10**6}
    return [
        ("no Content-Length", b'Content-Type: application/json\r\n\r\n{"jsonrpc": "2.0", "id": 9001, "method": "x"}'),
        ("non-numeric Content-Length", b'Content-Length: abc\r\n\r\n{"jsonrpc": "2.0"}'),
        ("negative Content-Length", b'Content-Length: -5\r\n\r\n{"jsonrpc": "2.0"}'),
        ("short Content-Length", b'Content-Length: 10\r\n\r\n{"jsonrpc": "2.0", "id": 9002, "method": "shutdown"}'),
        ("binary garbage", bytes(range(256)) * 4 + b"\r\n\r\n"),
        ("garbage body", b"Content-Length: 8\r\n\r\n\xff\xfe{]}\x00\x01\x02"),
        ("Content-Length of 5 GB", b"Content-Length: 5000000000\r\n\r\n{}"),
        ("hover, null params", {"method": "textDocument/hover", "params": None}),
        ("hover, no params", {"method": "textDocument/hover", "params": ...}),
        ("hover, params a list", {"method": "textDocument/hover", "params": [1, 2]}),
        ("hover, wrong types", {"method": "textDocument/hover", "params": {"textDocument": 5, "position": "x"}}),
        (
            "hover, negative position",
            {
                "method": "textDocument/hover",
                "params": {"textDocument": doc, "position": {"line": -1, "character": -5}},
            },
        ),
        (
            "hover, huge position",
            {
                "method": "textDocument/hover",
                "params": {"textDocument": doc, "position": {"line": 2**40, "character": 2**63}},
            },
        ),
        ("hover, far position", {"method": "textDocument/hover", "params": {"textDocument": doc, "position": far}}),
        (
            "inlay hints, out-of-range range",
            {"method": "textDocument/inlayHint", "params": {"textDocument": doc, "range": {"start": far, "end": far}}},
        ),
        (
            "inlay hints, inverted range",
            {
                "method": "textDocument/inlayHint",
                "params": {
                    "textDocument": doc,
                    "range": {"start": {"line": 6, "character": 0}, "end": {"line": 0, "character": 0}},
                },
            },
        ),
        (
            "inlay hints, negative range",
            {
                "method": "textDocument/inlayHint",
                "params": {
                    "textDocument": doc,
                    "range": {"start": {"line": -3, "character": -1}, "end": {"line": -1, "character": 0}},
                },
            },
        ),
        (
            "code action, null context",
            {
                "method": "textDocument/codeAction",
                "params": {"textDocument": doc, "range": {"start": far, "end": far}, "context": None},
            },
        ),
        (
            "code action, huge range",
            {
                "method": "textDocument/codeAction",
                "params": {
                    "textDocument": doc,
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 2**62, "character": 2**62}},
                    "context": {"diagnostics": []},
                },
            },
        ),
        (
            "hover on a document never opened (/dev/zero)",
            {
                "method": "textDocument/hover",
                "params": {"textDocument": {"uri": "file:///dev/zero"}, "position": {"line": 0, "character": 0}},
            },
        ),
        (
            "hover on a document never opened (a FIFO)",
            {
                "method": "textDocument/hover",
                "params": {"textDocument": {"uri": Path(fifo).as_uri()}, "position": {"line": 0, "character": 0}},
            },
        ),
        (
            "code action on a document never opened (/dev/zero)",
            {
                "method": "textDocument/codeAction",
                "params": {
                    "textDocument": {"uri": "file:///dev/zero"},
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                    "context": {"diagnostics": []},
                },
            },
        ),
        ("unknown method", {"method": "namedcheck/noSuchMethod", "params": {}}),
        ("string id", {"method": "textDocument/hover", "params": HOVER_OK, "id": "abc"}),
    ]


@dataclass
class Frame:
    name: str
    answered: bool = True  # the request itself was answered (JSON-level cases)
    after: bool = True  # the valid request after it was answered
    closed: str = ""  # the server ended the connection instead (with this log line)
    seconds: float = 0.0
    detail: str = ""

    internal: bool = False  # answered with an internal error (-32603) instead of InvalidParams or a result

    @property
    def ok(self) -> bool:
        if self.closed:  # ending the connection cleanly with a log line is allowed for a broken frame
            return bool(self.closed.strip()) and not self.closed.startswith("crash")
        return self.answered and self.after and not self.internal


def frames(work: Path, only: list[str] | None = None, answer_s: float = 10.0, progress=None) -> list[Frame]:
    """Each malformed frame or bad request, then a valid hover; one server until it stops answering."""
    root = work / "frames"
    fifo = work / "frames-fifo.py"
    if fifo.exists():
        fifo.unlink()
    os.mkfifo(fifo)
    out: list[Frame] = []
    c: Client | None = None
    uri = ""
    for name, what in _frames((root / "model.py").as_uri(), str(fifo)):
        if only and name not in only:
            continue
        if c is None:
            c, uri = _start(root)
            c.open(uri, BUGGY)
            c.wait_diagnostics(uri, 120)
        f = Frame(name)
        start = time.monotonic()
        if isinstance(what, bytes):
            c.send_raw(what)
        else:
            params = what["params"]
            if isinstance(params, dict) and params.get("textDocument") == {"uri": ""}:
                params = {**params, "textDocument": {"uri": uri}}
            rid = c.request_async(what["method"], params, what.get("id"))
            got = c.wait(rid, answer_s)
            f.answered = got is not None
            if got is not None and "error" in got:
                f.detail = f"error {got['error'].get('code')}"
                f.internal = got["error"].get("code") == -32603
            elif got is not None:
                f.detail = "result " + json.dumps(got.get("result"))[:60]
        time.sleep(0.2)
        hover = dict(HOVER_OK, textDocument={"uri": uri})
        got, _ = c.request("textDocument/hover", hover, answer_s)
        f.after = got is not None and "result" in got
        f.seconds = time.monotonic() - start
        if not f.after:
            time.sleep(0.5)
            if not c.alive():
                log = c.log().strip().splitlines()
                rc = c.proc.returncode
                if rc < 0 or any("Traceback" in ln for ln in log):
                    f.closed = f"crash: exit {rc}: {log[-1] if log else ''}"
                else:
                    f.closed = log[-1] if log else ""
                f.detail += f" exited {rc}"
            else:
                f.detail += " deaf (alive, not answering)"
            c.close()
            c = None
        out.append(f)
        if progress is not None:
            progress(f)
    if c is not None:
        c.close()
    fifo.unlink()
    return out


# ---- hostile buffers in the editor -----------------------------------------------------------------------


@dataclass
class Buffer:
    kind: str
    answered: bool = False
    buggy_kept: bool = False
    alive: bool = False
    seconds: float = 0.0
    peak_mb: float = 0.0
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.answered and self.buggy_kept and self.alive


def hostile_buffer(work: Path, name: str, text: str, limit: float) -> Buffer:
    """Open `text` beside the buggy model: a hover on it is answered within `limit` s, the model's NC201 still
    published, the server alive."""
    root = work / f"buffer-{name}"
    c, uri = _start(root)
    b = Buffer(name)
    try:
        c.open(uri, BUGGY)
        c.wait_diagnostics(uri, 120)
        other = (root / "hostile.py").as_uri()
        start = time.monotonic()
        c.open(other, text)
        got, _ = c.request(
            "textDocument/hover", {"textDocument": {"uri": other}, "position": {"line": 1, "character": 1}}, limit
        )
        b.seconds = time.monotonic() - start
        b.answered = got is not None
        c.diagnostics.pop(uri, None)
        c.change(uri, BUGGY + "\n", 2)
        diags = c.wait_diagnostics(uri, limit) or []
        b.buggy_kept = any(d.get("code") == "NC201" for d in diags)
        b.alive = c.alive()
        b.peak_mb = _peak_mb(c.proc.pid)
        if not b.alive:
            b.detail = f"exited {c.proc.returncode}: {c.log().strip()[-200:]}"
    finally:
        c.close()
    return b


def _peak_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


# ---- latency while a large document is analysed ----------------------------------------------------------


def heavy_text(lines: int, tail: str = "") -> str:
    """`lines` module-level array statements (the analysis spends milliseconds on each), then `tail`."""
    body = "".join(f"y{i} = jnp.ones((3, 4)) @ jnp.ones((4, 5)) + x\n" for i in range(lines))
    return "import jax.numpy as jnp\n\nx = jnp.zeros((3, 5))\n" + body + tail


@dataclass
class Latency:
    lines: int
    analysis_s: float = 0.0  # from opening the large document to its diagnostics
    requests: int = 0  # sent while it was analysed (its first analysis and the one after an edit)
    unanswered: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)
    kinds: dict[str, list[float]] = field(default_factory=dict)  # by request: "hover big.py" -> latencies
    published: bool = False  # the large document's diagnostics came, for its last text
    died: str = ""

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return 0.0
        xs = sorted(self.latencies)
        return xs[min(len(xs) - 1, int(q * len(xs)))]


def latency(work: Path, lines: int = 3000, every: float = 0.05, answer_s: float = ANSWER_S) -> Latency:
    """Open a `lines`-statement document (under the parse-cost refusal of the 5 s budget up to about 3,500) beside
    the buggy model, and while it is analysed (then analysed again
    after an edit) send a hover, inlay-hint or code-action request every `every` seconds, on either document,
    one at a time: each request's time to its response."""
    root = work / "latency"
    c, uri = _start(root)
    out = Latency(lines)
    try:
        c.open(uri, BUGGY)
        if c.wait_diagnostics(uri, 120) is None:
            out.died = "no diagnostics for the model"
            return out
        big = (root / "big.py").as_uri()
        texts = [heavy_text(lines), heavy_text(lines, "z = x + 1\n")]
        line = BUGGY_LINE - 1
        requests = [
            ("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 5, "character": 4}}),
            ("textDocument/hover", {"textDocument": {"uri": big}, "position": {"line": 10, "character": 1}}),
            (
                "textDocument/inlayHint",
                {
                    "textDocument": {"uri": uri},
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 14, "character": 0}},
                },
            ),
            (
                "textDocument/codeAction",
                {
                    "textDocument": {"uri": uri},
                    "range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 20}},
                    "context": {"diagnostics": []},
                },
            ),
            ("textDocument/hover", {"textDocument": {"uri": big}, "position": {"line": lines, "character": 1}}),
        ]
        for version, text in enumerate(texts, 1):
            with c.published:
                c.diagnostics.pop(big, None)
            start = time.monotonic()
            if version == 1:
                c.open(big, text)
            else:
                c.change(big, text, version)
            i = 0
            while c.wait_diagnostics(big, every) is None:
                if not c.alive() or time.monotonic() - start > answer_s * 10:
                    out.died = f"no diagnostics for the large document: {c.log()[-300:]}"
                    return out
                method, params = requests[i % len(requests)]
                i += 1
                got, seconds = c.request(method, params, answer_s)
                out.requests += 1
                if got is None:
                    out.unanswered += 1
                else:
                    out.latencies.append(seconds)
                    doc = params["textDocument"]["uri"].rsplit("/", 1)[-1]
                    out.kinds.setdefault(f"{method.split('/')[-1]} {doc}", []).append(seconds)
                    out.errors += "error" in got
            if version == 1:
                out.analysis_s = time.monotonic() - start
        out.published = True
    finally:
        c.close()
    return out
