"""Hostile but valid (or nearly valid) Python never crashes or stalls a run: the resource guard's pre-scan
(analyzer/budget.py `scan`) refuses what CPython's or libcst's parser cannot survive before either sees the
text, as one NC001 at the statement for a checked file and silently for a dependency; every other file's
diagnostics are kept. Each kind is generated at a size that used to crash the process (SIGSEGV in libcst's
native parser), end the run with exit 2 (RecursionError / MemoryError in CPython's parser) or take minutes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from namedcheck.analyzer.budget import MAX_CHAIN, MAX_JOINED, Limits, python_rejects, scan
from namedcheck.analyzer.check import check_source
from namedcheck.analyzer.incremental import DocumentAnalyser
from namedcheck.analyzer.parsing import Unparsable, decode_source, parse_ast, parse_checked, parse_expression
from namedcheck.analyzer.session import Session

ROOT = Path(__file__).resolve().parent.parent
HEADER = "import jax.numpy as jnp\n"
GOOD = HEADER + "x = jnp.zeros((2, 3)) + jnp.zeros((4,))\n"  # NC201 at line 2

# kind -> (the hostile statement, at a size that used to crash or fail the run); it is line 2 of its file
KINDS: dict[str, str] = {
    "and": "x = " + " and ".join(["a"] * 20_000),  # libcst: SIGSEGV
    "or": "x = " + " or ".join(["a"] * 20_000),  # libcst: SIGSEGV
    "binary": "x = " + " + ".join(["1"] * 5_000),  # CPython: RecursionError, exit 2
    "power": "x = " + " ** ".join(["2"] * 5_000),
    "unary": "x = " + "-" * 100_000 + "1",  # CPython: MemoryError, exit 2
    "not": "x = " + "not " * 5_000 + "a",
    "comparison": "x = " + " < ".join(["a"] * 100_000),  # libcst: 15 s
    "conditional": "x = " + " if c else ".join(["a"] * 5_000),
    "attribute": "x = a" + ".b" * 5_000,
    "call": "x = f" + "()" * 5_000,
    "subscript": "x = a" + "[0]" * 5_000,
    "import": "import " + ".".join(["a"] * 20_000),  # libcst: SIGSEGV
    "from-import": "from " + ".".join(["a"] * 20_000) + " import b",  # libcst: SIGSEGV
    "lambda": "x = " + "lambda: " * 5_000 + "1",  # CPython: MemoryError
    "f-string": "x = f'{" + "(" * 150 + "a" + " + a" * 1_000 + ")" * 150 + "}'",
    "nested f-strings": "x = " + 'f"{' * 300 + "1" + '}"' * 300,  # Python 3.12 syntax; libcst: 3 s
}


def _hostile(kind: str) -> str:
    return HEADER + KINDS[kind] + "\n" + "y = jnp.zeros((2, 3)) + jnp.zeros((4,))\n"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_is_one_nc001_at_its_statement(kind: str) -> None:
    """In-process (a crash here would end the test run): one NC001 at line 2 with a clear message, nothing
    else (the file is not checked), quickly."""
    start = time.monotonic()
    diags = check_source(_hostile(kind), "hostile.py")
    assert time.monotonic() - start < 20
    assert [(d.code, d.line) for d in diags] == [("NC001", 2)], diags
    assert diags[0].message.startswith("File is not checked: ")
    assert "split the long expression" in (diags[0].hint or "")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_parser_entry_refuses_it(kind: str) -> None:
    source = _hostile(kind)
    assert python_rejects(source) is not None
    with pytest.raises(Unparsable) as e:
        parse_checked(source)
    assert e.value.line == 2
    assert parse_ast(source) is None  # the import scan
    assert parse_ast(source.encode()) is None
    assert parse_expression(KINDS[kind].partition(" = ")[2] or KINDS[kind]) is None  # a string annotation


def test_the_limits_leave_real_code_far_below_them() -> None:
    """The pre-scan's estimates on this repository's sources (and jax / flax where installed): the deepest
    statement is far under MAX_CHAIN, the longest string join far under MAX_JOINED."""
    files = [*ROOT.glob("namedcheck/**/*.py"), *ROOT.glob("examples/**/*.py"), *ROOT.glob("tests/cases/*.py")]
    for package in ("jax", "flax"):
        try:
            mod = __import__(package)
        except ImportError:
            continue
        files += sorted(Path(next(iter(mod.__path__))).rglob("*.py"))[::7]
    deepest = joined = 0
    for f in files:
        s = scan(f.read_text(encoding="utf-8", errors="replace"))
        deepest, joined = max(deepest, s.chain), max(joined, s.joined)
    assert len(files) > 100
    assert deepest < MAX_CHAIN // 5 and joined < MAX_JOINED // 20, (deepest, joined)


def test_scan_estimates() -> None:
    assert scan("x = a + b * c\n").chain == 2
    assert scan("x = [" + ", ".join(["a + 1"] * 10_000) + "]\n").chain == 2  # a long flat list is not deep
    assert scan("x = f(a)(b)(c).d\n").chain == 5
    assert scan("if a:\n    pass\n" + "elif b:\n    pass\n" * 30).elifs == 30
    assert scan("s = 'a' 'b' 'c'\n").joined == 3
    assert scan("x = f'{a + f\"{b.c}\"}'\n").chain == 4  # fields are scanned (nested f-strings too)
    assert scan("x = '''(((\n'''  # ((( \n").chain == 0  # brackets in strings and comments are not
    s = scan("import jax\n" + "x = " + "-" * 1_000_000 + "1\n")
    assert s.chain == 1_000_000 and s.chain_at == len("import jax\n")


def test_a_dependency_refused_is_unknown_and_silent(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "deep.py").write_text(KINDS["and"] + "\ndef f(v):\n    return v\n")
    main = tmp_path / "main.py"
    main.write_text(HEADER + "from deep import f\ny = f(1)\nx = jnp.zeros((2, 3)) + jnp.zeros((4,))\n")
    session = Session()
    result = session.check(main, main.read_text(), "main.py")
    assert [(d.code, d.line) for d in result.all] == [("NC201", 4)]


def test_the_editor_refuses_it_too() -> None:
    analysis = DocumentAnalyser("hostile.py").analyse(_hostile("and"))
    assert [(d.code, d.line) for d in analysis.diagnostics] == [("NC001", 2)]
    analysis = DocumentAnalyser("good.py").analyse(GOOD)
    assert [(d.code, d.line) for d in analysis.diagnostics] == [("NC201", 2)]


def test_a_parse_past_the_budget_is_refused_before_it_runs() -> None:
    source = HEADER + "".join(f"x{i} = a + b\n" for i in range(25_000))  # 125,000 tokens: ~6 s predicted
    start = time.monotonic()
    diags = check_source(source, "big.py", limits=Limits(time_budget=1.0))
    assert time.monotonic() - start < 10
    assert [(d.code, d.line) for d in diags] == [("NC001", 1)]
    assert "too large to check within the budget" in diags[0].message
    assert "time-budget 1 s" in diags[0].message
    # a parse predicted under 5 s is never refused: a small budget cuts the analysis short instead
    small = check_source(HEADER + "x = a + b\n" * 8_000, "small.py", limits=Limits(time_budget=0.0))
    assert not any("too large to check" in d.message for d in small)


# ---- valid files that used to be NC001, and syntax errors where Python puts them ---------------------------


def test_a_coding_line_is_honoured() -> None:
    data = b"# -*- coding: latin-1 -*-\n" + GOOD.encode() + b's = "caf\xe9"\n'
    assert decode_source(data).endswith('s = "caf\xe9"\n')
    with pytest.raises(UnicodeDecodeError):
        decode_source(b"x = '\xe9'\n")  # no coding line: UTF-8, as Python reads it


def test_tab_space_mixes_python_accepts_are_checked() -> None:
    # a tab taken as 8 columns and as 1 nests the same: Python accepts it; libcst's tokenizer did not
    source = HEADER + "if a:\n if b:\n\t y = 1\n x = jnp.zeros((2, 3)) + jnp.zeros((4,))\n"
    assert [(d.code, d.line, d.column) for d in check_source(source, "tabs.py")] == [("NC201", 5, 6)]


def test_syntax_errors_at_pythons_location() -> None:
    diags = check_source(HEADER + "y = (1,\nz = 3\n", "bad.py")
    assert [(d.code, d.line, d.message) for d in diags] == [("NC001", 2, "File does not parse: '(' was never closed")]


def test_an_invalid_escape_is_one_nc001_where_it_is() -> None:
    diags = check_source(HEADER + 'y = b"\\x.0"\n' + GOOD, "esc.py")
    assert [(d.code, d.line) for d in diags] == [("NC001", 2)]
    assert "invalid \\x escape" in diags[0].message
    # in a string annotation of a file Python accepts, an annotation it cannot read is just not one
    assert parse_expression("f32[") is None


def test_joined_strings_past_the_parsers_limit_are_checked() -> None:
    """libcst rejects more than 3,000 adjacent string literals: the parse reads the run as a name (Unknown),
    every line and column kept, and the rest of the file is checked."""
    rest = GOOD.split("\n", 1)[1]
    for n in (2_000, 5_000):
        in_brackets = "s = (" + "\n".join(["'a'"] * n) + ")\n"
        diags = check_source(HEADER + in_brackets + rest, "j.py")
        assert [(d.code, d.line) for d in diags] == [("NC201", n + 2)]
        one_line = "s = " + " ".join(["'a'"] * n) + "\n"
        assert [(d.code, d.line, d.column) for d in check_source(HEADER + one_line + rest, "j.py")] == [("NC201", 3, 5)]
    # a run that cannot be rewritten so (a literal against a keyword) is refused, with what and why
    glued = "s = 1 if" + " ".join(["'a'"] * 4_000) + "else 2\n"
    diags = check_source(HEADER + glued + rest, "j.py")
    assert [(d.code, d.line) for d in diags] == [("NC001", 2)]
    assert "joins 4,000 adjacent string literals" in diags[0].message


# ---- the command line: exit 1 with every other file's result, in-process and with workers ------------------


def _cli(*args: str, cwd: Path, stdin: str | None = None) -> tuple[int, list[dict[str, object]], float]:
    env = {**os.environ, "NAMEDCHECK_STRICT": "1"}
    start = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "namedcheck", "check", "--no-cache", "--format", "json", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    took = time.monotonic() - start
    assert out.stderr == "" or "internal error" not in out.stderr, out.stderr
    return out.returncode, json.loads(out.stdout), took


def _files(tmp_path: Path, kinds: list[str]) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "plain.py").write_text(KINDS["binary"] + "\n")  # never mentions jax: skipped, not a lost run
    for kind in kinds:
        (tmp_path / f"h_{kind.replace(' ', '_').replace('-', '_')}.py").write_text(_hostile(kind))


def test_cli_in_process(tmp_path: Path) -> None:
    """Up to 8 files are checked in the CLI's own process: a crash there would lose everything."""
    _files(tmp_path, ["and", "import", "unary"])
    rc, diags, took = _cli(".", cwd=tmp_path)
    assert rc == 1 and took < 60
    assert sorted((Path(str(d["path"])).name, d["code"], d["line"]) for d in diags) == [
        ("good.py", "NC201", 2),
        ("h_and.py", "NC001", 2),
        ("h_import.py", "NC001", 2),
        ("h_unary.py", "NC001", 2),
    ]
    rc, diags, _ = _cli("-", cwd=tmp_path, stdin=_hostile("or"))
    assert rc == 1 and [(d["code"], d["line"]) for d in diags] == [("NC001", 2)]


