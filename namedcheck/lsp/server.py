"""`namedcheck lsp`: a Language Server over stdio (pygls). Diagnostics on open / change (debounced) / save,
hover with inferred types, inlay hints (off unless `inlayHints` is set), code actions (fixes and
"ignore NCxxx on this line"). One process keeps parsed chunks and analyses (analyzer/incremental.py).

Responsiveness: every analysis runs on one analysis thread (lsp/worker.py), one at a time; the loop thread only
reads and writes frames and answers requests from the latest finished analysis of a document: from the analysis
of its current text when that finishes within `ANSWER_WAIT_S`, else from the last one finished, at the lines
above the first line edited since (null or empty below them). A newer edit replaces the queued analysis of an
older text.

Hostile clients: frames are read by lsp/framing.py (a malformed frame is skipped and logged, never a deaf
server); every request is answered (InvalidParams for parameters that do not fit the method, an empty
result for a document the client has not opened or a position outside it); the server reads no document
the client did not open, and a buffer past `max-file-size` is one NC001, not analysed."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from namedcheck import __version__
from namedcheck.analyzer.causes import lost
from namedcheck.analyzer.incremental import (
    Analysis,
    DocumentAnalyser,
    called_with_at,
    format_value,
    oversized,
    symbols_of,
    values_at,
    why_at,
)
from namedcheck.analyzer.session import Session
from namedcheck.cli.config import Config, ConfigError, load_config, stub_problem
from namedcheck.diagnostic import Diagnostic, Fix, merge_contexts, selected
from namedcheck.edits.fixes import attach_fixes, ignore_fix
from namedcheck.lsp.framing import FrameReader
from namedcheck.lsp.hints import inlay_hints
from namedcheck.lsp.worker import AnalysisWorker

DEBOUNCE_S = 0.15
ANSWER_WAIT_S = 0.5  # how long a request waits for the analysis of the current text before the last one answers
SWITCH_INTERVAL_S = 0.001  # the loop thread gets the interpreter from the analysis thread within about this
MAX_CALLERS = 32  # importers of an open file analysed per edit for what they cause in it, the nearest first
EDITOR_LISTING_TTL = 30.0  # seconds a listing of the project's files is reused (a new file shows up after it)
MAX_CONFIGS = 64  # project configurations kept (one per folder of an open file)
MAX_SESSIONS = 8  # sessions kept (one per distinct configuration in use)
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class NamedcheckServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("namedcheck", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.analysers: dict[str, DocumentAnalyser] = {}
        # by uri: (text, generation of the open buffers it saw, analysis, diagnostics shown)
        self.results: dict[str, tuple[str, int, Analysis, list[Diagnostic]]] = {}
        self.sessions: dict[tuple[Any, ...], Session] = {}  # one per configuration
        self.generation = 0  # counts changes of open buffers' texts (a file's callers may have changed)
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.configs: OrderedDict[Path, Config | str] = OrderedDict()
        self.inlay_hints_enabled = False
        self.frames: FrameReader | None = None
        self.shut_down = False  # a shutdown request was received: later requests are InvalidRequest
        self.exit_code = 0  # the process's status: 1 after `exit` without `shutdown` (as LSP asks)
        self.analysis: AnalysisWorker | None = None  # the analysis thread (started with the loop)

    # ---- transport: frames read robustly, every request answered ---------------------------------
    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdio: pygls' loop, with frames read by `FrameReader` and each message handled by
        `handle_frame` (a request whose parameters do not fit gets an error, never silence)."""
        self._stop_event = threading.Event()
        self.frames = FrameReader(stdin or sys.stdin.buffer)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(self._serve_frames(self.frames))
        except BrokenPipeError:
            self.log_protocol("the connection to the client is lost: shutting down")
        except KeyboardInterrupt:
            pass
        except SystemExit as e:  # pygls ends the loop on `exit` with LSP's status
            if isinstance(e.code, int) and e.code:
                self.exit_code = e.code
        finally:
            self.shutdown()

    async def _serve_frames(self, frames: FrameReader) -> None:
        loop = asyncio.get_running_loop()
        self.worker()
        queue: asyncio.Queue[bytes | None] = asyncio.Queue(maxsize=4)

        def pump() -> None:  # a daemon thread: a read blocked on stdin never holds the process at exit
            while True:
                try:
                    body = frames.next_frame()
                except Exception as e:  # the reader's own bug: end the connection with a log line
                    frames.note(f"reading a frame failed: {type(e).__name__}: {e}")
                    body = None
                try:
                    asyncio.run_coroutine_threadsafe(queue.put(body), loop).result()
                except Exception:
                    return
                if body is None:
                    return

        threading.Thread(target=pump, name="namedcheck-lsp-reader", daemon=True).start()
        stop = self._stop_event
        while stop is None or not stop.is_set():
            body = await queue.get()
            for note in frames.take_notes():
                self.log_protocol(f"malformed input from the client: {note}")
            if body is None:
                break
            self.handle_frame(body)

    def handle_frame(self, body: bytes) -> None:
        """One message's body: handled by pygls when it is a well-formed message; otherwise logged, and
        answered with an error when it is a request."""
        try:
            raw = json.loads(body)
        except (ValueError, RecursionError):
            self.log_protocol("malformed input from the client: a frame whose body is not JSON (skipped)")
            return
        if not isinstance(raw, dict):
            self.log_protocol("malformed input from the client: a message that is not a JSON object (skipped)")
            return
        is_request = "method" in raw and "id" in raw
        msg_id = raw.get("id")
        if not (isinstance(msg_id, int | str) and not isinstance(msg_id, bool)):
            msg_id = None
        method = raw.get("method", "")
        if raw.get("jsonrpc") != "2.0" or not isinstance(method, str) or (is_request and msg_id is None):
            self.log_protocol("malformed input from the client: not a JSON-RPC 2.0 message (skipped)")
            if is_request:
                self.reply_error(msg_id, INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 request")
            return
        try:
            message = self.protocol.structure_message(raw)
        except Exception as e:
            code = e.code if isinstance(e, JsonRpcException) and e.code != INTERNAL_ERROR else INVALID_PARAMS
            self.log_protocol(f"malformed input from the client: {method or 'a message'} with invalid parameters")
            if is_request:
                self.reply_error(msg_id, code, f"Invalid params for {method}")
            return
        if self.shut_down and is_request:  # pygls drops them silently; LSP asks for an InvalidRequest error
            self.reply_error(msg_id, INVALID_REQUEST, f"Invalid request: {method} after shutdown")
            return
        self.shut_down = self.shut_down or (is_request and method == "shutdown")
        if method == "exit" and not is_request:
            self.exit_code = 0 if self.shut_down else 1
        try:
            self.protocol.handle_message(message)
        except Exception as e:  # pygls answers a request's handler errors itself; this is for its own
            self.log_protocol(f"handling {method or 'a message'} failed: {type(e).__name__}: {e}")
            if is_request:
                self.reply_error(msg_id, INTERNAL_ERROR, f"Internal error handling {method}")

    def reply_error(self, msg_id: int | str | None, code: int, message: str) -> None:
        data = json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}})
        writer = self.protocol.writer
        if writer is not None:
            writer.write(f"Content-Length: {len(data)}\r\n\r\n{data}".encode())

    def log_protocol(self, message: str) -> None:
        """A line on stderr and in the client's log (window/logMessage)."""
        print(f"namedcheck lsp: {message}", file=sys.stderr, flush=True)
        try:
            self.window_log_message(lsp.LogMessageParams(lsp.MessageType.Warning, f"namedcheck: {message}"))
        except Exception:
            pass

    # ---- configuration ---------------------------------------------------------------------------
    def config_for(self, path: str) -> Config | str:
        """The configuration of the file's own project (nearest pyproject.toml), or an error message."""
        folder = Path(path).parent
        if folder not in self.configs:
            try:
                cfg = load_config(folder)
                # a stub that cannot be used is said once, like a config error (the file is then analysed
                # without the user's stubs), never every file's NC000
                self.configs[folder] = stub_problem(cfg) or cfg
            except ConfigError as e:
                self.configs[folder] = str(e)
            while len(self.configs) > MAX_CONFIGS:
                self.configs.popitem(last=False)
        self.configs.move_to_end(folder)
        return self.configs[folder]

    def apply_settings(self, settings: Any) -> None:
        if isinstance(settings, dict):
            settings = settings.get("namedcheck", settings)
            if isinstance(settings, dict) and "inlayHints" in settings:
                self.inlay_hints_enabled = bool(settings["inlayHints"])

    # ---- analysis --------------------------------------------------------------------------------
    def session_for(self, cfg: Config) -> Session:
        """The session of a configuration: one project view for every open file that shares it."""
        key = (tuple(cfg.stub_paths), cfg.limits, cfg.devices)
        if key not in self.sessions:
            self.sessions[key] = Session(cfg.stub_paths, cfg.limits, editor=True, devices=cfg.devices)
            while len(self.sessions) > MAX_SESSIONS:  # the oldest configuration's (its analysers make new ones)
                del self.sessions[next(iter(self.sessions))]
        return self.sessions[key]

    def opened(self, uri: Any) -> Any:
        """The open document at `uri`, None when the client has not opened it (never read from disk). The
        workspace keys documents by the percent-decoded URI: `%2B`, `+`, `%20` all find theirs."""
        if not isinstance(uri, str):
            return None
        return self.workspace.text_documents.get(unquote(uri))

    def canonical(self, uri: Any) -> Any:
        """The URI a document was opened under, for any spelling of it (`%2B` or `+`, `%C3%BC` or `ü`):
        the key of this server's tables and the URI its diagnostics are published to."""
        doc = self.opened(uri)
        if doc is not None:
            return doc.uri
        if isinstance(uri, str):  # closed a moment ago: the spelling its tables still hold
            key = unquote(uri)
            for table in (self.analysers, self.results, self.pending):
                for known in table:
                    if unquote(known) == key:
                        return known
        return uri

    def worker(self) -> AnalysisWorker:
        """The analysis thread (started on the running loop the first time)."""
        if self.analysis is None:
            self.analysis = AnalysisWorker(asyncio.get_running_loop())
        return self.analysis

    def on_loop(self, call: Any, *args: Any) -> None:
        """`call(*args)` on the loop thread (what writes to the client: pygls' writer is not thread-safe)."""
        if self.analysis is not None:
            try:
                self.analysis.loop.call_soon_threadsafe(call, *args)
            except RuntimeError:  # the loop is closed: exiting
                pass

    def request_analysis(self, uri: str, source: str) -> asyncio.Future[tuple[str, Analysis, list[Diagnostic]]]:
        """The analysis of a document's text `source` on the analysis thread (shared with a request for the same
        text queued or running; it replaces a queued one of an older text)."""
        future = self.worker().submit(uri, source, lambda: self.analyse(uri, source))
        future.add_done_callback(self._failed)
        return future

    def _failed(self, future: asyncio.Future[Any]) -> None:
        error = None if future.cancelled() else future.exception()
        if error is not None:
            self.log_protocol(f"an analysis failed: {type(error).__name__}: {error}")

    def analyse(self, uri: str, source: str) -> tuple[str, Analysis, list[Diagnostic]]:
        """The analysis of a document's text `source` in its project (what its own code and its importers cause
        in it). On the analysis thread only."""
        path = to_fs_path(uri) or uri
        cfg = self.config_for(path)
        if isinstance(cfg, str):
            message = lsp.ShowMessageParams(lsp.MessageType.Error, f"namedcheck: {cfg}")
            self.on_loop(self.window_show_message, message)
            cfg = Config()
        session = self.session_for(cfg)
        # a buffer past the size cap is not analysed, nor read by its importers (they read the disk's text)
        shared = None if oversized(source, cfg.limits.max_file_size, path) is not None else source
        try:
            key = Path(path).resolve()
        except (OSError, RuntimeError, ValueError):
            key = None
        if key is not None and session.overlay.get(key) != shared:
            changed = session.read(Path(path)) != source  # what the other files read until now
            session.set_text(path, shared)
            self.generation += changed
        cached = self.results.get(uri)
        if cached is not None and cached[0] == source and cached[1] == self.generation:
            return cached[0], cached[2], cached[3]
        analyser = self.analysers.get(uri)
        if analyser is None or analyser.session is not session:
            analyser = self.analysers[uri] = DocumentAnalyser(
                path, tuple(cfg.stub_paths), session=session, fixer=attach_fixes, max_callers=MAX_CALLERS
            )
        analyser.last = None  # the callers' part depends on the other buffers too

        config: Config = cfg

        def shown(found: list[Diagnostic]) -> list[Diagnostic]:
            return config.per_file(selected(found, config.select, config.ignore))  # per-file-ignores too

        def own_first(own: Analysis) -> None:  # published before the importers are analysed
            cached = self.results.get(uri)
            if cached is not None and cached[0] == source:
                return  # only another buffer changed: what is shown is this text's already
            early = merge_contexts([*own.diagnostics, *self._callers_kept(uri, source)])
            self.on_loop(self.publish_early, uri, source, shown(early))

        def superseded() -> bool:  # an edit came: what the importers cause in this text is not wanted
            doc = self.opened(uri)
            return doc is None or doc.source != source

        result = analyser.analyse(source, own_first, superseded)
        diags = shown(result.diagnostics)
        if not result.superseded:
            self.results[uri] = (source, self.generation, result, diags)
        return source, result, diags

    def _callers_kept(self, uri: str, source: str) -> list[Diagnostic]:
        """What the importers caused in the last analysed text of `uri`, on the lines it shares with `source`
        (shown with the new text's own diagnostics until its importers are analysed again)."""
        cached = self.results.get(uri)
        if cached is None or cached[2].own is None:
            return []
        own = set(cached[2].own)
        shared = _shared_lines(cached[0], source)
        return [d for d in cached[2].diagnostics if d not in own and d.end_line <= shared]

    def publish_early(self, uri: str, source: str, diags: list[Diagnostic]) -> None:
        """Publish a document's own diagnostics while its importers are analysed (unless it changed since)."""
        doc = self.opened(uri)
        if doc is None or doc.source != source:
            return
        units = Units(doc)
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(
                uri=uri, diagnostics=[to_lsp(uri, d, units) for d in diags], version=doc.version
            )
        )

    def publish(self, uri: str, ripple: bool = True) -> None:
        """Publish a document's diagnostics once its current text is analysed; after an edit, also the other open
        documents' (an edit of a caller changes what it causes in its callees, an edit of a callee what its
        callers find)."""
        uri = self.canonical(uri)
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()  # a save while a change waits: this run covers both
        doc = self.opened(uri)
        if doc is None:
            return
        source = doc.source
        self.request_analysis(uri, source).add_done_callback(lambda f: self.analysed(uri, source, f, ripple))

    def analysed(self, uri: str, source: str, future: asyncio.Future[Any], ripple: bool) -> None:
        """Publish a finished analysis of `source`, unless the document was closed or edited meanwhile (the
        publish of the newer text follows: an older text's diagnostics never replace a newer one's)."""
        if future.cancelled() or future.exception() is not None:  # replaced by a newer text; or logged
            return
        doc = self.opened(uri)
        if doc is None or doc.source != source:
            return
        _, _, diags = future.result()
        units = Units(doc)
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(
                uri=uri, diagnostics=[to_lsp(uri, d, units) for d in diags], version=doc.version
            )
        )
        if ripple:
            self.republish_stale(uri)

    async def latest(self, uri: str) -> View | None:
        """What a request on an open document is answered from: the analysis of its current text when it is
        done or finishes within `ANSWER_WAIT_S`, else the last finished one (answering only at the lines
        above the first line edited since); None before any analysis of it finished."""
        doc = self.opened(uri)
        if doc is None:
            return None
        uri, source = doc.uri, doc.source
        cached = self.results.get(uri)
        if cached is None or cached[0] != source or cached[1] != self.generation:
            future = self.request_analysis(uri, source)
            if cached is not None and cached[0] == source and self.worker().behind_others(future):
                # only another buffer changed since, and another document's analysis runs first: the last one
                # (of this very text) answers at once
                return View(doc, source, cached[2], cached[3], None)
            await asyncio.wait({future}, timeout=ANSWER_WAIT_S)
            if future.done() and not future.cancelled() and future.exception() is None:
                _, analysis, diags = future.result()
                return View(doc, source, analysis, diags, None)
            cached = self.results.get(uri)
            if cached is None:
                return None
        text, _, analysis, diags = cached
        return View(doc, text, analysis, diags, None if text == source else _shared_lines(text, source))

    def forget(self, uri: str) -> None:
        """A closed document: its buffer leaves the sessions (its importers read the disk's text again). On the
        analysis thread."""
        analyser = self.analysers.get(uri)
        if analyser is not None:
            analyser.session.set_text(analyser.path, None)  # its importers read the disk's text again
            self.generation += 1
        path = to_fs_path(uri) or uri
        for session in self.sessions.values():  # a session of an earlier configuration holds no closed buffer
            if session.overlay:
                try:
                    if Path(path).resolve() in session.overlay:
                        session.set_text(path, None)
                except (OSError, RuntimeError, ValueError):
                    pass
        for table in (self.analysers, self.results):
            table.pop(uri, None)

    def republish_stale(self, skip: str | None = None) -> None:
        """Publish again every open document analysed before the open buffers last changed (whichever
        request saw the change first: a hover, a code action or the debounced publish)."""
        for doc in list(self.workspace.text_documents.values()):
            other = doc.uri
            cached = self.results.get(other)
            if other != skip and cached is not None and cached[1] != self.generation:
                self.publish(other, ripple=False)

    def schedule(self, uri: str, delay: float) -> None:
        uri = self.canonical(uri)
        old = self.pending.pop(uri, None)
        if old is not None:
            old.cancel()
        self.pending[uri] = asyncio.get_running_loop().call_later(delay, self.publish, uri)
        self.worker().drop(uri)  # a queued analysis of the older text is not run


