"""Fixes read the diagnostic's `data` (what the rule knew), never its message or hint: every fixable
diagnostic of the fix corpus, its message and hint reworded before the fixer runs, gets the same fixes,
and `check --fix` writes the same file."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from namedcheck.analyzer.incremental import DocumentAnalyser
from namedcheck.cli.main import main
from namedcheck.diagnostic import Diagnostic, Fix
from namedcheck.edits import fixes
from namedcheck.edits.fixes import FIXABLE, attach_fixes

ROOT = Path(__file__).resolve().parent.parent
CASES = sorted([*ROOT.glob("tests/cases/*.py"), *ROOT.glob("examples/buggy/*.py")])


def _reworded(d: Diagnostic) -> Diagnostic:
    return replace(d, message="reworded", hint="reworded") if d.code in FIXABLE else d


def _fixes(path: Path) -> dict[tuple[str, int, int, int, int], tuple[Fix, ...]]:
    diags = DocumentAnalyser(str(path), fixer=attach_fixes).analyse(path.read_text()).diagnostics
    return {(d.code, d.line, d.column, d.end_line, d.end_column): d.fixes for d in diags if d.code in FIXABLE}


FIXED = [p for p in CASES if any(_fixes(p).values())]


def test_the_corpus_has_fixes_of_every_fixable_code() -> None:
    codes = {k[0] for p in FIXED for k, v in _fixes(p).items() if v}
    assert codes == set(FIXABLE)


@pytest.mark.parametrize("path", FIXED, ids=lambda p: p.name)
def test_reworded_diagnostics_get_the_same_fixes(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _fixes(path)
    original = fixes.attach_fixes
    monkeypatch.setattr(fixes, "attach_fixes", lambda diags, *a, **k: original([_reworded(d) for d in diags], *a, **k))
    after = _fixes(path)
    assert after == before


@pytest.mark.parametrize("name", ["lsp_fixes.py", "fix_sharding.py", "shd_fixes.py"])
@pytest.mark.parametrize("unsafe", [False, True])
def test_check_fix_writes_the_same_file_from_reworded_diagnostics(
    tmp_path: Path, name: str, unsafe: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    flag = "--unsafe-fixes" if unsafe else "--fix"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plain").mkdir()
    (tmp_path / "reworded").mkdir()
    for d in ("plain", "reworded"):
        shutil.copy(ROOT / "tests" / "cases" / name, tmp_path / d / "m.py")
    main(["check", "plain/m.py", flag, "--no-cache"])
    original = fixes.attach_fixes
    monkeypatch.setattr(fixes, "attach_fixes", lambda diags, *a, **k: original([_reworded(d) for d in diags], *a, **k))
    main(["check", "reworded/m.py", flag, "--no-cache"])
    capsys.readouterr()
    plain, reworded = (tmp_path / "plain" / "m.py").read_text(), (tmp_path / "reworded" / "m.py").read_text()
    assert plain != (ROOT / "tests" / "cases" / name).read_text()  # something was fixed
    assert reworded == plain
