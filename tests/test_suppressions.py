"""Suppression comments are read in the analysis (analyzer/suppressions.py), so every front end honours
them alike: the Python API, the command line (files and standard input), the editor's analysis and the
mypy plugin's (which leaves `# type: ignore` to mypy). NC002 (unused) is never a false alarm: not in a
file cut short by a budget, nor where a call was cut by a bound."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from namedcheck.analyzer.check import analyse_for_plugin, check_source
from namedcheck.analyzer.incremental import DocumentAnalyser
from namedcheck.analyzer.suppressions import markers, suppressed
from namedcheck.cli.main import main

SOURCE = """import jax.numpy as jnp

a = jnp.ones((2, 3)) + jnp.ones((4, 5))  # noqa: NC201
b = jnp.ones((2, 3)) + jnp.ones((4, 5))  # type: ignore[NC201]
c = jnp.ones((2, 3)) + jnp.ones((4, 5))  # noqa: E501
d = jnp.ones((2, 3))  # noqa: NC202
"""
# what every front end but mypy's reports: c's NC201 (another tool's code), d's unused NC202
EXPECTED = [(5, "NC201"), (6, "NC002")]


def _got(diags: list) -> list[tuple[int, str]]:
    return sorted((d.line, d.code) for d in diags)


def test_python_api() -> None:
    assert _got(check_source(SOURCE, "m.py", force=True)) == EXPECTED


def test_editor_analysis(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text(SOURCE)
    assert _got(DocumentAnalyser(str(f)).analyse(SOURCE).diagnostics) == EXPECTED


def test_command_line_file_and_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(SOURCE)
    main(["check", "m.py", "--no-cache", "--format", "json"])
    assert sorted((d["line"], d["code"]) for d in json.loads(capsys.readouterr()[0])) == EXPECTED
    monkeypatch.setattr("sys.stdin", io.StringIO(SOURCE))
    main(["check", "-", "--stdin-filename", "m.py", "--format", "json"])
    assert sorted((d["line"], d["code"]) for d in json.loads(capsys.readouterr()[0])) == EXPECTED


def test_mypy_plugin_leaves_type_ignore_to_mypy() -> None:
    """mypy honours `# type: ignore[NC201]` itself and, with warn_unused_ignores, judges it: the plugin's
    analysis keeps that NC201 (mypy silences it) and never calls the comment unused."""
    diags, _ = analyse_for_plugin(SOURCE, "m.py")
    assert _got(diags) == [(4, "NC201"), (5, "NC201"), (6, "NC002")]


def test_markers() -> None:
    assert suppressed("x  # noqa", "NC201")
    assert suppressed("x  # NOQA:NC201", "NC201")
    assert not suppressed("x  # noqa: NC2", "NC201")  # noqa takes exact codes (ruff's)
    assert suppressed("x  # namedcheck: ignore[NC2]", "NC201")  # namedcheck's own takes prefixes
    assert suppressed("x  # type: ignore", "NC201")  # mypy's bare ignore silences the whole line
    assert suppressed("x  # type: ignore[namedcheck]", "NC201")
    assert not suppressed("x  # type: ignore[attr-defined]", "NC201")
    assert not suppressed("x  # type: ignore[NC201]", "NC201", type_ignores=False)
    [m] = markers("x  # noqa: NC201 because the shapes come from a config")
    assert [c for c, _, _ in m.codes] == ["NC201"]


def test_multi_line_diagnostic_is_silenced_on_its_first_line() -> None:
    src = "import jax.numpy as jnp\n\nz = (\n    jnp.ones((2, 3))  # noqa: NC201\n    + jnp.ones((4, 5))\n)\n"
    assert check_source(src, "m.py", force=True) == []
    moved = "import jax.numpy as jnp\n\nz = (\n    jnp.ones((2, 3))\n    + jnp.ones((4, 5))  # noqa: NC201\n)\n"
    assert _got(check_source(moved, "m.py", force=True)) == [(4, "NC201"), (5, "NC002")]


def test_no_unused_report_when_a_budget_cut_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    import namedcheck.analyzer.module as module
    from namedcheck.analyzer.budget import BudgetExceeded

    def out_of_time(self: object) -> None:
        raise BudgetExceeded("time")

    monkeypatch.setattr(module.ModuleAnalyzer, "run", out_of_time)
    src = "import jax.numpy as jnp\n\nx = jnp.ones((2, 3))  # noqa: NC201\n"
    assert [d.code for d in check_source(src, "m.py", force=True)] == []


def test_no_unused_report_when_a_call_was_cut() -> None:
    """A recursive call is cut (its result Unknown): what it would have found is not known, so the file's
    suppressions are not judged; without the recursion the same comment is NC002."""
    src = (
        "import jax.numpy as jnp\n\n\ndef f(x, n):\n    if n:\n        return f(x, n - 1)\n"
        "    return x + jnp.ones((4, 5))  # noqa: NC201\n\n\nf(jnp.ones((4, 5)), 3)\n"
    )
    assert check_source(src, "m.py", force=True) == []
    flat = src.replace("return f(x, n - 1)", "return x")
    assert _got(check_source(flat, "m.py", force=True)) == [(7, "NC002")]


def test_editor_offers_the_removal(tmp_path: Path) -> None:
    from namedcheck.edits.fixes import apply_edits, attach_fixes

    f = tmp_path / "m.py"
    f.write_text(SOURCE)
    [d] = [d for d in DocumentAnalyser(str(f), fixer=attach_fixes).analyse(SOURCE).diagnostics if d.code == "NC002"]
    [fix] = d.fixes
    assert (fix.title, fix.safe) == ("Remove unused NC202", True)
    assert apply_edits(SOURCE, list(fix.edits)).splitlines()[5] == "d = jnp.ones((2, 3))"


def test_only_a_marker_namedcheck_judges_makes_a_file_judged() -> None:
    """NC002 resolves the file's positions only where some marker may be judged: namedcheck's own, or another
    tool's naming an NC code; real code's `# type: ignore` and `# noqa: E501` never cost that."""
    from namedcheck.analyzer.suppressions import may_judge

    for text in ("x = 1  # namedcheck: ignore", "y  # noqa: E501, NC201", "z  # type: ignore[NC203]", "# NOQA:nc201"):
        assert may_judge(text), text
    for text in ("x = 1  # type: ignore", "y  # noqa: E501", "z  # type: ignore[attr-defined]", "s = 'NC201'"):
        assert not may_judge(text), text
