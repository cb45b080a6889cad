"""examples/ is clean; the buggy tour reports exactly the codes its comments announce."""

from __future__ import annotations

import re
from pathlib import Path

from namedcheck.cli.config import load_config
from namedcheck.cli.main import run_check

ROOT = Path(__file__).resolve().parent.parent
ANNOUNCED = re.compile(r"#\s*(NC\d{3})\b")


def test_examples_are_clean(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert run_check(["examples"], load_config(ROOT), jobs=1) == []


def test_buggy_tour_reports_what_it_announces(monkeypatch):
    monkeypatch.chdir(ROOT)
    for path in sorted((ROOT / "examples" / "buggy").glob("*.py")):
        announced = {(i, m.group(1)) for i, line in enumerate(path.read_text().splitlines(), 1)
                     if (m := ANNOUNCED.search(line))}
        got = {(d.line, d.code) for d in run_check([str(path)], load_config(ROOT), jobs=1)}
        assert got == announced, path.name
