"""jaxtyping annotations as namedcheck types: the dimension-string parser (engine/jaxtyping.py), the corpus of
jaxtyping-annotated programs (tests/jaxtyping_corpus/) checked statically and run under jaxtyping + beartype with
the same verdicts, `@checked` on jaxtyping annotations, and the mypy plugin on a jaxtyping-annotated file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from namedcheck.analyzer.check import analyse_for_test
from namedcheck.engine.errors import RuleError
from namedcheck.engine.jaxtyping import ANONYMOUS, annotation, parse_dims
from tests.test_cases import expectations

CORPUS = Path(__file__).parent / "jaxtyping_corpus"
PROGRAMS = sorted(CORPUS.glob("*.py"))


# ---- the dimension-string parser ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "shape", "variadic"),
    [
        ("", (), None),
        ("b d", ("b", "d"), None),
        ("3 4", (3, 4), None),
        ("  batch   256 ", ("batch", 256), None),
        ("*batch d", (..., "d"), "batch"),
        ("... d", (..., "d"), ANONYMOUS),
        ("n ...", ("n", ...), ANONYMOUS),
        ("*#batch d", (..., "d"), ANONYMOUS),  # a broadcastable run: not bound
        ("#n d", (None, "d"), None),  # broadcastable: size 1 also accepted, not checked
        ("#4", (None,), None),
        ("_ d", (None, "d"), None),  # anonymous
        ("_name d", (None, "d"), None),
        ("?leaf", (None,), None),  # tree-path dependent: not checked
        ("rows=3 cols=4", (3, 4), None),  # `name=` is a label
        ("n+1", ("n+1",), None),
        ("2*n d//h", ("2*n", "d//h"), None),
        ("n-1", ("n-1",), None),
        ("n/2", (None,), None),  # not a size expression namedcheck computes with
        ("min(a,b)", (None,), None),
        ("self.d", (None,), None),
    ],
)
def test_dimension_strings(text, shape, variadic):
    assert parse_dims(text) == (shape, variadic)


@pytest.mark.parametrize(
    ("text", "code", "fragment"),
    [
        ("a,b", "NC101", "holds a comma"),
        ("n#", "NC102", "'#' at the end"),
        ("... ...", "NC104", "More than one run"),
        ("*a ... d", "NC104", "More than one run"),
        ("*a *b", "NC104", "More than one run"),
        ("**a", "NC102", "repeats '*'"),
        ("##a", "NC102", "repeats '#'"),
        ("__a", "NC102", "repeats '_'"),
        ("*4", "NC102", "fixed size 4"),
        ("_4", "NC102", "fixed size 4"),
        ("?4", "NC102", "fixed size 4"),
        ("#_", "NC102", "both anonymous"),
        ("a...", "NC102", "stands alone"),
        ("*n+1", "NC102", "size expression"),
        ("-1", "NC102", "negative size"),
        ("x" * 5000, "NC102", "at most"),
    ],
)
def test_malformed_dimension_strings(text, code, fragment):
    with pytest.raises(RuleError) as e:
        parse_dims(text)
    assert e.value.code == code
    assert fragment in e.value.message


def test_a_shape_that_is_no_string_is_nc101():
    with pytest.raises(RuleError) as e:
        parse_dims((3, 4))
    assert e.value.code == "NC101" and "string of dimensions" in e.value.message


def test_dtype_classes():
    assert repr(annotation("Float32", "b 3")) == "f32[('b', 3)]"
    assert repr(annotation("Float", "n")) == "Float[('n',)]"
    assert repr(annotation("Bool", "")) == "bool_[()]"
    assert annotation("Shaped", "n").dtype_code is None and annotation("Shaped", "n").family is None
    assert annotation("Key", "").dtype_code is None  # namedcheck leaves key dtypes unknown
    assert annotation("UInt", "n").family == "UInt"
    assert annotation("Inexact", "n").family == "Inexact"
    assert annotation("Float8e4m3fn", "n").dtype_code is None
    assert annotation("PyTree", "n") is None


def test_namedchecks_own_heads_read_a_dimension_string_as_jaxtyping_does():
    from namedcheck import Array, Float, f32

    assert f32[Array, "5 7"] == f32[(5, 7)]
    assert f32[Array, "b 784"] == f32[("b", 784)]
    assert Float[Array, "*batch d"] == Float[("*batch", "d")]
    assert f32[Array, ""] == f32[()]


def _check(source: str) -> set[tuple[int, str]]:
    diags, _ = analyse_for_test(textwrap.dedent(source), "t.py")
    return {(d.line, d.code) for d in diags}


def test_every_import_spelling_is_read():
    src = """\
    import jax.numpy as jnp
    import jaxtyping
    import jaxtyping as jt
    from beartype import beartype
    from jaxtyping import Array, Float32 as F32

    @jt.jaxtyped(typechecker=beartype)
    def a(x: F32[Array, "3"]) -> None: ...
    @jt.jaxtyped(typechecker=beartype)
    def b(x: jt.Float[jt.Array, "3"]) -> None: ...
    @jaxtyping.jaxtyped(typechecker=beartype)
    def c(x: jaxtyping.Shaped[jaxtyping.Array, "3"]) -> None: ...

    a(jnp.ones(4))
    b(jnp.ones(4))
    c(jnp.ones(4))
    """
    assert _check(src) == {(14, "NC302"), (15, "NC302"), (16, "NC302")}


def test_type_aliases_of_jaxtyping_annotations_are_read():
    src = """\
    import jax.numpy as jnp
    import jaxtyping as jt

    from beartype import beartype

    Vector = jt.Float[jt.Array, "d"]
    Matrix = jt.Float[jt.Array, "d d"]

    @jt.jaxtyped(typechecker=beartype)
    def quadratic(a: Matrix, x: Vector) -> jt.Float[jt.Array, ""]:
        return x @ a @ x

    q = quadratic(jnp.eye(3), jnp.ones(4))
    """
    assert _check(src) == {(13, "NC303")}


def test_keys():
    src = """\
    import jax
    from beartype import beartype as check
    from jaxtyping import Array, Float, Key, PRNGKeyArray

    @check
    def sample(key: Key[Array, ""], n: int) -> Float[Array, "n"]:
        return jax.random.normal(key, (n,))

    @check
    def sample2(key: PRNGKeyArray) -> Float[Array, ""]:
        return jax.random.normal(key, ())

    a = sample(jax.random.key(0), 3)
    b = sample(jax.random.split(jax.random.key(0))[0], 3)
    c = sample2(jax.random.key(1))
    d = sample(jax.random.PRNGKey(0), 3)
    """
    assert _check(src) == {(16, "NC302")}  # raw uint32 key data is no scalar key: jaxtyping raises there too


def test_annotations_jaxtyping_does_not_check_are_documentation():
    """Where nothing checks them when the program runs (no `@jaxtyped` / `@beartype` / import hook, a local's
    annotation), jaxtyping annotations are often out of date: correct code is never an error because of one."""
    src = """\
    import jax.numpy as jnp
    from jaxtyping import Array, Float, Int

    def patches(x: Float[Array, "batch seq dim"]) -> Array:
        return jnp.transpose(x, (0, 2, 3, 1))  # the annotation is stale: x is 4-D

    def first(n: Int[Array, ""]) -> Array:
        return n[0]

    def loose(t: Float[Array, ...]) -> Float[Array, ...]:
        y: Float[Array, "a"] = jnp.ones((2, 3))
        return t + y

    first(jnp.array([10]))
    patches(jnp.ones((2, 3, 4, 5)))
    """
    assert _check(src) == set()


def test_a_name_float_not_from_jaxtyping_is_not_read():
    src = """\
    import jax.numpy as jnp
    from mylib import Float, Array

    def a(x: Float[Array, "3"]) -> None: ...

    a(jnp.ones(4))
    """
    assert _check(src) == set()


def test_malformed_jaxtyping_annotations_are_reported_where_written():
    src = """\
    from jaxtyping import Array, Float

    def a(x: Float[Array, "a,b"]) -> None: ...
    def b(x: Float[Array, "*a *b"]) -> None: ...
    def c(x: Float[Array, "a", "b"]) -> None: ...
    def d(x: Float[Array, f"{a} b"]) -> None: ...
    def e(x: Float[Array]) -> None: ...
    def f(x: Float[Array, 3]) -> None: ...
    def g(x: Float[Array, *dims]) -> None: ...
    """
    assert _check(src) == {(3, "NC101"), (4, "NC104"), (5, "NC101"), (7, "NC101"), (8, "NC101"), (9, "NC101")}


def test_run_time_checker_decorators_keep_the_function():
    """`@beartype`, typeguard's `@typechecked` and `@jaxtyped(...)` leave the function as written: its calls are
    checked against its annotations, and a call from module level runs its body with the call's sizes."""
    src = """\
    import jax.numpy as jnp
    from beartype import beartype
    from typeguard import typechecked
    from jaxtyping import Array, Float, jaxtyped

    @beartype
    def a(x: Float[Array, "3"]) -> None: ...
    @typechecked
    def b(x: Float[Array, "3"]) -> None: ...
    @jaxtyped(typechecker=beartype)
    def c(x: Float[Array, "n"], y: Float[Array, "m"]) -> Float[Array, "n"]:
        return x + y

    a(jnp.ones(4))
    b(jnp.ones(4))
    c(jnp.ones(4), jnp.ones(5))
    """
    assert _check(src) == {(14, "NC302"), (15, "NC302"), (12, "NC201")}


