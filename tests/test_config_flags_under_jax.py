"""JAX configuration flags read where the program sets them (tests/cases/config_*.py, analyzer/jaxconfig.py),
under the installed JAX (8 CPU devices): each program runs statement by statement, and JAX raises exactly on
the lines the checker reports (`# expect:`), NC6xx included; the flag reaches call analyses as part of their
memo key."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("jax")

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402
from tests.test_cases import expectations  # noqa: E402
from tests.test_sharding_types_under_jax import run_statements  # noqa: E402

CASES = sorted((Path(__file__).parent / "cases").glob("config_*.py"))


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_checker_reports_exactly_where_jax_raises(case: Path) -> None:
    source = case.read_text(encoding="utf-8")
    diags, _ = analyse_for_test(source, case.name)
    reported = {d.line for d in diags}
    errors, _ = run_statements(case)
    expected = {line for line, _ in expectations(source)[0]}
    assert set(errors) == expected, f"{case.name}: JAX raised at {errors}"
    assert reported == expected


def test_flags_are_part_of_the_environment_and_the_memo_key() -> None:
    from namedcheck.analyzer import jaxconfig
    from namedcheck.analyzer.memo import memo_key
    from namedcheck.engine.maps import AUTO_PCAST, REMOVE_SIZE_ONE, AxisEnv

    env = AxisEnv()
    on = jaxconfig.applied(env, ((REMOVE_SIZE_ONE, True),))
    unknown = jaxconfig.applied(env, ((REMOVE_SIZE_ONE, None),))
    assert (env.flag(REMOVE_SIZE_ONE), on.flag(REMOVE_SIZE_ONE), unknown.flag(REMOVE_SIZE_ONE)) == (False, True, None)
    assert env.flag(AUTO_PCAST) is True and jaxconfig.applied(on, ((REMOVE_SIZE_ONE, False),)) == env
    keys = {memo_key((1, e)) for e in (env, on, unknown)}
    assert len(keys) == 3


@pytest.mark.parametrize(
    "text, flags",
    [
        ("import jax\njax.config.update('jax_remove_size_one_mesh_axis_from_type', True)\n", (True,)),
        ("import jax\njax.config.update('jax_auto_pcast', False)\n", ()),
        ("import jax\ndef f(v):\n    jax.config.update('jax_remove_size_one_mesh_axis_from_type', v)\n", (None,)),
        ("import jax\nfor k, v in d.items():\n    jax.config.update(k, v)\n", (None,)),
        ("import jax\nx = 1\n", ()),
        ("from jax._src import config\n@config.remove_size_one_mesh_axis_from_type(True)\ndef f(): pass\n", ()),
        (
            "from jax._src import test_util as jtu\n@jtu.with_config(jax_remove_size_one_mesh_axis_from_type=True)\n"
            "class T: pass\n",
            (None,),
        ),
        ("import os\nos.environ['JAX_REMOVE_SIZE_ONE_MESH_AXIS_FROM_TYPE'] = '1'\n", (None,)),
    ],
)
def test_module_wide_setting(text: str, flags: tuple[bool | None, ...]) -> None:
    import libcst as cst

    from namedcheck.analyzer.jaxconfig import module_flags
    from namedcheck.engine.maps import REMOVE_SIZE_ONE

    got = dict(module_flags(cst.parse_module(text), text))
    assert tuple(v for k, v in got.items() if k == REMOVE_SIZE_ONE) == flags


@pytest.mark.parametrize(
    "text, flags",
    [
        ("import jax\njax.config.update('jax_enable_x64', True)\n", (True,)),
        ("import jax\nx = 1\n", ()),
        ("import jax\nwith jax.experimental.enable_x64():\n    x = 1\n", (None,)),
        ("import os\nos.environ['JAX_ENABLE_X64'] = '1'\n", (None,)),
        ("import jax\ndef f():\n    jax.config.update('jax_enable_x64', True)\n", (None,)),
    ],
)
def test_x64_module_setting(text: str, flags: tuple[bool | None, ...]) -> None:
    """`jax_enable_x64` (64-bit defaults, analyzer/widths.py) is read as the other flags are."""
    import libcst as cst

    from namedcheck.analyzer.jaxconfig import module_flags
    from namedcheck.engine.maps import X64

    got = dict(module_flags(cst.parse_module(text), text))
    assert tuple(v for k, v in got.items() if k == X64) == flags


HELPER = """\
import jax


def setup(drop_size_one):
    jax.config.update('jax_remove_size_one_mesh_axis_from_type', drop_size_one)
"""
MAIN = """\
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P

from helper import setup

