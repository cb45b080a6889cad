"""Each diagnostic code is one object: a `str` with its title, explanation, examples, default hint and fixer."""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path

from namedcheck.edits.fixes import _FIXERS, FIXABLE
from namedcheck.engine import codes
from namedcheck.engine.codes import CODES, DEFAULT_HINTS, Code, default_hint

ROOT = Path(__file__).resolve().parent.parent


def test_every_code_is_complete():
    for name, c in CODES.items():
        assert isinstance(c, Code) and c == name and c.code == name
        assert c.title and c.explanation and c.hint, name
        assert default_hint(name) == c.hint == DEFAULT_HINTS[name]


def test_codes_are_plain_strings_to_their_users():
    c = codes.NC203
    assert c is CODES["NC203"] and c == "NC203" and "NC203" == c and hash(c) == hash("NC203")
    assert {c: 1}["NC203"] == 1 and c in {"NC203"} and c.startswith("NC2")
    assert json.dumps({"code": c}) == '{"code": "NC203"}' and repr(c) == "'NC203'"
    assert type(str(c)) is str and f"{c}" == "NC203"
    assert pickle.loads(pickle.dumps(c)) is c


def test_every_code_has_its_constant():
    for name, c in CODES.items():
        assert getattr(codes, name) is c


def test_fixers_are_named_by_their_codes():
    assert {name for name, c in CODES.items() if c.fix} == set(FIXABLE)
    for name in FIXABLE:
        assert _FIXERS[name].__name__.lstrip("_") == CODES[name].fix, name


def test_every_code_the_package_uses_is_registered():
    used: dict[str, str] = {}
    for root in ("namedcheck", "namedcheck_mypy"):
        for path in sorted((ROOT / root).rglob("*.py")):
            for code in re.findall(r"\bNC\d{3}\b", path.read_text(encoding="utf-8")):
                used.setdefault(code, str(path.relative_to(ROOT)))
    assert len(used) > 40
    unknown = {c: where for c, where in used.items() if c not in CODES}
    assert not unknown, f"codes used but not registered in engine/codes.py: {unknown}"
