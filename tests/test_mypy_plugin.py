"""The mypy plugin: the same diagnostics as the CLI on every corpus case (under mypy's default
configuration, which checks no unannotated function: no hook fires there), annotation types mypy
compares, reveal_type, per-code error codes and hints, no false positives on correct code, and no
effect on files without namedcheck."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

mypy_api = pytest.importorskip("mypy.api")

from namedcheck.analyzer.check import check_source  # noqa: E402

pytestmark = pytest.mark.slow  # runs mypy over the corpus

ROOT = Path(__file__).resolve().parent.parent
# nc002_suppressions.py: mypy judges its own `# type: ignore` comments (test_mypy_judges_type_ignores)
CASES = sorted(
    p for p in (ROOT / "tests" / "cases").glob("*.py") if p.name not in ("nc001_syntax.py", "nc002_suppressions.py")
)
CONFIG = """\
[mypy]
show_column_numbers = True
{plugins}
[mypy-namedcheck.*]
follow_imports = silent
"""
DIAGNOSTIC = re.compile(r"^(?P<path>.+?):(?P<line>\d+):\d+: error: .*  \[(?P<code>NC\d{3})\]$")


@pytest.fixture(scope="module")
def mypy_run(tmp_path_factory):
    cache = tmp_path_factory.mktemp("mypy_cache")

    def run(files: list[Path], plugin: bool = True) -> str:
        cfg = cache / ("with.ini" if plugin else "without.ini")
        cfg.write_text(CONFIG.format(plugins="plugins = namedcheck_mypy" if plugin else ""))
        out, err, _ = mypy_api.run(
            ["--config-file", str(cfg), "--cache-dir", str(cache / cfg.stem), "--no-error-summary", *map(str, files)]
        )
        assert "Traceback" not in out + err and "INTERNAL ERROR" not in out + err, out + err
        return out

    return run


def _by_file(out: str) -> dict[str, set[tuple[int, str]]]:
    found: dict[str, set[tuple[int, str]]] = {}
    for line in out.splitlines():
        m = DIAGNOSTIC.match(line)
        if m:
            found.setdefault(str(Path(m["path"]).resolve()), set()).add((int(m["line"]), m["code"]))
    return found


def test_plugin_reports_what_the_cli_reports_on_every_case(mypy_run):
    out = mypy_run(CASES)
    found = _by_file(out)
    assert found, out
    for case in CASES:
        diags = check_source(case.read_text(), str(case))
        want = {(d.line, d.code) for d in diags if d.severity == "error"}
        assert found.get(str(case.resolve()), set()) == want, case.name
        # notes (NC003) only where the file imports namedcheck
        shown = re.search(r"^\s*(?:from|import)\s+namedcheck\b", case.read_text(), re.MULTILINE) is not None
        for d in diags:  # notes (NC003, `reveal_type`) are mypy notes there; elsewhere mypy's own reveal_type
            if d.severity == "note":
                assert (f"{case.name}:{d.line}:{d.column}: note: {d.message}" in out) == shown, case.name


PLUGIN_ONLY = """\
import jax
import jax.numpy as jnp
from namedcheck import Array, f32


def f(x: f32[(5, 7)], y: f32[(7, 3)]) -> f32[(5, 3)]:
    reveal_type(x)
    reveal_type(x @ y)
    w: f32[(5, 4)] = x  # declared against declared: mypy's own check
    return x @ y


def g(a: f32[('B', 7)], b: Array[(7,)]) -> f32[('B',)]:
    return jnp.sum(a, axis=1) + jnp.sum(b)


def per_row(v: f32[(7,), {'batch': 'N'}]) -> f32[(), {'batch': 'N'}]:
    return jnp.sum(v)


def callers(x: f32[(5, 7)], e: f32[(7,), {'batch': 3, 'extra': 2}]) -> None:
    reveal_type(g(x, x[0]))          # B unifies to 5
    h = per_row(e)                   # 'extra' is lifted through the call
    z = jnp.ones((2,))
    z = jnp.ones((3, 4))             # re-binding with another shape is legal
    items = [jnp.ones(2), jnp.ones(3)]
    bad = x + jnp.ones((4,))  # type: ignore[namedcheck]
    worse = x + jnp.ones((6,))
    batched = jax.vmap(g, in_axes=(0, None))(jnp.ones((2, 5, 7)), jnp.ones(7))
    k1, k2 = jax.random.split(jax.random.PRNGKey(0))   # statements keep mypy's own method types
    for row in x:
        total = row.sum()
    reveal_type(jax.jit(f)(x, jnp.ones((7, 3))))
    also_bad = x + jnp.ones((4,))  # type: ignore[NC201]
    prod = x @ jnp.ones((7, 3))
    reveal_type(prod)
    wrong_family = x + jnp.ones((3,))  # type: ignore[NC202]
