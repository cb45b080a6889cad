"""`namedcheck lsp` driven by a real LSP client (pygls') over stdio, and the editor analysis it runs
(incremental re-checks equal `check_source`)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
from lsprotocol import types as lsp  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

from namedcheck.analyzer.check import check_source  # noqa: E402
from namedcheck.analyzer.incremental import DocumentAnalyser  # noqa: E402
from tests.test_session import LAYERS, TRAIN  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

BUGGY = """import jax
import jax.numpy as jnp
from namedcheck import f32


def project(x: f32[(4, 8)], w: f32[(16, 3)]):
    h = jnp.tanh(x)
    return h @ w
"""


SHARDED = """import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('data', 'model'))


def running_sum(xb):
    total = jnp.zeros(xb.shape[1:])
    total, _ = lax.scan(lambda c, row: (c + row, None), total, xb)
    return total


scan_rows = jax.shard_map(running_sum, mesh=mesh, in_specs=P('data'), out_specs=P('data'))(jnp.ones((8, 4)))
"""


def _apply(text: str, edits: list[lsp.TextEdit]) -> str:
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln))

    def at(p: lsp.Position) -> int:
        return offsets[p.line] + p.character

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: at(e.range.start)] + e.new_text + text[at(e.range.end) :]
    return text


class Session:
    """A client talking to `python -m namedcheck lsp`, collecting published diagnostics."""

    def __init__(self) -> None:
        self.client = LanguageClient("test-client", "1")
        self.diagnostics: dict[str, list[lsp.Diagnostic]] = {}
        self.published = asyncio.Event()

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.published.set()

    async def next_diagnostics(self, uri: str) -> list[lsp.Diagnostic]:
        await asyncio.wait_for(self.published.wait(), 60)
        self.published.clear()
        return self.diagnostics[uri]


async def _scenario(tmp: Path) -> None:
    (tmp / "pyproject.toml").write_text("[tool.namedcheck]\nignore = ['NC304']\n")
    path = tmp / "model.py"
    path.write_text(BUGGY)
    uri = path.as_uri()
    s = Session()
    c = s.client
    await c.start_io(sys.executable, "-m", "namedcheck", "lsp")
    await c.initialize_async(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(), root_uri=tmp.as_uri(), initialization_options={"inlayHints": True}
        )
    )
    c.initialized(lsp.InitializedParams())
    c.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "python", 1, BUGGY)))

    # the diagnostic, with its range and the hint inside the message (clients that hide related information)
    diags = await s.next_diagnostics(uri)
    assert [d.code for d in diags] == ["NC203"]
    d = diags[0]
    assert (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character) == (7, 11, 7, 16)
    assert "\nhint: " in d.message and not d.related_information

    # hover: a variable's inferred type (the assigned name, and a use of it)
    hover = await c.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(6, 4)))
    assert hover is not None and "f32[Array, Dims(4, 8)]" in hover.contents.value
    hover = await c.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(7, 11)))
    assert hover is not None and "f32[Array, Dims(4, 8)]" in hover.contents.value

    # inlay hints: the unannotated assignment (the return is unknown: the matmul fails)
    hints = await c.text_document_inlay_hint_async(
        lsp.InlayHintParams(lsp.TextDocumentIdentifier(uri), lsp.Range(lsp.Position(0, 0), lsp.Position(8, 0)))
    )
    assert [(h.position.line, h.label) for h in hints] == [(6, ": f32[Array, Dims(4, 8)]")]

    # a code action removes the diagnostic
    actions = await c.text_document_code_action_async(
        lsp.CodeActionParams(lsp.TextDocumentIdentifier(uri), d.range, lsp.CodeActionContext(diagnostics=[d]))
    )
    ignore = next(a for a in actions if a.title == "Ignore NC203 on this line")
    fixed = _apply(BUGGY, ignore.edit.changes[uri])
    assert "return h @ w  # namedcheck: ignore[NC203]" in fixed
    c.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=2, uri=uri), [lsp.TextDocumentContentChangeWholeDocument(fixed)]
        )
    )
    assert await s.next_diagnostics(uri) == []

    # an edit brings it back (an incremental change, debounced)
    line = fixed.splitlines()[7]
    start = line.index("  # namedcheck")
    c.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=3, uri=uri),
            [lsp.TextDocumentContentChangePartial(lsp.Range(lsp.Position(7, start), lsp.Position(7, len(line))), "")],
        )
    )
    assert [d.code for d in await s.next_diagnostics(uri)] == ["NC203"]

    # a fix as a code action: lax.pcast on a scan's initial carry; hover shows the varying set
    sharded = tmp / "sharded.py"
    suri = sharded.as_uri()
    sharded.write_text(SHARDED)
    c.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(suri, "python", 1, SHARDED)))
    diags = await s.next_diagnostics(suri)
    assert [(d.code, d.range.start.line) for d in diags] == [("NC602", 11)]
    hover = await c.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(suri), lsp.Position(10, 4)))
    assert hover is not None and "f32[Array, Dims(4)]" in hover.contents.value
    hover = await c.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(suri), lsp.Position(11, 63)))
    # xb: a block of 'data'; the varying set (no annotation states it) as a comment after the annotation
    assert hover is not None and "f32[Array, Dims(2, 4)]  # varying over {'data'}" in hover.contents.value
    actions = await c.text_document_code_action_async(
        lsp.CodeActionParams(lsp.TextDocumentIdentifier(suri), diags[0].range, lsp.CodeActionContext(diagnostics=diags))
    )
    assert actions[0].is_preferred and "lax.pcast" in actions[0].title
    fixed = _apply(SHARDED, actions[0].edit.changes[suri])
    assert "lax.pcast(total, ('data',), to='varying')" in fixed
    c.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=2, uri=suri),
            [lsp.TextDocumentContentChangeWholeDocument(fixed)],
        )
    )
    assert await s.next_diagnostics(suri) == []

    await c.shutdown_async(None)
    c.exit(None)
    await c.stop()


def test_server_over_stdio(tmp_path: Path) -> None:
    asyncio.run(_scenario(tmp_path))


def _corpus() -> list[Path]:
    return sorted([*ROOT.glob("tests/cases/*.py"), *ROOT.glob("examples/**/*.py")])


@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.name)
def test_incremental_equals_cli(path: Path) -> None:
    """Opening, editing the middle of the file and undoing the edit give the CLI's diagnostics (where the edit
    breaks the syntax, the CLI's NC001)."""
    src = path.read_text()
    d = DocumentAnalyser(str(path))
    lines = src.splitlines(keepends=True)
    mid = len(lines) // 2
    edited = "".join(lines[:mid]) + "\n\n" + "".join(lines[mid:])
    for text in (src, edited, src):
        cli = check_source(text, str(path))
        got = d.analyse(text).diagnostics
        if any(x.code == "NC001" for x in cli):  # (a text that does not parse: the editor keeps the findings
            got = [x for x in got if x.code == "NC001"]  # of the chunks that do, tests/test_lsp_partial.py)
        assert got == cli


