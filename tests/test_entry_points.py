"""Entry points and the configuration they build (analyzer/configs.py), against real JAX: each program of
tests/cases/entry_*.py runs as a script (flag and option defaults) or call by call, and fails exactly where
its `# expect:` lines say (and, where it stays silent on purpose, runs or fails as JAX decides)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.fresh_process import run_fresh
from tests.test_cases import expectations

CASES = Path(__file__).parent / "cases"
ENV = {
    **os.environ,
    "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
    "JAX_PLATFORMS": "cpu",
    "JAX_TRACEBACK_FILTERING": "off",
}

# script -> the exception it ends with when run with no command-line arguments
SCRIPTS = {
    "entry_flags.py": "TypeError",
    "entry_argparse.py": "TypeError",
    "entry_tests.py": "TypeError",
    "entry_parameterized.py": "TypeError",
}

# call by call: the call, and the exception JAX raises (None: it runs)
CALLS: dict[str, list[tuple[str, str | None]]] = {}
CALLS["entry_configs.py"] = [
    ("wrong_input(get_config())", "TypeError"),
    ("right_input(get_config())", None),
    ("widened(get_config())", None),
    ("mutated_by_a_call()", None),
    ("aliased()", None),
    ("branches(False)", None),
    ("branches(True)", "TypeError"),  # silent: the width depends on the argument
    ("defaults()", "TypeError"),
    ("updated()", "TypeError"),  # silent: update() is not followed
    ("namespace()", "TypeError"),
    ("from_dict()", "TypeError"),
    ("mutate_global() or uses_global()", None),
]
CALLS["entry_settings.py"] = [
    ("train(get_config())", "TypeError"),
    ("build()", "TypeError"),
    ("chunked(get_config())", "TypeError"),
]
CALLS["nc204_assertions.py"] = [
    ("attention(jnp.ones((2, 512)), Cfg(H=8))", None),
    ("attention(jnp.ones((2, 512)), Cfg(H=9))", "AssertionError"),
    ("pick('a')", None),
    ("checked_width(jnp.ones((2, 3)), 5, os.environ.get('STRICT_WIDTHS'))", None),
    ("agrees(jnp.ones((2, 512)))", None),
    ("variadic(1, 2)", None),
]
CALLS["nc205_swapped_arguments.py"] = [
    ("init('embedding', Cfg())", None),
    ("init(Cfg(), 'embedding')", "AttributeError"),
    ("size_of((2, 3))", None),
    ("label('dense')", None),
    ("describe(Kind.DENSE)", None),
]
CALLS["precision_try_probe.py"] = [
    ("moments(jnp.ones((4, 3)))", None),
    ("jax.pmap(moments, axis_name='batch')(jnp.ones((8, 4, 3)))", None),
    ("fallback(jnp.ones((4, 3)))", None),
    ("moments_typed(jnp.ones((4, 3)))", None),
    ("unprotected(jnp.ones((4, 3)))", "TypeError"),
]
CALLS["entry_classes.py"] = [
    ("mlp(jnp.ones((4, 16)), Config())", None),
    ("mlp_transposed(jnp.ones((4, 16)), Config())", "TypeError"),
    ("scaled(jnp.ones(3))", None),
    ("chosen_block(Config())", None),
]

_CALLER = textwrap.dedent("""
    import importlib.util, sys
    spec = importlib.util.spec_from_file_location("case", sys.argv[1])
    case = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(case)
    for call in sys.argv[2:]:
        try:
            eval(call, vars(case))
            print("ok")
        except Exception as e:
            print(type(e).__name__)
""")


def _needs() -> None:
    pytest.importorskip("jax")
    pytest.importorskip("ml_collections")
    pytest.importorskip("absl")


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_script_fails_as_expected(script: str) -> None:
    _needs()
    out = subprocess.run(
        [sys.executable, str(CASES / script)], capture_output=True, text=True, env=ENV, timeout=300, cwd=CASES
    )
    assert out.returncode != 0
    assert any(line.startswith(SCRIPTS[script] + ":") for line in out.stderr.splitlines()), out.stderr[-2000:]
    expected, _ = expectations((CASES / script).read_text())
    assert expected, "a script that fails has its expected diagnostic written in"
    lines = {int(line.split(", line ")[1].split(",")[0]) for line in out.stderr.splitlines() if script in line}
    assert {line for line, _ in expected} <= lines, out.stderr[-2000:]


@pytest.mark.parametrize("case", sorted(CALLS))
def test_calls_under_jax(case: str) -> None:
    _needs()
    calls = CALLS[case]
    out = run_fresh(_CALLER, str(CASES / case), *[c for c, _ in calls])  # under ENV's 8 CPU devices
    got = out.stdout.split()
    assert got == [e or "ok" for _, e in calls], out.stderr[-2000:]


_PMAPPED = """\
import jax
import jax.numpy as jnp
from jax import lax


def step(x):
    return lax.pmean(x, "batch")