@pytest.mark.slow
def test_cli_every_kind_with_workers(tmp_path: Path) -> None:
    _files(tmp_path, sorted(KINDS))
    rc, diags, took = _cli(".", cwd=tmp_path)
    assert rc == 1 and took < 120
    found = sorted((Path(str(d["path"])).name, d["code"], d["line"]) for d in diags)
    assert ("good.py", "NC201", 2) in found
    assert [f for f in found if f[0] != "good.py"] == sorted(
        (f"h_{k.replace(' ', '_').replace('-', '_')}.py", "NC001", 2) for k in KINDS
    )


@pytest.mark.slow
def test_cli_the_biggest_sizes(tmp_path: Path) -> None:
    """A 100,000-operand `and` killed the process with SIGSEGV at 1.3 GB; 1,000,000 unary operators; a
    1.3 MB file of 60,000 statements took 50 s and 860 MB."""
    (tmp_path / "a.py").write_text(HEADER + "x = " + " and ".join(["a"] * 100_000) + "\n")
    (tmp_path / "b.py").write_text(HEADER + "x = " + "-" * 1_000_000 + "1\n")
    (tmp_path / "c.py").write_text(HEADER + "".join(f"x{i} = a + b\n" for i in range(60_000)))
    (tmp_path / "good.py").write_text(GOOD)
    rc, diags, took = _cli(".", cwd=tmp_path)
    assert rc == 1 and took < 60
    assert sorted((Path(str(d["path"])).name, d["code"], d["line"]) for d in diags) == [
        ("a.py", "NC001", 2),
        ("b.py", "NC001", 2),
        ("c.py", "NC001", 1),
        ("good.py", "NC201", 2),
    ]


