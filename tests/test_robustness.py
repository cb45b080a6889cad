"""The analyzer never raises on real code: a deterministic sample of the installed jax and numpy
sources, analysed in full (the relevance pre-filter bypassed). bench/cli_bench.py runs them all."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from namedcheck.analyzer.check import check_source


def _sample(package: str, every: int) -> list[Path]:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return []
    files = sorted(Path(next(iter(spec.submodule_search_locations))).rglob("*.py"))
    return files[::every]


FILES = _sample("jax", 12) + _sample("numpy", 40)


@pytest.mark.skipif(not FILES, reason="jax / numpy not installed")
@pytest.mark.parametrize("path", FILES, ids=lambda p: "/".join(p.parts[-3:]))
def test_no_internal_error_and_no_diagnostic(path: Path) -> None:
    source = path.read_text(encoding="utf-8", errors="replace")
    diags = check_source(source, str(path), force=True)
    assert [d for d in diags if d.code == "NC000"] == []
    if "tests" not in path.parts:  # test suites raise errors on purpose (inside assert_raises)
        # Library code has no namedcheck annotations: anything reported would be a false positive.
        assert [d for d in diags if d.code != "NC001"] == [], [(d.line, d.code, d.message) for d in diags]


def test_long_operator_chains_do_not_exhaust_recursion() -> None:
    chain = " + ".join(["jnp.ones(3)"] * 190)  # under the nesting limit (budget.MAX_NESTING)
    source = f"import jax.numpy as jnp\nfrom namedcheck import f32\nx = {chain} + jnp.ones(4)\n"
    assert [(d.line, d.code) for d in check_source(source, "deep.py")] == [(3, "NC201")]


def test_odd_inputs_never_raise() -> None:
    for source in [
        "",
        "\n\n",
        "from namedcheck import *\n",
        "namedcheck = 1\nx: namedcheck[5]\n",
        "from namedcheck import f32\nclass A:\n    x: f32[(3,)]\n    def m(self): return self.x + 1\n",
        "from namedcheck import f32\nasync def f(x: f32[(2,)]):\n    async for y in x:\n        await y\n",
        "from namedcheck import f32\nmatch 1:\n    case 1:\n        pass\n",
        "from namedcheck import f32\ndef f(*a, **k):\n    return f(*a, **k)\nf(1)\n",
        "from namedcheck import f32\nx = lambda: x()\nx()\n",
        "\ufeffimport namedcheck\n",
    ]:
        diags = check_source(source, "odd.py")
        assert [d for d in diags if d.code == "NC000"] == [], (source, diags)


# ---- the resource guard (issue 10) -----------------------------------------------------------------

HEADER = "import jax.numpy as jnp\nfrom namedcheck import f32\n"
# Inputs that crashed libcst's native parser (segfault) or took seconds and gigabytes.
DEEP = {
    "1,500 nested parentheses": "x = " + "(" * 1500 + "1" + ")" * 1500,
    "10,000 nested lists": "x = " + "[" * 10_000 + "]" * 10_000,
    "5,000 nested calls": "x = " + "f(" * 5000 + ")" * 5000,
    "10,000 chained .T": "x = jnp.ones((2, 3))" + ".T" * 10_000,
    "20,000-term + chain": "x = " + " + ".join(["jnp.ones(3)"] * 20_000),
    "10,000 chained [0]": "x = y" + "[0]" * 10_000,
    "1,000 nested jnp.sin": "x = " + "jnp.sin(" * 1000 + "jnp.ones(3)" + ")" * 1000,
    "250 chained .T (valid Python)": "x = jnp.ones((2, 3))" + ".T" * 250,
}


@pytest.mark.parametrize("name", DEEP)
def test_deep_nesting_is_one_clear_nc001(name: str) -> None:
    diags = check_source(HEADER + DEEP[name] + "\n", "deep.py")
    assert [(d.line, d.code) for d in diags] == [(3, "NC001")], diags
    assert "nest" in diags[0].message or "parenthes" in diags[0].message


def test_pathological_but_valid_lines_are_bounded() -> None:
    """One 20,000-term line is analysed (libcst handles it linearly); it is silent and complete."""
    from namedcheck.analyzer.check import check_source_bounded

    source = HEADER + "x = [" + ", ".join(str(i) for i in range(20_000)) + "]\ny = jnp.ones(3) + jnp.ones(4)\n"
    diags, complete = check_source_bounded(source, "long.py")
    assert complete and [(d.line, d.code) for d in diags] == [(4, "NC201")]


def test_time_and_memory_budgets_cut_the_analysis_short_and_say_so() -> None:
    from namedcheck.analyzer.budget import Limits
    from namedcheck.analyzer.check import check_source_bounded

    body = "".join(f"a{i} = jnp.ones(3) * {i}\n" for i in range(600))
    source = HEADER + body + "z = jnp.ones(3) + jnp.ones(4)\n"
    assert check_source_bounded(source, "b.py") == ([d := check_source(source, "b.py")[0]], True)
    assert d.code == "NC201"
    has_proc = Path("/proc/self/statm").exists()  # the memory budget reads the resident set size there
    for limits in (Limits(time_budget=0.0), *([Limits(memory_budget=0)] if has_proc else [])):
        diags, complete = check_source_bounded(source, "b.py", limits=limits)
        # the rest is Unknown: nothing reported but the NC001 that says the file was cut short
        assert not complete and [(d.line, d.code) for d in diags] == [(1, "NC001")]
        assert ("time-budget" if limits.time_budget == 0 else "memory-budget") in diags[0].message


def test_recursion_with_growing_arguments_is_not_followed(monkeypatch) -> None:
    """jax's public_test_util.check_grads: a helper calling itself three times with ever larger argument
    values (a new memo key each time) was analysed 3**12 times (3 minutes); now at most one level deep."""
    import namedcheck.analyzer.module as module

    monkeypatch.setattr(module, "STEP_BUDGET_BASE", 10**9)  # the cause is fixed, not hidden by the step bound
    bodies: list[str] = []
    original = module.ModuleAnalyzer.body_values
    monkeypatch.setattr(
        module.ModuleAnalyzer,
        "body_values",
        lambda self, ref, *a, **k: bodies.append(ref.name) or original(self, ref, *a, **k),
    )
    source = HEADER + (
        "from functools import partial\nimport jax\n\n"
        "def check(f, args, order, msg=''):\n"
        "    f(*args)\n"
        "    if order > 1:\n"
        "        check(partial(jax.jvp, f), (args, args), order - 1, msg + 'a')\n"
        "        check(partial(jax.vjp, f), (args, args), order - 1, msg + 'b')\n"
        "        check(partial(jax.linearize, f), (args, args), order - 1, msg + 'c')\n\n"
        "check(jnp.sin, (jnp.ones(3),), 12)\n"
    )
    assert check_source(source, "grads.py") == []
    assert bodies.count("check") <= 8, len(bodies)


PUBLIC_TEST_UTIL = _sample("jax", 1)
PUBLIC_TEST_UTIL = [p for p in PUBLIC_TEST_UTIL if p.name == "public_test_util.py" and p.parent.name == "_src"]


@pytest.mark.skipif(not PUBLIC_TEST_UTIL, reason="jax not installed")
def test_jax_public_test_util_is_analysed_a_bounded_number_of_times(monkeypatch) -> None:
    """The file that took 3 minutes: 56,759 followed calls before the fix, under 200 bodies now (without the
    step bound that used to hide it)."""
    import namedcheck.analyzer.module as module

    monkeypatch.setattr(module, "STEP_BUDGET_BASE", 10**9)
    bodies: list[str] = []
    original = module.ModuleAnalyzer.body_values
    monkeypatch.setattr(
        module.ModuleAnalyzer,
        "body_values",
        lambda self, ref, *a, **k: bodies.append(ref.name) or original(self, ref, *a, **k),
    )
    assert check_source(PUBLIC_TEST_UTIL[0].read_text(), "public_test_util.py", force=True) == []
    assert len(bodies) < 200


def test_nul_byte_and_huge_arange_are_no_internal_errors() -> None:
    diags = check_source(HEADER + 'x = "a\\x00b"\n'.replace("\\x00", "\x00"), "nul.py")
    assert [(d.line, d.column, d.code) for d in diags] == [(3, 7, "NC001")]
    assert (
        check_source(
            HEADER + "x = jnp.arange(1e400)\ny = jnp.arange(0, float('inf'))\nz = jnp.arange(10**30)\n"
            "w = jnp.pad(jnp.ones((2, 3)), ((1,), (2,)))\n",
            "big.py",
        )
        == []
    )  # np.pad accepts (n, 1)


def test_lines_are_counted_as_pythons_tokenizer_counts_them(tmp_path, capsys, monkeypatch) -> None:
    from namedcheck.cli.main import main

    odd = "# a\x0cb \x0b c \x1c d \x1d e \x1e f \x85 g \u2028 h \u2029 i\n"
    source = HEADER + odd + "x = jnp.ones(3) + jnp.ones(4)  # namedcheck: ignore\ny = jnp.ones(3) + jnp.ones(5)\n"
    assert [(d.line, d.code) for d in check_source(source, "odd.py")] == [(5, "NC201")]
    (tmp_path / "odd.py").write_text(source, encoding="utf-8", newline="")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "odd.py", "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert "5 | y = jnp.ones(3) + jnp.ones(5)" in out


# ---- the command line on hostile trees ----------------------------------------------------------

BAD = HEADER + "\ndef f(x: f32[(3, 4)], y: f32[(5,)]):\n    return x + y\n"


def _json_run(capsys, *args: str) -> tuple[int, list[dict], str]:
    from namedcheck.cli.main import main

    code = main(["check", "--format", "json", "--no-cache", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, json.loads(out), err


def test_one_deep_file_costs_one_diagnostic_in_a_parallel_run(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    for i in range(12):
        (tmp_path / f"m{i:02}.py").write_text(BAD)
    (tmp_path / "m05.py").write_text(HEADER + DEEP["10,000 nested lists"] + "\n")
    code, data, _ = _json_run(capsys, ".", "-j", "2")
    assert code == 1
    assert sorted((Path(d["path"]).name, d["code"]) for d in data) == sorted(
        [(f"m{i:02}.py", "NC201") for i in range(12) if i != 5] + [("m05.py", "NC001")]
    )


def test_a_crashing_worker_costs_its_file_one_diagnostic(tmp_path, monkeypatch) -> None:
    import signal

    from namedcheck.analyzer.budget import Limits
    from namedcheck.cli import runner

    for i in range(12):
        (tmp_path / f"m{i:02}.py").write_text(BAD)
    original = runner.check_file

    def crashing(job):  # the fault a native parser's stack overflow gives
        if job.display.endswith("m07.py"):
            import faulthandler

            faulthandler.disable()  # pytest's handler would print the dying worker's stack
            os.kill(os.getpid(), signal.SIGSEGV)
        return original(job)

    monkeypatch.setattr(runner, "check_file", crashing)
    jobs = [runner.Job(str(p), str(p), (), None, Limits()) for p in sorted(tmp_path.glob("*.py"))]
    diags = runner.check_all(jobs, 2)
    assert sorted((Path(d.path).name, d.code) for d in diags) == sorted(
        [(f"m{i:02}.py", "NC201") for i in range(12) if i != 7] + [("m07.py", "NC001")]
    )
    assert "crashed" in next(d.message for d in diags if d.code == "NC001")


def test_special_files_are_never_read(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.py").write_text(BAD)
    os.mkfifo(tmp_path / "f.py")
    (tmp_path / "z.py").symlink_to("/dev/zero")
    code, data, err = _json_run(capsys, ".")
    assert code == 2  # what could not be read is said, and the run says so
    assert sorted((d["path"], d["code"]) for d in data) == [
        ("./f.py", "NC001"),
        ("./ok.py", "NC201"),
        ("./z.py", "NC001"),
    ]
    assert "a FIFO, not a regular file" in err and "a character device" in err
    code, data, err = _json_run(capsys, "f.py")  # named explicitly: the same message, no blocking
    assert code == 2 and "f.py" in err and "FIFO" in data[0]["message"]


def test_files_over_the_size_cap_are_not_read(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\nmax-file-size = 1\n")
    (tmp_path / "big.py").write_text(HEADER + "# padding\n" * 120_000)
    code, data, _ = _json_run(capsys, "big.py")
    assert code == 1 and data[0]["code"] == "NC001" and "larger than 1 MB" in data[0]["message"]


def test_unreadable_paths_exit_2_and_say_what(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.py").write_text(BAD)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "hidden.py").write_text(BAD)
    (tmp_path / "secret.py").write_text(BAD)
    scandir, real_open = os.scandir, os.open

    def no_listing(path=".", *a):  # chmod 000 does not stop root: refuse like the kernel would
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path, *a)

    def no_reading(path, *a, **k):
        if str(path).endswith("secret.py"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *a, **k)

    monkeypatch.setattr(os, "scandir", no_listing)
    monkeypatch.setattr(os, "open", no_reading)
    code, data, err = _json_run(capsys, ".", "-j", "1")
    assert code == 2
    assert ("./locked", "NC001") in {(d["path"], d["code"]) for d in data}
    assert ("./secret.py", "NC001") in {(d["path"], d["code"]) for d in data}
    assert ("./ok.py", "NC201") in {(d["path"], d["code"]) for d in data}
    assert "locked" in err and "secret.py" in err and "Permission denied" in err


@pytest.mark.parametrize(
    "toml, key",
    [
        ("tool = 5\n", "tool"),
        ("[tool]\nnamedcheck = 5\n", "[tool.namedcheck]"),
        ('[tool.namedcheck]\nselect = ["zz"]\n', "select"),
        ('[tool.namedcheck]\nignore = ["NC2", "NC9999"]\n', "ignore"),
        ('[tool.namedcheck]\ntime-budget = "fast"\n', "time-budget"),
        ("[tool.namedcheck]\nmemory-budget = 1.5\n", "memory-budget"),
        ("[tool.namedcheck]\ntime-budget = nan\n", "time-budget"),  # was: no budget at all
        ("[tool.namedcheck]\nmax-file-size = 100000\n", "max-file-size"),  # was: an internal error
    ],
)
def test_bad_config_is_a_clear_error(tmp_path, capsys, monkeypatch, toml: str, key: str) -> None:
    from namedcheck.cli.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(toml)
    (tmp_path / "ok.py").write_text(BAD)
    assert main(["check", "ok.py"]) == 2
    out, err = capsys.readouterr()
    assert key in err and "pyproject.toml" in err and "Traceback" not in err


def test_unknown_codes_on_the_command_line_are_an_error(tmp_path, capsys, monkeypatch) -> None:
    from namedcheck.cli.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.py").write_text(BAD)
    assert main(["check", "ok.py", "--select", "zz"]) == 2
    assert "--select" in capsys.readouterr().err
    assert main(["check", "ok.py", "--ignore", "NC2,nc50"]) == 0


def test_many_exclude_patterns_are_indexed() -> None:
    from namedcheck.cli.discover import Excludes

    ex = Excludes([f"generated/part{i}" for i in range(100_000)] + ["*/vendored/*", "docs/**/*.py"])
    assert ex.match("generated/part99999/x.py") and ex.match("generated/part7")
    assert not ex.match("generated/part100000/x.py") and not ex.match("src/model.py")
    assert ex.match("src/vendored/lib.py") and ex.match("docs/a/b/conf.py")
    assert len(ex.compiled) <= 2  # literal patterns are looked up, never compiled one by one


def test_corrupt_cache_entries_are_misses(tmp_path, capsys, monkeypatch) -> None:
    from namedcheck.cli.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\n")
    (tmp_path / "a.py").write_text(BAD)
    assert main(["check", "a.py", "--format", "json"]) == 1
    expected = capsys.readouterr().out
    cached = (tmp_path / ".namedcheck_cache").rglob("*")
    [entry] = [p for p in cached if p.is_file() and p.name not in (".gitignore", "files-v1.json")]
    for corrupt in (
        b"\x00garbage",
        b"[]",
        json.dumps({"key": entry.name, "sha256": "0", "diagnostics": "[]"}).encode(),
        None,
    ):
        entry.unlink()
        if corrupt is None:
            entry.symlink_to("/dev/zero")
        else:
            entry.write_bytes(corrupt)
        assert main(["check", "a.py", "--format", "json"]) == 1
        assert capsys.readouterr().out == expected


def test_an_analyzer_that_fails_to_import_is_exit_2_with_json(tmp_path, capsys, monkeypatch) -> None:
    from namedcheck.cli.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(BAD)
    monkeypatch.setitem(sys.modules, "namedcheck.analyzer.session", None)  # import raises ImportError
    assert main(["check", "a.py", "--format", "json", "--no-cache"]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out) == [] and "cannot be imported" in err and "Traceback" not in err


# ---- fuzzing: mutated examples and cases through the whole command -------------------------------

_ROOT = Path(__file__).resolve().parent.parent
SEEDS = sorted([*(_ROOT / "examples").rglob("*.py"), *(_ROOT / "tests" / "cases").glob("*.py")])
ODD = ["\x00", "\x0c", "\x0b", "\x1c", "\x85", "\u2028", "\ufeff", "\r", "\t", "\\", "'", '"""', "\x7f", "é"]
MUTATIONS = (
    "delete_token",
    "duplicate_token",
    "bracket",
    "annotation",
    "deep",
    "long_line",
    "odd_byte",
    "line_endings",
    "bad_utf8",
)


