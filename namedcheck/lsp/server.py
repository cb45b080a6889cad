"""`namedcheck lsp`: a Language Server over stdio (pygls). Diagnostics on open / change (debounced) / save,
hover with inferred types, inlay hints (off unless `inlayHints` is set), code actions (fixes and
"ignore NCxxx on this line"). One process keeps parsed chunks and analyses (analyzer/incremental.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from namedcheck import __version__
from namedcheck.analyzer.incremental import Analysis, DocumentAnalyser, format_value, symbols_of, values_at
from namedcheck.analyzer.session import Session
from namedcheck.cli.config import Config, ConfigError, load_config
from namedcheck.diagnostic import Diagnostic, Fix, selected
from namedcheck.edits.fixes import attach_fixes, ignore_fix
from namedcheck.lsp.hints import inlay_hints

DEBOUNCE_S = 0.15
MAX_CALLERS = 32  # importers of an open file analysed per edit for what they cause in it, the nearest first
EDITOR_LISTING_TTL = 30.0  # seconds a listing of the project's files is reused (a new file shows up after it)


class NamedcheckServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("namedcheck", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.analysers: dict[str, DocumentAnalyser] = {}
        # by uri: (text, generation of the open buffers it saw, analysis, diagnostics shown)
        self.results: dict[str, tuple[str, int, Analysis, list[Diagnostic]]] = {}
        self.sessions: dict[tuple[Any, ...], Session] = {}  # one per configuration
        self.generation = 0  # counts changes of open buffers' texts (a file's callers may have changed)
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.configs: dict[Path, Config | str] = {}
        self.inlay_hints_enabled = False

    # ---- configuration ---------------------------------------------------------------------------
    def config_for(self, path: str) -> Config | str:
        """The configuration of the file's own project (nearest pyproject.toml), or an error message."""
        folder = Path(path).parent
        if folder not in self.configs:
            try:
                self.configs[folder] = load_config(folder)
            except ConfigError as e:
                self.configs[folder] = str(e)
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
        return self.sessions[key]

    def analyse(self, uri: str) -> tuple[str, Analysis, list[Diagnostic]] | None:
        """The document's analysis in its project (what its own code and its importers cause in it)."""
        doc = self.workspace.get_text_document(uri)
        source = doc.source
        path = to_fs_path(uri) or uri
        cfg = self.config_for(path)
        if isinstance(cfg, str):
            self.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Error, f"namedcheck: {cfg}"))
            cfg = Config()
        session = self.session_for(cfg)
        if session.overlay.get(Path(path).resolve()) != source:
            changed = session.read(Path(path)) != source  # what the other files read until now
            session.set_text(path, source)
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
        result = analyser.analyse(source)
        diags = selected(result.diagnostics, cfg.select, cfg.ignore)
        self.results[uri] = (source, self.generation, result, diags)
        return source, result, diags

    def publish(self, uri: str, ripple: bool = True) -> None:
        """Publish a document's diagnostics; after an edit, also the other open documents' (an edit of a
        caller changes what it causes in its callees, an edit of a callee what its callers find)."""
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()  # a save while a change waits: this run covers both
        if uri not in self.workspace.text_documents:
            return
        got = self.analyse(uri)
        if got is None:
            return
        units = Units(self.workspace.get_text_document(uri))
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(
                uri=uri,
                diagnostics=[to_lsp(uri, d, units) for d in got[2]],
                version=self.workspace.get_text_document(uri).version,
            )
        )
        if ripple:
            self.republish_stale(uri)

    def republish_stale(self, skip: str | None = None) -> None:
        """Publish again every open document analysed before the open buffers last changed (whichever
        request saw the change first: a hover, a code action or the debounced publish)."""
        for other in list(self.workspace.text_documents):
            cached = self.results.get(other)
            if other != skip and cached is not None and cached[1] != self.generation:
                self.publish(other, ripple=False)

    def schedule(self, uri: str, delay: float) -> None:
        old = self.pending.pop(uri, None)
        if old is not None:
            old.cancel()
        self.pending[uri] = asyncio.get_running_loop().call_later(delay, self.publish, uri)


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
        severity=lsp.DiagnosticSeverity.Error,
        code=d.code,
        source="namedcheck",
        related_information=related or None,
        data=dict(d.data) if d.data else None,
    )


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
        ls.configs.clear()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: NamedcheckServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: NamedcheckServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, DEBOUNCE_S)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: NamedcheckServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.configs.clear()  # a saved pyproject.toml may have changed the configuration
        ls.publish(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: NamedcheckServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        analyser = ls.analysers.get(uri)
        if analyser is not None:
            analyser.session.set_text(analyser.path, None)  # its importers read the disk's text again
            ls.generation += 1
        for table in (ls.analysers, ls.results):
            table.pop(uri, None)
        ls.republish_stale()  # its importers and callees read the disk's text again
        handle = ls.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: NamedcheckServer, params: lsp.HoverParams) -> lsp.Hover | None:
        got = ls.analyse(params.text_document.uri)
        if got is None:
            return None
        units = Units(ls.workspace.get_text_document(params.text_document.uri))
        line0, col0 = units.inp(params.position)
        found = values_at(got[1], line0 + 1, col0)
        if found is None or not found[1]:
            return None
        (line, col, end_line, end_col), values = found
        text = "\n".join(format_value(v) for v in values[:4])
        more = f"\n(and {len(values) - 4} more)" if len(values) > 4 else ""
        title = "inferred type" if len(values) == 1 else "inferred types (one per analysis: call sites, maps)"
        syms = symbols_of(values[:4])
        if syms:
            more += "\n\nsizes known only when it runs, named after the code that gives them: " + ", ".join(
                f"`{s}`" for s in syms
            )
        return lsp.Hover(
            contents=lsp.MarkupContent(lsp.MarkupKind.Markdown, f"```python\n{text}\n```\n{title}{more}"),
            range=lsp.Range(units.out(line - 1, col), units.out(end_line - 1, end_col)),
        )

    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT, lsp.InlayHintOptions(resolve_provider=False))
    def inlay_hint(ls: NamedcheckServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        if not ls.inlay_hints_enabled:
            return []
        got = ls.analyse(params.text_document.uri)
        if got is None:
            return []
        r = params.range
        units = Units(ls.workspace.get_text_document(params.text_document.uri))
        return [
            lsp.InlayHint(units.out(line - 1, col), label, kind=lsp.InlayHintKind.Type, padding_left=False)
            for line, col, label in inlay_hints(got[0], got[1])
            if r.start.line <= line - 1 <= r.end.line
        ]

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix])
    )
    def code_action(ls: NamedcheckServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        uri = params.text_document.uri
        got = ls.analyse(uri)
        if got is None:
            return []
        source, _, diags = got
        units = Units(ls.workspace.get_text_document(uri))
        actions: list[lsp.CodeAction] = []
        for d in diags:
            if not _overlaps(d, params.range, units):
                continue
            for i, fix in enumerate(d.fixes):
                actions.append(to_action(uri, d, fix, i == 0 and fix.safe, units))
            actions.append(to_action(uri, d, ignore_fix(source, d), False, units))
        return actions

    return server


def serve() -> int:
    import namedcheck.analyzer.project as projects

    projects.LISTING_TTL = EDITOR_LISTING_TTL
    build_server().start_io()
    return 0
