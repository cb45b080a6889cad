"""The editor while a line is unfinished: the other top-level chunks keep their diagnostics, NC001 is where its
text says, every client gets the hint in the message text, and hover / inlay hints print annotations that
paste as annotations."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import libcst as cst
import pytest

from namedcheck.analyzer.check import check_source
from namedcheck.analyzer.incremental import DocumentAnalyser
from namedcheck.analyzer.literals import parse_annotation_subscript
from namedcheck.lsp.hints import inlay_hints

ROOT = Path(__file__).resolve().parent.parent

PROGRAM = """import jax.numpy as jnp


def f(x):
    return jnp.ones((2, 3)) @ jnp.ones((4, 5))


def g(x):
    y = x.sum()
    return y


def h():
    return jnp.ones((2,)) + jnp.ones((3,))
"""


def _found(diags: list) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in diags]


@pytest.mark.parametrize(
    ("typed", "nc001"),
    [
        ("    y = x.\n", (9, 11)),  # an attribute not yet written
        ("    y = x.sum(\n", (9, 14)),  # a call not yet closed
        ("y = [\n", (9, 1)),  # at column 0: the statement is a chunk of its own
    ],
)
def test_unfinished_line_keeps_the_other_chunks_diagnostics(tmp_path: Path, typed: str, nc001: tuple[int, int]) -> None:
    path = str(tmp_path / "m.py")
    d = DocumentAnalyser(path)
    clean = d.analyse(PROGRAM).diagnostics
    assert _found(clean) == [(5, "NC203"), (14, "NC201")]
    broken = PROGRAM.replace("    y = x.sum()\n", typed)
    got = d.analyse(broken).diagnostics
    assert _found(got) == [(5, "NC203"), (9, "NC001"), (14, "NC201")]
    e = next(x for x in got if x.code == "NC001")
    assert (e.line, e.column) == nc001
    # the command line still reports the file as one NC001, at the same place with the same text
    assert [(x.line, x.column, x.message) for x in check_source(broken, path)] == [(e.line, e.column, e.message)]
    assert _found(d.analyse(PROGRAM).diagnostics) == _found(clean)  # finishing the line: as before


def test_statements_after_a_broken_statement_are_not_guessed(tmp_path: Path) -> None:
    """A module-level statement after the broken one could read what it rebinds: it is left out (silent), the
    definitions after it are analysed."""
    src = "import jax.numpy as jnp\n\nx = jnp.ones((3, 4))\nx = x.T +\ny = x @ jnp.ones((3, 2))\n\n\ndef h():\n    return jnp.ones((2,)) + jnp.ones((3,))\n"
    got = DocumentAnalyser(str(tmp_path / "m.py")).analyse(src).diagnostics
    assert _found(got) == [(4, "NC001"), (9, "NC201")]


@pytest.mark.parametrize(
    "src",
    [
        'import jax\nx = """abc\n\ny = 2\n',
        "import jax\nx = 'abc\ny = 2\n",
        "import jax\nif x:\n    y = 1\n  z = 2\n",
        "import jax\ndef f(x)\n    return x\n",
        "import jax\nx = [1, 2\ny = 3\n",
        "import jax\nx = (1 2)\n",
    ],
)
def test_nc001_is_where_its_text_says(src: str) -> None:
    """A line the message names is the diagnostic's line (an unterminated string: where it opens, and where
    Python stopped looking is said in words)."""
    (d,) = check_source(src, "m.py")
    assert d.code == "NC001"
    for named in re.findall(r"\bline (\d+)", d.message):
        assert int(named) == d.line or "still open at line" in d.message, d.message
    if '"""' in src:
        assert d.message == (
            "File does not parse: unterminated triple-quoted string literal: it opens here, on line 2, "
            "and is still open at line 4"
        )
        assert (d.line, d.column) == (2, 5)


def test_hint_is_in_the_message_for_every_client() -> None:
    from namedcheck.lsp.server import to_lsp

    (d,) = check_source(PROGRAM.replace("return jnp.ones((2,)) + jnp.ones((3,))", "return 1"), "m.py")
    assert d.hint
    out = to_lsp("file:///m.py", d)
    assert out.message == f"{d.message}\nhint: {d.hint}"


def test_inlay_hints_paste_as_annotations() -> None:
    """Over the examples: every hint whose sizes are known or symbols reads back through the annotation parser
    as the type it shows (its text pasted as an annotation)."""
    checked = 0
    for path in sorted(ROOT.glob("examples/**/*.py")):
        if "buggy" in path.parts:
            continue
        src = path.read_text()
        a = DocumentAnalyser(str(path), callers=False).analyse(src)
        for _, _, label in inlay_hints(src, a):
            text = label.removeprefix(": ").removeprefix(" -> ")
            if " | " in text or "?" in text or "." in re.sub(r"\w+\[(Array|jax\.Array),", "", text):
                continue  # several analyses, or a size not known statically / named after code
            node = cst.parse_expression(text)
            if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == "tuple":
                continue
            assert isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name), text
            parse_annotation_subscript(node.value.value, node)  # raises on text that is not an annotation
            checked += 1
    assert checked > 30


async def _server_scenario(tmp: Path) -> None:
    from lsprotocol import types as lsp

    from tests.test_lsp import Session

    path = tmp / "m.py"
    path.write_text(PROGRAM)
    uri = path.as_uri()
    s = Session()
    c = s.client
    await c.start_io(sys.executable, "-m", "namedcheck", "lsp")
    await c.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=tmp.as_uri()))
    c.initialized(lsp.InitializedParams())
    c.text_document_did_open(lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "python", 1, PROGRAM)))
    assert [d.code for d in await s.next_diagnostics(uri)] == ["NC203", "NC201"]
    # typing `.` after `x`: the two other functions' diagnostics stay, with the NC001 at the unfinished line
    c.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(version=2, uri=uri),
            [lsp.TextDocumentContentChangePartial(lsp.Range(lsp.Position(8, 10), lsp.Position(8, 15)), "")],
        )
    )
    diags = await s.next_diagnostics(uri)
    assert [(d.code, d.range.start.line, d.range.start.character) for d in diags] == [
        ("NC203", 4, 11),
        ("NC001", 8, 10),
        ("NC201", 13, 11),
    ]
    assert all("\nhint: " in d.message for d in diags)
    await c.shutdown_async(None)
    c.exit(None)
    await c.stop()


def test_server_keeps_diagnostics_while_a_line_is_unfinished(tmp_path: Path) -> None:
    pytest.importorskip("pygls")
    asyncio.run(_server_scenario(tmp_path))
