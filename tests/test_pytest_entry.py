"""pytest as an entry point (analyzer/pytest_entry.py): a test module's tests are analysed with the values
`@pytest.mark.parametrize` and the fixtures (the module's and `conftest.py`'s) give them. The verdicts are
checked by running the same files under pytest and JAX: the wrong test fails at the reported line, the right
ones pass."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from namedcheck.cli.main import main

CONFTEST = """import jax
import pytest


@pytest.fixture
def key():
    return jax.random.PRNGKey(0)


@pytest.fixture
def batch(key):
    yield jax.random.normal(key, (8, 3))


@pytest.fixture(params=[1, 2])
def width(request):
    return request.param
"""

RIGHT = """import jax.numpy as jnp
import pytest


@pytest.mark.parametrize("n", [2, 5])
def test_dense(n, batch):
    w = jnp.ones((3, n))
    y = batch @ w
    assert y.shape == (8, n)


@pytest.mark.parametrize("shape,axis", [((4, 6), 0), pytest.param((3,), 1, marks=pytest.mark.xfail)])
def test_sum(shape, axis):
    x = jnp.zeros(shape)
    s = x.sum(axis=axis)


@pytest.mark.parametrize("shape", [(4, 6), (3,)])
def test_skip(shape):
    if len(shape) < 2:
        pytest.skip("two dimensions only")
    x = jnp.zeros(shape)
    s = x.sum(axis=1)


@pytest.mark.parametrize("a", [1, 2])
@pytest.mark.parametrize("b", [3])
def test_stacked(a, b):
    x = jnp.zeros((a, b))


def test_width(width):
    x = jnp.zeros((width, 3)) @ jnp.ones((3, 2))


@pytest.mark.xfail
@pytest.mark.parametrize("n", [4])
def test_expected_to_fail(n, batch):
    batch @ jnp.ones((n, 2))


class TestThing:
    @pytest.mark.parametrize("m", [7])
    def test_square(self, m, key):
        z = jnp.zeros((m, m)) @ jnp.ones((m, 1))
"""

WRONG = """import jax.numpy as jnp
import pytest


@pytest.mark.parametrize("n", [2, 5])
def test_dense(n, batch):
    w = jnp.ones((4, n))
    y = batch @ w
"""


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NAMEDCHECK_NO_CACHE", "1")
    (tmp_path / "pyproject.toml").write_text("")
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "conftest.py").write_text(CONFTEST)
    (tests / "test_right.py").write_text(RIGHT)
    (tests / "test_wrong.py").write_text(WRONG)
    return tmp_path


def test_the_wrong_test_is_reported_at_its_line_and_the_right_ones_are_silent(suite: Path, capsys) -> None:
    code = main(["check", "--output-format", "json", "tests"])
    out = capsys.readouterr().out
    found = {(Path(d["path"]).name, d["line"], d["code"]) for d in json.loads(out)}
    assert found == {("test_wrong.py", 8, "NC203")}
    assert code == 1


def test_the_parameters_and_fixtures_reach_the_tests(suite: Path, capsys) -> None:
    main(["types", "--format", "json", "tests/test_right.py", "tests/conftest.py"])
    doc = json.loads(capsys.readouterr().out)
    # (the values each test's own analysis gives, with its parameters Unknown or symbols, left out)
    types = {
        (Path(b["file"]).name, b["line"], b["name"]): {t["type"] for t in b["types"] if "'" not in t["type"]}
        - {"unknown"}
        for b in doc["bindings"]
    }
    assert types[("test_right.py", 8, "y")] == {"f32[Array, Dims(8, 2)]", "f32[Array, Dims(8, 5)]"}
    assert types[("test_right.py", 14, "x")] == {"f32[Array, Dims(4, 6)]"}  # the xfail set is left out
    assert types[("test_right.py", 23, "s")] == {"f32[Array, Dims(4)]"}  # `(3,)` stops at `pytest.skip`
    assert types[("test_right.py", 29, "x")] == {"f32[Array, Dims(1, 3)]", "f32[Array, Dims(2, 3)]"}
    assert types[("test_right.py", 44, "m")] == {"7"}
    assert types[("test_right.py", 44, "key")] == {"u32[Array, Dims(2)]"}
    assert ("conftest.py", 11, "key") in types and types[("conftest.py", 11, "key")] == {"u32[Array, Dims(2)]"}
    # a fixture with `params=` is not followed: `width` stays unknown
    assert types[("test_right.py", 32, "width")] == set()


def test_the_verdicts_hold_under_pytest_and_jax(suite: Path) -> None:
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
    env.pop("PYTEST_XDIST_WORKER", None)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "--tb=short", "tests"],
        cwd=suite,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = proc.stdout + proc.stderr
    summary = out.strip().splitlines()[-1]
    # test_wrong.py's two parameter sets fail where the checker reports; every right test passes (one skips,
    # the two xfail cases fail as marked)
    assert summary.startswith("2 failed, 9 passed, 1 skipped, 2 xfailed"), out
    assert out.count("tests/test_wrong.py:8: in test_dense") == 2, out
    assert "FAILED tests/test_right.py" not in out, out