def _tokens(text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of the text's tokens (a rough lexer: words, numbers, operators)."""
    import re

    return [m.span() for m in re.finditer(r"\w+|[^\w\s]", text)]


def _mutate(data: bytes, kind: str, at: int, size: int) -> bytes:
    import re

    text = data.decode("utf-8", errors="replace")
    toks = _tokens(text) or [(0, 0)]
    a, b = toks[at % len(toks)]
    pos = at % (len(text) + 1)
    if kind == "delete_token":
        text = text[:a] + text[b:]
    elif kind == "duplicate_token":
        text = text[:b] + " " + text[a:b] + text[b:]
    elif kind == "bracket":
        text = text[:pos] + "()[]{}"[size % 6] + text[pos:] if size % 2 else text[:a] + text[b:]
    elif kind == "annotation":
        spans = [m.span(1) for m in re.finditer(r"\[\((.*?)\)", text)]
        if spans:
            s, e = spans[at % len(spans)]
            text = text[:s] + ["", "'n', 'n'", "0, -1", "3, {'b': 4}", "None", "(", "1 2", "..."][size % 8] + text[e:]
    elif kind == "deep":
        depth = [20, 150, 199, 260, 1000][size % 5]
        text = text[:a] + "(" * depth + text[a:b] + ")" * depth + text[b:]
    elif kind == "long_line":
        text = text + "\nz = " + " + ".join(["jnp.ones(3)"] * [100, 190, 5000][size % 3]) + "\n"
    elif kind == "odd_byte":
        text = text[:pos] + ODD[size % len(ODD)] + text[pos:]
    elif kind == "line_endings":
        text = text.replace("\n", ["\r\n", "\r", "\n\x0c", "\u2028"][size % 4])
    elif kind == "bad_utf8":
        return data[:pos] + b"\xff\xfe" + data[pos:]
    return text.encode("utf-8", errors="surrogatepass")


@settings(
    max_examples=40,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    seed=st.integers(0, len(SEEDS) - 1),
    edits=st.lists(
        st.tuples(st.sampled_from(MUTATIONS), st.integers(0, 10**6), st.integers(0, 1000)), min_size=1, max_size=3
    ),
)
def test_mutated_sources_never_break_the_command(tmp_path_factory, seed: int, edits: list) -> None:
    from namedcheck.cli.main import main

    data = SEEDS[seed].read_bytes()
    for kind, at, size in edits:
        data = _mutate(data, kind, at, size)
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "mutant.py").write_bytes(data)
    with _captured() as (out, err):
        code = main(["check", "--format", "json", "--no-cache", "-j", "1", str(folder / "mutant.py")])
    assert code in (0, 1, 2)
    assert "Traceback" not in out.getvalue() + err.getvalue()
    diags = json.loads(out.getvalue())  # JSON always printed
    assert [d for d in diags if d["code"] == "NC000"] == [], (edits, diags)


