"""A rule's own failure is a bug: it fails loudly under NAMEDCHECK_STRICT (the test suite), and in a user's run it
is an NC000 diagnostic at the expression whose rule failed, the rest of the file still checked."""

import pytest

from namedcheck.analyzer.check import check_source
from namedcheck.engine import errors
from namedcheck.engine.ops import Unprovable
from namedcheck.engine.ops.registry import record

SRC = """\
import jax.numpy as jnp
from namedcheck import f32

def f(x: f32[(3, 4)], y: f32[(5,)]):
    a = x + y
    b = jnp.sum(x, axis=0)
    return a, b
"""


def _broken(call):
    raise TypeError("'NoneType' object is not subscriptable")


def _unprovable(call):
    raise Unprovable


def _patch(monkeypatch, fn):
    monkeypatch.setattr(record("jax.numpy.sum"), "shape", fn)


@pytest.fixture
def broken_sum(monkeypatch):
    _patch(monkeypatch, _broken)


def test_the_suite_runs_strict():
    assert errors.strict()


def test_a_broken_rule_fails_loudly_under_strict(broken_sum):
    with pytest.raises(TypeError, match="not subscriptable"):
        check_source(SRC, "case.py")


def test_a_broken_rule_is_nc000_at_its_expression(broken_sum, monkeypatch):
    monkeypatch.setattr(errors, "_STRICT", False)
    found = check_source(SRC, "case.py")
    assert [(d.code, d.line) for d in found] == [("NC201", 5), ("NC000", 6)]
    bug = found[1]
    assert (bug.column, bug.end_line) == (9, 6)
    assert "internal error in the rule for jnp.sum: TypeError: 'NoneType' object is not subscriptable" in \
        bug.message and "please report it" in bug.message


def test_unprovable_stays_silent(monkeypatch):
    _patch(monkeypatch, _unprovable)
    assert [(d.code, d.line) for d in check_source(SRC, "case.py")] == [("NC201", 5)]


def test_strict_is_read_from_the_environment(monkeypatch):
    monkeypatch.setattr(errors, "_STRICT", None)
    monkeypatch.setenv("NAMEDCHECK_STRICT", "0")
    assert not errors.strict()
    monkeypatch.setattr(errors, "_STRICT", None)
    monkeypatch.setenv("NAMEDCHECK_STRICT", "1")
    assert errors.strict()