@dataclass
class View:
    """A finished analysis a request is answered from: of the document's current text (`upto` None), or of an
    older text sharing the current one's first `upto` lines (positions below them are not answered)."""

    doc: Any
    source: str  # the text analysed
    analysis: Analysis
    diagnostics: list[Diagnostic]
    upto: int | None

    def covers(self, line0: int, end_line0: int | None = None) -> bool:
        """Whether 0-based lines `line0` to `end_line0` are the analysed text's own lines."""
        return self.upto is None or max(line0, line0 if end_line0 is None else end_line0) < self.upto


def _shared_lines(old: str, new: str) -> int:
    """How many whole lines (each with its line break) two texts share at their start."""
    lo, hi = 0, min(len(old), len(new))  # old[:lo] == new[:lo]; they differ before hi + 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[lo:mid] == new[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return old.count("\n", 0, lo)


class Units:
    """Columns between the analyzer (code points) and the client (UTF-16 code units unless negotiated)."""

    def __init__(self, doc: Any) -> None:
        self.doc = doc
        self.identity = doc is None or doc.source.isascii()

    def out(self, line0: int, col0: int) -> lsp.Position:
        p = lsp.Position(line0, col0)
        return p if self.identity else self.doc.position_codec.position_to_client_units(self.doc.lines, p)

    def inp(self, p: lsp.Position) -> tuple[int, int]:
        if self.identity:
            return p.line, p.character
        q = self.doc.position_codec.position_from_client_units(self.doc.lines, p)
        return q.line, q.character