"""


def _messages(out: str, path: Path) -> list[tuple[int, str]]:
    rows = []
    for line in out.splitlines():
        m = re.match(rf"^{re.escape(str(path))}:(\d+):\d+: (.*)$", line)
        if m:
            rows.append((int(m.group(1)), m.group(2)))
    return rows


def test_plugin_only_behaviour(mypy_run, tmp_path):
    path = tmp_path / "plugin_only.py"
    path.write_text(PLUGIN_ONLY)
    rows = _messages(mypy_run([path]), path)
    text = "\n".join(f"{n}: {m}" for n, m in rows)
    assert (7, "note: Revealed type is \"namedcheck.shaped.Shaped[Literal['f32[(5, 7)]']]\"") in rows, text
    value = "note: Revealed type is \"namedcheck.shaped.ShapedValue[Literal['{}'] | Any]\""
    assert (8, value.format("f32[(5, 3)]")) in rows, text
    assert any(n == 9 and "Incompatible types in assignment" in m and "f32[(5, 4)]" in m for n, m in rows), text
    assert any(n == 9 and "[NC301]" in m for n, m in rows), text
    assert (22, value.format("f32[(5,)]")) in rows, text
    assert any(n == 28 and m.startswith("error: Cannot broadcast") and m.endswith("  [NC201]") for n, m in rows), text
    assert any(n == 28 and m.startswith("note: hint: ") for n, m in rows), text  # the hint, as a note
    assert (33, value.format("f32[(5, 3)]")) in rows, text
    assert (36, value.format("f32[(5, 3)]")) in rows, text  # a variable keeps the inferred shape
    assert any(n == 37 and "[NC201]" in m for n, m in rows), text  # ignore[NC202] does not silence NC201
    errors = [(n, m) for n, m in rows if "error" in m]
    # nothing on correct lines, nothing on the lines ignored with [namedcheck] (27) and [NC201] (34)
    assert {n for n, _ in errors} == {9, 28, 37}, text


def test_files_without_namedcheck_are_untouched(mypy_run, tmp_path):
    path = tmp_path / "plain_jax.py"
    path.write_text(
        textwrap.dedent("""\
        import jax
        import jax.numpy as jnp
        from jax import lax


        def loss(w, x):
            h = jnp.dot(x, w)
            return jnp.mean(jax.nn.relu(h))


        def step(w: jax.Array, x: jax.Array) -> jax.Array:
            g = jax.grad(loss)(w, x)
            s: int = lax.psum(1, 'i')
            reveal_type(jnp.ones((3, 4)))
            return w - 0.1 * g
        """)
    )
    with_plugin, without = mypy_run([path]), mypy_run([path], plugin=False)
    assert with_plugin == without
    assert "Revealed type" in with_plugin


def test_malformed_annotations_never_crash_mypy(mypy_run, tmp_path):
    path = tmp_path / "malformed.py"
    path.write_text(
        textwrap.dedent("""\
        from namedcheck import f32, i32

        def a(x: f32[(-1, 2)]) -> None: ...
        def b(x: f32[(2,), {'k': 1, 'k': 2}]) -> None: ...
        def c(x: f32[(..., 2, ...)]) -> None: ...
        def d(x: i32[(2,), {3: 4}]) -> None: ...
        def e(x: f32[[1, 2]]) -> None: ...
        """)
    )
    out = mypy_run([path])
    codes = {m["code"] for m in map(DIAGNOSTIC.match, out.splitlines()) if m}
    assert codes and all(c.startswith("NC1") for c in codes), out


SHARDED = """\
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
from namedcheck import Array, Dims, f32

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)


def scale(x: f32[Array, Dims('8@data', 4)]) -> f32[Array, Dims('8@data', 4)]:
    reveal_type(x)
    return x * 2


a = jax.device_put(jnp.ones((8, 4)), P('data'))
reveal_type(scale(a))
scale(jnp.ones((8, 4)))
b: f32[('8@data', '4@model')] = jax.sharding.reshard(a, P('data', 'model'))
reveal_type(b)
"""


def test_plugin_reads_and_reveals_stated_shardings(mypy_run, tmp_path):
    path = tmp_path / "sharded.py"
    path.write_text(SHARDED)
    rows = _messages(mypy_run([path]), path)
    text = "\n".join(f"{n}: {m}" for n, m in rows)
    assert (11, "note: Revealed type is \"namedcheck.shaped.Shaped[Literal['f32[(8@data, 4)]']]\"") in rows, text
    assert (
        16,
        "note: Revealed type is \"namedcheck.shaped.ShapedValue[Literal['f32[(8@data, 4)]'] | Any]\"",
    ) in rows, text
    assert (19, "note: Revealed type is \"namedcheck.shaped.Shaped[Literal['f32[(8@data, 4@model)]']]\"") in rows, text
    errors = [(n, m) for n, m in rows if "error" in m]
    assert len(errors) == 1 and errors[0][0] == 17 and errors[0][1].endswith("[NC811]"), text


SUPPRESSED = """\
import jax.numpy as jnp

a = jnp.ones((2, 3)) + jnp.ones((4, 5))  # type: ignore[NC201]
b = jnp.ones((2, 3))  # type: ignore[NC201]
c = jnp.ones((2, 3)) + jnp.ones((4, 5))  # noqa: NC201
d = jnp.ones((2, 3))  # noqa: NC201
"""


def test_mypy_judges_type_ignores(tmp_path):
    """Under the plugin mypy honours `# type: ignore[NC201]` and, with warn_unused_ignores, reports the one
    that silences nothing (line 4), not the used one (line 3); `# noqa` is the analysis's: silenced on line
    5, NC002 on line 6."""
    path = tmp_path / "suppressed.py"
    path.write_text(SUPPRESSED)
    cfg = tmp_path / "mypy.ini"
    cfg.write_text(CONFIG.format(plugins="plugins = namedcheck_mypy\nwarn_unused_ignores = True"))
    out, err, _ = mypy_api.run(["--config-file", str(cfg), "--cache-dir", str(tmp_path / "c"), str(path)])
    rows = re.findall(rf"^{re.escape(str(path))}:(\d+):(?:\d+:)? error: .*\[([\w-]+)\]$", out, re.MULTILINE)
    assert rows == [("4", "unused-ignore"), ("6", "NC002")], out + err
