"""`reveal_type(x)` / `reveal_locals()` (analyzer/reveal.py): NC003 notes with the inferred type in every front end;
a notes-only run passes."""

from __future__ import annotations

import json

from namedcheck.analyzer.check import analyse_for_test
from namedcheck.cli.main import main
from namedcheck.engine.codes import CODES

REVEALING = """import jax.numpy as jnp
from typing import reveal_type as rt


def f(x, n):
    y = jnp.sum(x, axis=0)
    reveal_type(y)
    reveal_locals()
    return y


x = jnp.zeros((3, 4))
w = rt(f(x, 2))
reveal_type(w * 2)
"""

# a program that binds its own `reveal_type`: an ordinary call, no note
OWN = """import jax.numpy as jnp


def reveal_type(v):
    return v


x = reveal_type(jnp.zeros((3, 4)))
"""


def test_revealed_types_are_notes():
    diags, _ = analyse_for_test(REVEALING)
    got = {d.line: (d.code, d.severity, d.message) for d in diags}
    assert set(got) == {7, 8, 13, 14}
    assert all(code == "NC003" and sev == "note" for code, sev, _ in got.values())
    assert got[7][2] == (
        "Revealed types of `y` are `unknown`, `f32[Array, Dims(4)]` "
        "(one per analysis: the function on its own and at its calls)"
    )
    assert got[8][2] == (
        "Revealed local types are: n: unknown, x: unknown, y: unknown | "
        "n: 2, x: f32[Array, Dims(3, 4)], y: f32[Array, Dims(4)]"
    )
    assert got[13][2] == "Revealed type of `f(...)` is `f32[Array, Dims(4)]`"
    # `typing.reveal_type` returns its argument: what follows keeps the type
    assert got[14][2] == "Revealed type of `w * 2` is `f32[Array, Dims(4)]`"


def test_a_program_s_own_reveal_type_is_its_function():
    diags, revealed = analyse_for_test(OWN)
    assert diags == []
    assert repr(revealed[8]) == "f32[(3, 4)]"


def test_the_code_is_a_note():
    assert CODES["NC003"].severity == "note" and CODES["NC201"].severity == "error"


def test_cli_notes_do_not_fail_the_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NAMEDCHECK_NO_CACHE", "1")
    (tmp_path / "r.py").write_text(REVEALING)
    assert main(["check", "r.py"]) == 0
    out = capsys.readouterr().out
    assert "r.py:14:1: NC003 Revealed type of `w * 2` is `f32[Array, Dims(4)]`" in out
    assert "All checks passed. (4 notes)" in out
    assert main(["check", "--format", "json", "r.py"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {d["severity"] for d in doc} == {"note"} and len(doc) == 4
    assert main(["check", "--format", "github", "r.py"]) == 0
    assert capsys.readouterr().out.startswith("::notice file=r.py,line=7,")


def test_lsp_shows_an_information(tmp_path):
    from namedcheck.analyzer.incremental import DocumentAnalyser

    path = tmp_path / "r.py"
    path.write_text(REVEALING)
    diags = DocumentAnalyser(str(path)).analyse(REVEALING).diagnostics
    assert [(d.line, d.code, d.severity) for d in diags][-1] == (14, "NC003", "note")
    from lsprotocol import types as lsp

    from namedcheck.lsp.server import to_lsp

    assert to_lsp(path.as_uri(), diags[-1]).severity == lsp.DiagnosticSeverity.Information
