"""Parsing text CPython accepted without libcst's node validation gives the same trees; everything else is
still validated (text CPython rejects, nodes built outside a parse)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from namedcheck.analyzer.budget import cpython_accepted, python_rejects
from namedcheck.analyzer.parsing import parse_module

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(
    [
        *ROOT.glob("examples/**/*.py"),
        *ROOT.glob("tests/cases/*.py"),
        *ROOT.glob("tests/projects/**/*.py"),
        *ROOT.glob("namedcheck/analyzer/*.py"),
    ]
)


@pytest.mark.slow
def test_trusted_trees_equal_validated_trees() -> None:
    trusted_files = 0
    for f in SOURCES:
        src = f.read_text(encoding="utf-8")
        if python_rejects(src) is not None or not cpython_accepted(src):
            continue  # the corpus's files that do not parse
        trusted_files += 1
        trusted = parse_module(src, trusted=True)
        assert trusted.deep_equals(cst.parse_module(src)), f
        assert trusted.code == src
    assert trusted_files > 50


def test_only_the_text_cpython_just_accepted_is_trusted() -> None:
    good = "x = 1\n"
    assert python_rejects(good) is None and cpython_accepted(good)
    assert not cpython_accepted("y = 2\n")  # another text
    bad = "def f(:\n    pass\n"
    assert python_rejects(bad) is None  # a plain syntax error is libcst's to report
    assert not cpython_accepted(bad) and not cpython_accepted(good)
    deep = "x = " + "(" * 300 + "1" + ")" * 300 + "\n"
    assert python_rejects(deep) is not None and not cpython_accepted(deep)


def test_nodes_built_after_a_trusted_parse_are_validated() -> None:
    parse_module("x = 1\n", trusted=True)
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("def f(:\n    pass\n", trusted=False)