def _inside(doc: Any, p: lsp.Position) -> bool:
    """Whether a position's line is one of the document's (a position past a line's end is clamped)."""
    return 0 <= p.line < max(1, len(doc.lines)) and p.character >= 0


def to_range(line: int, column: int, end_line: int, end_column: int, units: Units | None = None) -> lsp.Range:
    """1-based (line, column) pairs, end exclusive -> an LSP range."""
    u = units or Units(None)
    return lsp.Range(u.out(line - 1, column - 1), u.out(end_line - 1, end_column - 1))


def to_lsp(uri: str, d: Diagnostic, units: Units | None = None) -> lsp.Diagnostic:
    """An LSP diagnostic: the hint inside the message (several clients never show related information),
    each related location as relatedInformation (in this document's units when it is this document), the
    diagnostic's `data` for code actions."""
    rng = to_range(d.line, d.column, d.end_line, d.end_column, units)
    here = to_fs_path(uri)
    related = []
    for r in d.related:
        same = here is not None and _same_file(r.path, here)
        where = lsp.Location(
            uri if same else _uri_of(r.path),
            to_range(r.line, r.column, r.end_line, r.end_column, units if same else None),
        )
        related.append(lsp.DiagnosticRelatedInformation(where, r.message))
    message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    return lsp.Diagnostic(
        range=rng,
        message=message,
        severity=lsp.DiagnosticSeverity.Information if d.severity == "note" else lsp.DiagnosticSeverity.Error,
        code=d.code,
        source="namedcheck",
        related_information=related or None,
        data=dict(d.data) if d.data else None,
    )


