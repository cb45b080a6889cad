"""Differential tests of `namedcheck.xmap` over the programs in tests/xmap_programs/ (features of jax
0.4.30's xmap test suite and documentation, written for this project).

- `case_*` functions return (got, want) pairs: xmap's value against positional jax.numpy / numpy.
- `error_*` functions must raise the exception class and code of their `# runtime: Class [NCxxx]` line,
  from that line (it is in the traceback, or it is the line a NamedAxisError names). A class that
  namedcheck.errors does not define is a builtin raised by JAX itself (no code).
- The static checker reports exactly the `# expect: NCxxx` lines of each file (the same code on the
  same line as the runtime where it can see the mistake) and nothing on the valid programs.
"""

from __future__ import annotations

import builtins
import inspect
import re
import runpy
from pathlib import Path

import numpy as np
import pytest

import namedcheck.errors as errors
from namedcheck.analyzer.check import analyse_for_test

PROGRAMS = Path(__file__).parent / "xmap_programs"
FILES = sorted(PROGRAMS.glob("xmap_*.py"))
RUNTIME = re.compile(r"#\s*runtime:\s*(\w+)(?:\s+(NC\d+))?")
EXPECT = re.compile(r"#\s*expect:\s*(NC\d+)")
_modules: dict[Path, dict] = {}


def _module(path: Path) -> dict:
    if path not in _modules:
        _modules[path] = runpy.run_path(str(path))
    return _modules[path]


def _functions(prefix: str) -> list[tuple[Path, str]]:
    return [(p, name) for p in FILES for name in re.findall(rf"^def ({prefix}\w+)\(", p.read_text(), re.M)]


@pytest.mark.parametrize("path,name", _functions("case_"), ids=lambda v: v if isinstance(v, str) else v.stem)
def test_program_value(path: Path, name: str) -> None:
    pairs = _module(path)[name]()
    assert pairs
    for got, want in pairs:
        assert np.shape(got) == np.shape(want)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("path,name", _functions("error_"), ids=lambda v: v if isinstance(v, str) else v.stem)
def test_program_error(path: Path, name: str) -> None:
    fn = _module(path)[name]
    lines, first = inspect.getsourcelines(fn)
    marked = [(first + i, RUNTIME.search(t), EXPECT.search(t)) for i, t in enumerate(lines) if RUNTIME.search(t)]
    assert len(marked) == 1, f"{name}: one line must carry `# runtime:`"
    line, runtime, expect = marked[0]
    cls = getattr(errors, runtime.group(1), None) or getattr(builtins, runtime.group(1))
    code = runtime.group(2) or (expect.group(1) if expect else None)
    ours = issubclass(cls, errors.NamedcheckRuntimeError)
    with pytest.raises(errors.NamedcheckRuntimeError if ours else cls) as info:
        fn()
    assert type(info.value) is cls, f"{name}: raised {type(info.value).__name__}: {info.value}"
    if ours:  # namedcheck's errors carry the static rule's code and one line of text
        assert info.value.code == code, str(info.value)
        assert "\n" not in str(info.value)
    else:  # an error JAX itself raises (the AOT checks of a compiled xmap)
        assert code is None
    frames = set()
    tb = info.tb
    while tb is not None:
        frames.add((tb.tb_lineno, tb.tb_frame.f_code.co_filename))
        tb = tb.tb_next
    named = (getattr(info.value, "lineno", None), getattr(info.value, "filename", None))
    assert (line, str(path)) in frames or named == (line, str(path)), f"{name}: not raised from line {line}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_static_checker_agrees(path: Path) -> None:
    source = path.read_text()
    expected = {(i, m.group(1)) for i, t in enumerate(source.splitlines(), 1) if (m := EXPECT.search(t))}
    diagnostics, _ = analyse_for_test(source, path.name)
    got = {(d.line, d.code) for d in diagnostics}
    assert got == expected, f"missing {sorted(expected - got)}; unexpected {sorted(got - expected)}"