def run():
    return jax.pmap(step, axis_name="batch")(jnp.ones((8, 2)))
"""
_PLAIN = "import jax.numpy as jnp\n\n\ndef step(x):\n    return x * 2\n"
_TEST = """\
import jax.numpy as jnp
from absl.testing import absltest

import train


class StepTest(absltest.TestCase):
    def test_step(self):
        train.step(jnp.ones(2))


if __name__ == "__main__":
    absltest.main()
"""


def test_a_script_imports_the_module_beside_it(tmp_path: Path) -> None:
    """Example directories of one repository each hold a `train.py` (flax's examples): a test script imports
    its own directory's, so checking one example never runs another example's test against it."""
    import namedcheck.analyzer.project as project_registry
    from namedcheck.cli.config import Config
    from namedcheck.cli.main import run_check

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'examples'\n")
    for name, train in (("ex_a", _PMAPPED), ("ex_b", _PLAIN)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "train.py").write_text(train)
    (tmp_path / "ex_b" / "train_test.py").write_text(_TEST)
    project_registry._PROJECTS.clear()
    assert run_check([str(tmp_path / "ex_a")], Config(), jobs=1) == []


_DEFAULT_CONFIG = """\
import ml_collections


def get_config():
    config = ml_collections.ConfigDict()
    config.batch_size = 12
    config.num_splits = 8
    config.width = 16
    return config
"""
_TRAIN = """\
import jax.numpy as jnp


def train_and_evaluate(config, workdir):
    x = jnp.ones((config.batch_size, config.width))
    return x.reshape((config.num_splits, -1, config.width))
"""
_MAIN = """\
from absl import app, flags
from ml_collections import config_flags

import train

FLAGS = flags.FLAGS
flags.DEFINE_string("workdir", None, "where to write")
config_flags.DEFINE_config_file("config", {default}, "the hyperparameter configuration")


def main(argv):
    train.train_and_evaluate(FLAGS.config, FLAGS.workdir)


if __name__ == "__main__":
    app.run(main)
"""


@pytest.mark.parametrize("default", ["None", "'configs/default.py'"])
def test_a_config_flag_loads_the_default_config(tmp_path: Path, default: str) -> None:
    """`config_flags.DEFINE_config_file` with a default path, or none beside `configs/default.py` (how flax's
    examples are run): `FLAGS.config` is that file's `get_config()` where the entry point reads it; the
    diagnostic points at the config lines, and the documented command fails under JAX on the same line."""
    import namedcheck.analyzer.project as project_registry
    from namedcheck.cli.config import Config
    from namedcheck.cli.main import run_check

    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "default.py").write_text(_DEFAULT_CONFIG)
    (tmp_path / "train.py").write_text(_TRAIN)
    (tmp_path / "main.py").write_text(_MAIN.format(default=default))
    project_registry._PROJECTS.clear()
    [d] = run_check([str(tmp_path)], Config(), jobs=1)
    assert (Path(d.path).name, d.line, d.code) == ("train.py", 6, "NC203")
    assert {(Path(r.path).name, r.line) for r in d.related} >= {("default.py", 6), ("default.py", 7)}
    _needs()
    out = subprocess.run(
        [sys.executable, "main.py", "--config=configs/default.py", f"--workdir={tmp_path}"],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
        cwd=tmp_path,
    )
    assert "TypeError" in out.stderr and 'train.py", line 6' in out.stderr, out.stderr[-2000:]


def test_a_setting_passed_through_calls_points_at_its_config_line() -> None:
    """`update(traj, config.batch_size)` then `n // batch_size` in the callee: the reshape's error names the
    line of `get_config()` that set the batch size."""
    from namedcheck.analyzer.check import check_source

    path = CASES / "entry_settings.py"
    reshape, attention, chunks = sorted(check_source(path.read_text(), str(path)), key=lambda d: d.line)
    assert [(r.line, r.message) for r in reshape.related if "set here" in r.message] == [
        (14, "`config.batch_size` is 192, set here")
    ]
    # a parameter given the setting by keyword through jit, read in a lambda's closure
    assert (14, "`config.batch_size` is 192, set here") in {(r.line, r.message) for r in chunks.related}
    # `ModelConfig(**c.model)` of `config_dict.create(D=96, H=9)`: the fields point at their arguments
    assert {(r.line, r.message) for r in attention.related if "set here" in r.message} == {
        (39, "`cfg.D` is 96, set here"),
        (39, "`cfg.H` is 9, set here"),
    }


def test_a_swapped_argument_points_at_the_call() -> None:
    """NC205 inside the callee names the argument the call gave it, where the swap is to be fixed."""
    from namedcheck.analyzer.check import check_source

    path = CASES / "nc205_swapped_arguments.py"
    [d] = check_source(path.read_text(), str(path))
    assert (d.code, d.line) == ("NC205", 18)
    assert [(r.line, r.message) for r in d.related] == [(41, "`cfg` is given this argument here")]