def _hover_line(v: Any) -> str:
    """One value in hover: its annotation (copyable), the sets an annotation does not state as a comment."""
    from namedcheck.engine.spelling import sets
    from namedcheck.engine.values import ArrayType

    extra = sets(v).strip() if isinstance(v, ArrayType) else ""
    return format_value(v, sets=False) + (f"  # {extra}" if extra else "")


def _why_text(cause: Any, analysis: Any) -> str:
    """Why a value is not (fully) known: the first construct that lost it (analyzer/causes.py), and its line."""
    cause = cause.settled()
    r = analysis.positions.get(cause.node) if cause.node is not None else None
    where = f" (line {r.start.line})" if r is not None else ""
    detail = f" `{cause.detail}`" if cause.detail else ""
    return f"not known: {cause.kind} `{cause.label}`{detail}{where}"


def _why_hover(why: Any, analysis: Any, units: Units) -> lsp.Hover:
    (line, col, end_line, end_col), cause = why
    return lsp.Hover(
        contents=lsp.MarkupContent(lsp.MarkupKind.Markdown, _why_text(cause, analysis)),
        range=lsp.Range(units.out(line - 1, col), units.out(end_line - 1, end_col)),
    )


def _called_hover(called: Any, why: str, units: Units) -> lsp.Hover:
    """Hover on an expression the file's own analysis does not know, which the calls of other files give
    values: each value (at most 4) with the call sites it comes from."""
    (line, col, end_line, end_col), records = called
    by_value: dict[str, list[str]] = {}
    for rec in records:
        sites = by_value.setdefault(_hover_line(rec.value), [])
        where = f"{_short(rec.via[0])}:{rec.via[1]}"
        if where not in sites:
            sites.append(where)
    shown = list(by_value.items())
    text = "\n".join(f"{v}  # from {', '.join(sites[:3])}{' ...' if len(sites) > 3 else ''}" for v, sites in shown[:4])
    more = f"\n(and {len(shown) - 4} more)" if len(shown) > 4 else ""
    note = f"\n\n{why}" if why else ""
    return lsp.Hover(
        contents=lsp.MarkupContent(
            lsp.MarkupKind.Markdown,
            f"```python\n{text}\n```\ncalled with (the calls of other files that import it){more}{note}",
        ),
        range=lsp.Range(units.out(line - 1, col), units.out(end_line - 1, end_col)),
    )