@contextmanager
def _captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        yield out, err


def test_resource_limits_are_read_from_the_config(tmp_path) -> None:
    from namedcheck.analyzer.budget import Limits
    from namedcheck.cli.config import load_config

    (tmp_path / "pyproject.toml").write_text(
        "[tool.namedcheck]\ntime-budget = 2\nmemory-budget = 300\nmax-file-size = 1\n"
    )
    assert load_config(tmp_path).limits == Limits(time_budget=2.0, memory_budget=300, max_file_size=1)
    (tmp_path / "pyproject.toml").write_text("[tool.namedcheck]\n")
    assert load_config(tmp_path).limits == Limits()


def test_a_symlink_loop_in_the_tree_is_an_unreadable_file_not_a_crash(tmp_path, capsys, monkeypatch) -> None:
    from namedcheck.cli.main import main

    (tmp_path / "a.py").symlink_to(tmp_path / "b.py")
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    (tmp_path / "c.py").write_text("import jax.numpy as jnp\nx = jnp.ones(3) + jnp.ones(4)\n")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--no-cache", "--format", "json", "."]) == 2
    out, err = capsys.readouterr()
    assert sorted((d["path"].removeprefix("./"), d["code"]) for d in json.loads(out)) == [
        ("a.py", "NC001"),
        ("b.py", "NC001"),
        ("c.py", "NC201"),
    ]
    assert "internal error" not in err and "Traceback" not in err