mesh = jax.make_mesh((8, 1), ('x', 'y'), axis_types=(AxisType.Auto,) * 2)
setup(True)
out = jax.shard_map(lambda x: x + lax.axis_index('y'), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones((8, 4)))
"""


def test_a_flag_set_in_a_helper_of_another_module_is_not_known_after_the_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`setup(True)` in another module sets the flag: after the call the checker does not know it (silent where
    JAX accepts); the same program without the call is reported (JAX's default), and JAX raises there."""
    import json
    import os
    import subprocess
    import sys

    from namedcheck.cli.main import main

    (tmp_path / "helper.py").write_text(HELPER)
    (tmp_path / "main.py").write_text(MAIN)
    (tmp_path / "control.py").write_text(MAIN.replace("setup(True)\n", ""))
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    main(["check", ".", "--no-cache", "--format", "json"])
    found = [(os.path.normpath(d["path"]), d["code"], d["line"]) for d in json.loads(capsys.readouterr().out)]
    assert found == [("control.py", "NC601", 10)]
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8", "JAX_PLATFORMS": "cpu"}
    run = subprocess.run([sys.executable, "main.py"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    run = subprocess.run([sys.executable, "control.py"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert run.returncode != 0 and "out_specs" in run.stderr


_X64_TEST = """import jax.numpy as jnp
import numpy as np


def test_widths():
    z = jnp.zeros(2)
    i = jnp.arange(3)
    h = np.zeros(2)
    assert (z.dtype.name, i.dtype.name, h.dtype.name) == WIDTHS
"""
_X64_CONFTESTS = [
    ('import jax\n\njax.config.update("jax_enable_x64", True)\n', ("f64", "i64")),
    ("import jax\n", ("f32", "i32")),
    (  # numpyro's: set by a hook when the environment asks for it: not known
        'import os\n\nimport jax\n\n\ndef pytest_runtest_setup(item):\n    if "JAX_ENABLE_X64" in os.environ:\n'
        '        jax.config.update("jax_enable_x64", True)\n',
        (None, None),
    ),
]


@pytest.mark.parametrize("conftest, widths", _X64_CONFTESTS, ids=["literal", "none", "in-a-hook"])
def test_a_conftest_sets_x64_for_the_tests_below_it(
    conftest: str, widths: tuple[str | None, str | None], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """`jax.config.update("jax_enable_x64", True)` at a conftest's module level: pytest runs it before the test
    modules below it, whose JAX defaults are 64-bit then (diffrax, lineax, optimistix, gpjax); one in a hook or
    a fixture leaves the width unknown. Checked against pytest running the same tests."""
    import json
    import subprocess
    import sys

    from namedcheck.cli.main import main

    names = {"f64": "float64", "i64": "int64", "f32": "float32", "i32": "int32"}
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NAMEDCHECK_NO_CACHE", "1")
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text(conftest)
    expected = tuple(names.get(w or "", "float32" if i == 0 else "int32") for i, w in enumerate(widths))
    (tmp_path / "tests" / "test_w.py").write_text(_X64_TEST.replace("WIDTHS", repr((*expected, "float64"))))
    main(["types", "--format", "json", "tests/test_w.py"])
    doc = json.loads(capsys.readouterr().out)
    got = {b["name"]: {t["type"] for t in b["types"]} for b in doc["bindings"]}
    assert got["z"] == {f"{widths[0]}[Array, Dims(2)]" if widths[0] else "Shaped[Array, Dims(2)]"}
    assert got["i"] == {f"{widths[1]}[Array, Dims(3)]" if widths[1] else "Shaped[Array, Dims(3)]"}
    assert got["h"] == {"f64[Array, Dims(2)]"}  # numpy's default, whatever JAX's
    env = {k: v for k, v in __import__("os").environ.items() if k != "JAX_ENABLE_X64"}
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=tmp_path,
        env={**env, "JAX_PLATFORMS": "cpu"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stdout[-2000:]


def test_a_library_function_knows_the_width_its_caller_runs_under(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """The library's own code runs under the tests' x64 and under its users' default: analysed on its own it does
    not know the width (unknown, not float32); analysed at a test's call it has the test's (float64)."""
    import json

    from namedcheck.cli.main import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NAMEDCHECK_NO_CACHE", "1")
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "lib.py").write_text(
        "import jax.numpy as jnp\n\n\ndef grid(n):\n    ts = jnp.linspace(0.0, 1.0, n)\n    return ts\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text(_X64_CONFTESTS[0][0])
    (tmp_path / "tests" / "test_lib.py").write_text(
        "from pkg.lib import grid\n\n\ndef test_grid():\n    assert grid(3).dtype.name == 'float64'\n"
    )
    main(["types", "--format", "json", "tests/test_lib.py", "pkg/lib.py"])
    doc = json.loads(capsys.readouterr().out)
    got = {(b["file"], b["name"]): {t["type"] for t in b["types"]} for b in doc["bindings"]}
    assert got[("pkg/lib.py", "ts")] == {"Shaped[Array, Dims('n')]", "f64[Array, Dims(3)]"}


def test_a_test_module_setting_x64_at_its_top_sets_it_for_the_whole_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """JAX's configuration is global and pytest imports every collected module before the first test: a module
    that sets x64 at its top level (jax_cosmo's `test_spline.py`) widens the other modules' arrays when both are
    collected, not when one runs alone. Their width is not known; the setting module's own is."""
    import json
    import os
    import subprocess
    import sys

    from namedcheck.cli.main import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NAMEDCHECK_NO_CACHE", "1")
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a_sets.py").write_text(
        "import jax\nimport jax.numpy as jnp\n\njax.config.update('jax_enable_x64', True)\n\n\n"
        "def test_a():\n    a = jnp.zeros(2)\n    assert a.dtype.name == 'float64'\n"
    )
    (tmp_path / "tests" / "test_b_reads.py").write_text(
        "import os\n\nimport jax.numpy as jnp\n\n\ndef test_b():\n    b = jnp.zeros(2)\n"
        "    assert b.dtype.name == os.environ['EXPECTED']\n"
    )
    main(["types", "--format", "json", "tests"])
    doc = json.loads(capsys.readouterr().out)
    got = {b["name"]: {t["type"] for t in b["types"]} for b in doc["bindings"]}
    assert got["a"] == {"f64[Array, Dims(2)]"} and got["b"] == {"Shaped[Array, Dims(2)]"}
    env = {k: v for k, v in os.environ.items() if k != "JAX_ENABLE_X64"}
    for target, expected in (("tests", "float64"), ("tests/test_b_reads.py", "float32")):
        ran = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", target],
            cwd=tmp_path,
            env={**env, "JAX_PLATFORMS": "cpu", "EXPECTED": expected},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert ran.returncode == 0, ran.stdout[-2000:]