def _short(path: str) -> str:
    """A path as hover shows it: relative to the working directory when under it."""
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return path


def _uri_of(path: str) -> str:
    try:
        return Path(path).resolve().as_uri()
    except (OSError, ValueError):
        return path


def _same_file(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except (OSError, ValueError):
        return a == b


def _overlaps(d: Diagnostic, r: lsp.Range, units: Units) -> bool:
    start = (d.line - 1, d.column - 1)
    end = (d.end_line - 1, d.end_column - 1)
    return start <= units.inp(r.end) and units.inp(r.start) <= end


def to_action(uri: str, d: Diagnostic, fix: Fix, preferred: bool, units: Units) -> lsp.CodeAction:
    edits = [lsp.TextEdit(to_range(e.line, e.column, e.end_line, e.end_column, units), e.text) for e in fix.edits]
    return lsp.CodeAction(
        title=fix.title,
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[to_lsp(uri, d, units)],
        edit=lsp.WorkspaceEdit(changes={uri: edits}),
        is_preferred=preferred,
    )


def build_server() -> NamedcheckServer:
    server = NamedcheckServer()

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: NamedcheckServer, params: lsp.InitializeParams) -> None:
        ls.apply_settings(params.initialization_options)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def changed_configuration(ls: NamedcheckServer, params: lsp.DidChangeConfigurationParams) -> None:
        ls.apply_settings(params.settings)
        ls.worker().call(ls.configs.clear)  # (the analysis thread reads them)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: NamedcheckServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: NamedcheckServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, DEBOUNCE_S)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: NamedcheckServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.worker().call(ls.configs.clear)  # a saved pyproject.toml may have changed the configuration
        ls.publish(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: NamedcheckServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = ls.canonical(params.text_document.uri)
        handle = ls.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        ls.worker().drop(uri)
        # its importers and callees read the disk's text again
        forgotten = ls.worker().call(lambda: ls.forget(uri))
        forgotten.add_done_callback(lambda f: None if f.cancelled() or f.exception() else ls.republish_stale())
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: NamedcheckServer, params: Any) -> None:
        ls.worker().stop()  # nothing more is analysed (a running analysis ends on its own thread)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(ls: NamedcheckServer, params: lsp.HoverParams) -> lsp.Hover | None:
        doc = ls.opened(params.text_document.uri)
        if doc is None or not _inside(doc, params.position):
            return None
        got = await ls.latest(params.text_document.uri)
        if got is None:
            return None
        units = Units(got.doc)
        line0, col0 = units.inp(params.position)
        if not got.covers(line0):
            return None
        found = values_at(got.analysis, line0 + 1, col0)
        why = why_at(got.analysis, line0 + 1, col0)
        if why is not None and not got.covers(why[0][0] - 1, why[0][2] - 1):
            why = None
        called = called_with_at(got.analysis, line0 + 1, col0)
        if called is not None and not got.covers(called[0][0] - 1, called[0][2] - 1):
            called = None
        if found is None or not found[1] or not got.covers(found[0][0] - 1, found[0][2] - 1):
            if called is not None:  # what the calls of other files give it, and from where
                return _called_hover(called, "", units)
            return _why_hover(why, got.analysis, units) if why is not None else None
        (line, col, end_line, end_col), values = found
        if called is not None and called[0] == found[0] and all(lost(v) for v in values):
            return _called_hover(called, _why_text(why[1], got.analysis) if why is not None else "", units)
        text = "\n".join(_hover_line(v) for v in values[:4])
        more = f"\n(and {len(values) - 4} more)" if len(values) > 4 else ""
        title = "inferred type" if len(values) == 1 else "inferred types (one per analysis: call sites, maps)"
        syms = symbols_of(values[:4])
        if syms:
            more += "\n\nsizes known only when it runs, named after the code that gives them: " + ", ".join(
                f"`{s}`" for s in syms
            )
        if why is not None and why[0] == found[0] and all(lost(v) for v in values):
            more += "\n\n" + _why_text(why[1], got.analysis)
        return lsp.Hover(
            contents=lsp.MarkupContent(lsp.MarkupKind.Markdown, f"```python\n{text}\n```\n{title}{more}"),
            range=lsp.Range(units.out(line - 1, col), units.out(end_line - 1, end_col)),
        )

    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT, lsp.InlayHintOptions(resolve_provider=False))
    async def inlay_hint(ls: NamedcheckServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        if not ls.inlay_hints_enabled:
            return []
        got = await ls.latest(params.text_document.uri)
        if got is None:
            return []
        r = params.range
        units = Units(got.doc)
        return [
            lsp.InlayHint(units.out(line - 1, col), label, kind=lsp.InlayHintKind.Type, padding_left=False)
            for line, col, label in inlay_hints(got.source, got.analysis, (r.start.line + 1, r.end.line + 1))
            if r.start.line <= line - 1 <= r.end.line and got.covers(line - 1)
        ]

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix])
    )
    async def code_action(ls: NamedcheckServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = ls.canonical(params.text_document.uri)
        doc = ls.opened(uri)
        if doc is None or not _inside(doc, params.range.start):
            return []
        got = await ls.latest(uri)
        if got is None:
            return []
        units = Units(got.doc)
        actions: list[lsp.CodeAction] = []
        for d in got.diagnostics:
            if not _overlaps(d, params.range, units) or not got.covers(d.line - 1, d.end_line - 1):
                continue
            for i, fix in enumerate([*d.fixes, ignore_fix(got.source, d)]):
                preferred = i == 0 and bool(d.fixes) and fix.applies(False)
                if all(got.covers(e.line - 1, e.end_line - 1) for e in fix.edits):
                    actions.append(to_action(uri, d, fix, preferred, units))
        return actions

    return server


def serve() -> int:
    import namedcheck.analyzer.project as projects
    from namedcheck.analyzer.memo import tune_collector

    tune_collector()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    projects.LISTING_TTL = EDITOR_LISTING_TTL
    server = build_server()
    server.start_io()
    return server.exit_code