def test_every_parse_of_a_files_text_goes_through_the_guard() -> None:
    """Direct calls of a parser on text, outside analyzer/parsing.py and budget.py: each listed with why it is
    safe (a new one must go through `parse_checked` / `parse_ast` / `parse_expression`)."""
    import re

    allowed = {
        "namedcheck/engine/symbolic.py": 1,  # a size expression of a few characters (the engine's own syntax)
        "namedcheck/engine/stubs.py": 1,  # a stub file: RecursionError / MemoryError become a StubError
        "namedcheck/analyzer/project.py": 1,  # `ast.parse` of a text `python_rejects` has just let through
        "namedcheck/analyzer/partial.py": 1,  # statements of a text the guard let through
        "namedcheck/analyzer/session.py": 1,  # a text the guard let through, parsed again for another count
        "namedcheck/analyzer/positions.py": 1,  # `ast.parse` of a module's text the guard let through
    }
    call = re.compile(r"\b(?:cst\.parse_(?:module|expression|statement)|ast\.parse|parse_module|(?<![.\w])compile)\(")
    found: dict[str, int] = {}
    for f in [*ROOT.glob("namedcheck/**/*.py"), *ROOT.glob("plugin/**/*.py")]:
        rel = f.relative_to(ROOT).as_posix()
        if rel in ("namedcheck/analyzer/parsing.py", "namedcheck/analyzer/budget.py"):
            continue
        n = sum(1 for line in f.read_text(encoding="utf-8").splitlines() if call.search(line.split("#")[0]))
        if n:
            found[rel] = n
    assert found == allowed


def test_a_stub_too_deep_or_invalid_is_a_stub_error(tmp_path: Path) -> None:
    from namedcheck.engine.stubs import StubError, load_file

    deep = tmp_path / "deep.pyi"
    deep.write_text("def f(x: int = " + " + ".join(["1"] * 5_000) + ") -> int: ...\n")
    with pytest.raises(StubError, match="nested too deeply to parse"):
        load_file(deep)
    bad = tmp_path / "bad.pyi"
    bad.write_text("def f(x:\n")
    with pytest.raises(StubError, match="bad.pyi:1: invalid syntax"):
        load_file(bad)