def test_stdin_uses_the_files_own_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check - --stdin-filename` reads the configuration beside that file, not the working directory's."""
    import io

    from namedcheck.cli.main import main

    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "pyproject.toml").write_text("[tool.namedcheck]\nignore = ['NC203']\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(BUGGY))
    assert main(["check", "-", "--stdin-filename", "proj/model.py", "--no-cache"]) == 0
    monkeypatch.setattr("sys.stdin", io.StringIO(BUGGY))
    assert main(["check", "-", "--stdin-filename", "other/model.py", "--no-cache"]) == 1
    assert "NC203" in capsys.readouterr().out


async def _project_scenario(tmp: Path) -> None:
    """The server sees the project: an open callee shows what a caller on disk causes in it; an edit of the
    open caller re-publishes the callee."""
    (tmp / "pkg").mkdir()
    (tmp / "pkg/__init__.py").write_text("")
    (tmp / "pkg/layers.py").write_text(LAYERS)
    (tmp / "pkg/train.py").write_text(TRAIN)
    layers, train = (tmp / "pkg/layers.py").as_uri(), (tmp / "pkg/train.py").as_uri()
    s = Session()
    c = s.client
    await c.start_io(sys.executable, "-m", "namedcheck", "lsp", cwd=str(tmp))
    await c.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=tmp.as_uri()))
    c.initialized(lsp.InitializedParams())
    c.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(layers, "python", 1, LAYERS)))
    # its own diagnostics first (none), published before its importer is analysed; then what train.py causes
    assert await s.next_diagnostics(layers) == []
    diags = await s.next_diagnostics(layers)
    assert [(d.range.start.line, d.code) for d in diags] == [(4, "NC203")]
    c.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(train, "python", 1, TRAIN)))
    await s.next_diagnostics(train)
    assert s.diagnostics[train] == []
    # the caller's buffer now passes matching shapes: the callee's diagnostic goes away
    fixed = TRAIN.replace("(5, 3)", "(8, 3)")
    s.diagnostics.pop(layers)
    c.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=2, uri=train),
            [lsp.TextDocumentContentChangeWholeDocument(fixed)],
        )
    )
    for _ in range(4):
        if layers in s.diagnostics:
            break
        await s.next_diagnostics(train)
    assert s.diagnostics[layers] == []
    # closing the fixed caller unsaved: its importers read the disk's (buggy) text again
    s.diagnostics.pop(layers)
    c.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(train)))
    for _ in range(4):
        if layers in s.diagnostics:
            break
        await s.next_diagnostics(train)
    assert [(d.range.start.line, d.code) for d in s.diagnostics[layers]] == [(4, "NC203")]
    await c.shutdown_async(None)
    c.exit(None)


def test_server_sees_the_project(tmp_path: Path) -> None:
    asyncio.run(_project_scenario(tmp_path))


def test_hover_and_hints_show_symbolic_sizes() -> None:
    """Sizes taken from code (a config field, a parameter) show as symbols in hover and inlay hints, and the
    hover names them."""
    from namedcheck.analyzer.incremental import format_value, symbols_of, values_at
    from namedcheck.lsp.hints import inlay_hints

    src = "import jax.numpy as jnp\n\n\ndef f(config, n: int):\n    h = jnp.ones((config.batch_size, n * 2))\n"
    a = DocumentAnalyser("sym.py").analyse(src)
    found = values_at(a, 5, 4)
    assert found is not None
    _, values = found
    assert [format_value(v) for v in values] == ["f32[Array, Dims('config.batch_size', '2*n')]"]
    assert symbols_of(values) == ["config.batch_size", "n"]
    assert [label for _, _, label in inlay_hints(src, a)] == [": f32[Array, Dims('config.batch_size', '2*n')]"]


CALLEE = """import jax.numpy as jnp


def dense(x, w):
    y = x @ w
    return jnp.tanh(y)
"""

CALLER = """import jax.numpy as jnp
from pkg.lib import dense

out = dense(jnp.ones((4, 3)), jnp.ones((3, 5)))
"""


def test_hover_inside_a_function_shows_what_other_files_call_it_with(tmp_path: Path, monkeypatch) -> None:
    """An open library file whose own analysis does not know a function's arguments: hover on a name inside
    shows the values the calls of its importers give it, and from where (importers on disk)."""
    from lsprotocol import types as lsp_types

    from namedcheck.analyzer.incremental import called_with_at, values_at
    from namedcheck.analyzer.session import Session as AnalysisSession
    from namedcheck.lsp.server import Units, _called_hover

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    lib = tmp_path / "pkg" / "lib.py"
    lib.write_text(CALLEE)
    (tmp_path / "main.py").write_text(CALLER)
    session = AnalysisSession(editor=True)
    session.set_text(lib, CALLEE)  # the open buffer
    a = DocumentAnalyser(str(lib), (), session=session, max_callers=32).analyse(CALLEE)
    own = values_at(a, 5, 4)  # `y`: unknown in the function's own analysis
    assert own is None or all("Dims(4, 5)" not in repr(v) for v in own[1])
    found = called_with_at(a, 5, 4)
    assert found is not None
    span, records = found
    assert span == (5, 4, 5, 5)
    assert {(repr(r.value), Path(r.via[0]).name, r.via[1]) for r in records} == {("f32[(4, 5)]", "main.py", 4)}
    hover = _called_hover(found, "", Units(None))
    assert isinstance(hover, lsp_types.Hover)
    assert "f32[Array, Dims(4, 5)]  # from main.py:4" in hover.contents.value
    # the argument `x` too, at its parameter
    xs = called_with_at(a, 4, 10)
    assert xs is not None and [repr(r.value) for r in xs[1]] == ["f32[(4, 3)]"]


def test_own_diagnostics_come_first_and_an_edit_stops_the_importers_part(tmp_path: Path, monkeypatch) -> None:
    """An editor is handed a file's own diagnostics before its importers are analysed; a newer text stops the
    importers' part, and that partial analysis is not kept as the text's."""
    from namedcheck.analyzer.session import Session as AnalysisSession

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "layers.py").write_text(LAYERS)
    (tmp_path / "pkg" / "train.py").write_text(TRAIN)
    session = AnalysisSession(editor=True)
    path = str(tmp_path / "pkg" / "layers.py")
    session.set_text(path, LAYERS)
    early: list[list[str]] = []
    analyser = DocumentAnalyser(path, (), session=session, max_callers=32)
    stopped = analyser.analyse(LAYERS, lambda own: early.append([d.code for d in own.diagnostics]), lambda: True)
    assert early == [[]] and stopped.superseded and stopped.diagnostics == [] and analyser.last is None
    early.clear()
    whole = analyser.analyse(LAYERS, lambda own: early.append([d.code for d in own.diagnostics]), lambda: False)
    assert early == [[]] and not whole.superseded
    assert [(d.line, d.code) for d in whole.diagnostics] == [(5, "NC203")] and whole.own == []
    # a file no module imports: nothing is handed early (its one publish is the whole analysis)
    alone = tmp_path / "alone.py"
    alone.write_text(LAYERS)
    early.clear()
    DocumentAnalyser(str(alone), (), session=session, max_callers=32).analyse(LAYERS, early.append, lambda: False)
    assert early == []