def test_anonymous_dimensions_are_not_bound_across_arguments():
    src = """\
    import jax.numpy as jnp
    from jaxtyping import Array, Float

    def f(x: Float[Array, "... _ #n"], y: Float[Array, "... _ #n"]) -> Float[Array, "..."]:
        return x

    r = f(jnp.ones((2, 3, 4)), jnp.ones((5, 6, 1)))
    """
    assert _check(src) == set()


# ---- the corpus -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_corpus_statically(program: Path) -> None:
    source = program.read_text(encoding="utf-8")
    expected, _ = expectations(source)
    diags, _ = analyse_for_test(source, program.name)
    got = {(d.line, d.code) for d in diags}
    assert got == expected, [f"{d.line}: {d.code} {d.message}" for d in diags]


_RUN_ALL = """
import json, runpy, sys
out = {}
for path in sys.argv[1:]:
    try:
        runpy.run_path(path, run_name="__main__")
        out[path] = None
    except Exception as e:
        out[path] = [type(e).__module__.split(".")[0], type(e).__name__, str(e)[:300]]
print(json.dumps(out))
"""


@pytest.mark.slow  # starts JAX and runs every corpus program (about 15 s)
def test_corpus_verdicts_agree_with_jaxtyping_and_beartype_at_run_time() -> None:
    """Each program runs under `jaxtyped(typechecker=beartype)` with real arrays on CPU: it raises exactly when
    namedcheck reports something statically. An annotation's violation (NC3xx) is jaxtyping's TypeCheckError; an
    op's (NC2xx) is JAX's own error in the body."""
    pytest.importorskip("jaxtyping")
    pytest.importorskip("beartype")
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(
        [sys.executable, "-c", _RUN_ALL, *map(str, PROGRAMS)], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr
    verdicts = json.loads(done.stdout.splitlines()[-1])
    assert len(verdicts) == len(PROGRAMS) >= 19
    for program in PROGRAMS:
        codes = {c for _, c in expectations(program.read_text(encoding="utf-8"))[0]}
        raised = verdicts[str(program)]
        if not codes:
            assert raised is None, (program.name, raised)
            continue
        assert raised is not None, f"{program.name}: namedcheck reports {codes}, the program runs"
        module, name, _ = raised
        if all(c.startswith("NC3") for c in codes):
            assert (module, name) == ("jaxtyping", "TypeCheckError"), (program.name, raised)
        else:
            assert module == "builtins" and name in ("TypeError", "ValueError"), (program.name, raised)


# ---- @checked -------------------------------------------------------------------------------------------------
_CHECKED = """
from jaxtyping import Array, Float, Int

from namedcheck import checked


@checked
def dense(w: Float[Array, "o i"], x: Float[Array, "*b i"]) -> Float[Array, "*b o"]:
    return x @ w.T


@checked
def pad(x: Float[Array, "n"]) -> Float[Array, "n+1"]:
    return x


@checked
def labels(y: Int[Array, "n"]) -> None:
    return None
"""


def test_checked_reads_jaxtyping_annotations():
    jnp = pytest.importorskip("jax.numpy")
    pytest.importorskip("jaxtyping")
    from namedcheck.errors import ShapeError

    ns: dict[str, object] = {}
    exec(compile(_CHECKED, "checked_jaxtyping.py", "exec"), ns)  # annotations as objects (no `from __future__`)
    dense, pad, labels = ns["dense"], ns["pad"], ns["labels"]
    assert dense(jnp.ones((3, 4)), jnp.ones((2, 5, 4))).shape == (2, 5, 3)  # type: ignore[operator]
    with pytest.raises(ShapeError) as e:
        dense(jnp.ones((3, 4)), jnp.ones((2, 5)))  # type: ignore[operator]
    assert e.value.code == "NC303"
    with pytest.raises(ShapeError) as e:
        pad(jnp.ones(3))  # type: ignore[operator]
    assert e.value.code == "NC301"
    with pytest.raises(ShapeError) as e:
        labels(jnp.ones(3))  # type: ignore[operator]
    assert e.value.code == "NC304"
    labels(jnp.arange(3))  # type: ignore[operator]


# ---- the mypy plugin ------------------------------------------------------------------------------------------
@pytest.mark.slow  # runs mypy
def test_mypy_plugin_reports_on_a_jaxtyping_file(tmp_path: Path) -> None:
    mypy_api = pytest.importorskip("mypy.api")
    program = tmp_path / "prog.py"
    program.write_text((CORPUS / "mlp_transposed_weight.py").read_text(encoding="utf-8"), encoding="utf-8")
    cfg = tmp_path / "mypy.ini"
    cfg.write_text(
        "[mypy]\nshow_column_numbers = True\nplugins = namedcheck_mypy\n[mypy-namedcheck.*]\nfollow_imports = silent\n"
    )
    out, err, _ = mypy_api.run(
        ["--config-file", str(cfg), "--cache-dir", str(tmp_path / "cache"), "--no-error-summary", str(program)]
    )
    assert "Traceback" not in out + err and "INTERNAL ERROR" not in out + err, out + err
    errors = [line for line in out.splitlines() if ": error: " in line]
    assert len(errors) == 1 and errors[0].startswith(f"{program}:15:5: error: Symbol 'out' of `dense`"), out
    assert errors[0].endswith("[NC303]")


# ---- the editor ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("program", PROGRAMS[:6], ids=lambda p: p.name)
def test_editor_reports_what_the_cli_reports(program: Path) -> None:
    from namedcheck.analyzer.check import check_source
    from namedcheck.analyzer.incremental import DocumentAnalyser

    src = program.read_text(encoding="utf-8")
    assert DocumentAnalyser(str(program)).analyse(src).diagnostics == check_source(src, str(program))


def test_editor_hover_shows_a_jaxtyping_parameter_type() -> None:
    from namedcheck.analyzer.incremental import DocumentAnalyser, format_value, values_at

    src = 'from beartype import beartype\nfrom jaxtyping import Array, Float\n\n\n@beartype\ndef f(x: Float[Array, "*b n 3"]):\n    y = x\n'
    found = values_at(DocumentAnalyser("hover.py").analyse(src), 7, 8)
    assert found is not None
    assert [format_value(v) for v in found[1]] == ["Float[Array, Dims('*b', 'n', 3)]"]
