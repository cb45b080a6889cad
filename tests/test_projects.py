"""Whole-project analysis: the test projects under tests/projects/ (a package per project, bugs whose
cause and effect sit in different modules). `# expect: NCxxx` marks the lines reported; every other line
of every module must be silent, and each right project (no `_bugs` suffix) is silent. Each project also
runs under JAX, so the expectations are real."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import namedcheck.analyzer.project as project_registry
from namedcheck.analyzer.budget import Limits
from namedcheck.cli.config import Config
from namedcheck.cli.main import run_check
from namedcheck.cli.runner import Job, check_file
from tests.fresh_process import run_fresh
from tests.test_cases import expectations

PROJECTS = Path(__file__).parent / "projects"
NAMES = sorted(p.name for p in PROJECTS.iterdir() if p.is_dir() and not p.name.startswith("_"))


def expected_in(project: Path) -> set[tuple[str, int, str]]:
    out: set[tuple[str, int, str]] = set()
    for f in sorted(project.rglob("*.py")):
        got, _ = expectations(f.read_text())
        out |= {(str(f.resolve()), line, code) for line, code in got}
    return out


def found(diags: list) -> set[tuple[str, int, str]]:
    return {(str(Path(d.path).resolve()), d.line, d.code) for d in diags}


@pytest.mark.parametrize("name", NAMES)
def test_project_expectations(name: str) -> None:
    project = PROJECTS / name
    project_registry._PROJECTS.clear()
    got = found(run_check([str(project)], Config(), jobs=1))
    want = expected_in(project)
    assert got == want, f"missing: {sorted(want - got)}\nunexpected: {sorted(got - want)}"
    if not name.endswith("_bugs"):
        assert not want


@pytest.mark.parametrize("name", NAMES)
def test_files_checked_separately_agree(name: str) -> None:
    """What parallel workers do: each file checked in a fresh process state, results unioned."""
    project = PROJECTS / name
    files = sorted(project.rglob("*.py"))
    got: set[tuple[str, int, str]] = set()
    for f in files:
        project_registry._PROJECTS.clear()
        got |= found(check_file(Job(str(f), str(f), (), None, Limits(), (str(project),))))
    assert got == expected_in(project)


_RUNNER = textwrap.dedent("""
    import importlib, sys, traceback
    sys.path.insert(0, sys.argv[1])
    mod = importlib.import_module(sys.argv[2])
    for name in sys.argv[3:]:
        try:
            getattr(mod, name)()
            print(name, "ok")
        except Exception as e:
            print(name, "fails", type(e).__name__)
""")

# project -> (source root, module, {entry point: whether it runs under JAX})
UNDER_JAX = {
    "mlp": ("src", "mlpnet.train", {"main": True, "predict_main": True, "evaluate_main": True}),
    "mlp_bugs": ("src", "mlpnet.train", {"main": False, "predict_main": False, "evaluate_main": False}),
    "linen_lm": (".", "linenlm.train", {"train_main": True, "probe_attention": True, "probe_ffn": True}),
    "linen_lm_bugs": (".", "linenlm.train", {"train_main": False, "probe_attention": False, "probe_ffn": False}),
    "nnx_mlp": (".", "nnxmlp.train", {"train_main": True, "predict_main": True, "probe_head": True}),
    "nnx_mlp_bugs": (".", "nnxmlp.train", {"train_main": False, "predict_main": False, "probe_head": False}),
    "linen_params": (".", "linenparams.train", {"train_main": True, "evaluate_main": True, "finetune_main": True}),
    "linen_params_bugs": (
        ".",
        "linenparams.train",
        {"train_main": True, "evaluate_main": False, "finetune_main": False},
    ),
    "eqx_seq": (".", "eqxseq.train", {"train_main": True, "predict_main": True}),
    "eqx_seq_bugs": (".", "eqxseq.train", {"train_main": False, "predict_main": False}),
    "cfg_app": (".", "cfgapp.main", {"run": True}),
    "cfg_app_bugs": (".", "cfgapp.main", {"run": False}),
}
NEEDS = {"linen": "flax", "nnx": "flax", "eqx": "equinox", "cfg": "ml_collections"}


@pytest.mark.parametrize("name", sorted(UNDER_JAX))
def test_project_under_jax(name: str) -> None:
    pytest.importorskip("jax")
    for prefix, package in NEEDS.items():
        if name.startswith(prefix):
            pytest.importorskip(package, reason=f"{package} is not installed (pip install -e '.[dev]')")
    root, module, entries = UNDER_JAX[name]
    out = run_fresh(_RUNNER, str(PROJECTS / name / root), module, *entries, preload=("flax.linen",))  # 8 CPU devices
    got = dict(line.split()[:2] for line in out.stdout.splitlines() if line.strip())
    assert got == {k: "ok" if v else "fails" for k, v in entries.items()}, out.stdout + out.stderr


_BODY = """\
import jax.numpy as jnp


def block(x, w):
    return jnp.dot(x, w)
"""
_MAP = """\
import jax
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P

from .layers import block

mesh = Mesh(np.array(jax.devices()).reshape(2, 4), ('data', 'model'))
f = jax.shard_map(block, mesh=mesh, in_specs=(P('data', 'model'), P('model', None)), out_specs=P('data', None))
"""


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_machine_formats_keep_cross_module_diagnostics(tmp_path: Path, fmt: str, capsys) -> None:
    """A fixable diagnostic (NC601) that a function of another module causes where the shard_map is written
    is printed in json / sarif too (their fixes come from an analysis of the file alone, which does not see
    it: it keeps no fix, and is not dropped)."""
    import json

    from namedcheck.cli.main import main

    pkg = tmp_path / "tpnet"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "layers.py").write_text(_BODY)
    (pkg / "model.py").write_text(_MAP)
    project_registry._PROJECTS.clear()
    main(["check", "--no-cache", "-j", "1", "--format", fmt, str(pkg / "model.py")])
    out = json.loads(capsys.readouterr().out)
    if fmt == "sarif":
        got = [
            (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
            for r in out["runs"][0]["results"]
        ]
    else:
        got = [(d["code"], d["line"]) for d in out]
    assert got == [("NC601", 8)]


_STEP = """\
import jax
from jax.sharding import PartitionSpec as P


def local_step(w, x):
    return x @ w


def make_step(mesh):
    return jax.jit(jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P('data', None)),
                                 out_specs=P()))
"""
_MAIN = """\
import jax
import numpy as np
from jax.sharding import Mesh

from steps.step import make_step

mesh = Mesh(np.array(jax.devices()), ('data',))
step = make_step(mesh)
x = np.random.default_rng(0).standard_normal((32, 12))
y = step(np.ones((12, 2)), x)
"""


def test_map_written_in_another_module_reports_there(tmp_path: Path) -> None:
    """A shard_map written in one module (returned by `make_step`) and called in another with known arrays:
    what the call finds at the map's own arguments (out_specs) is reported in the module that wrote the map,
    never an internal error in the caller."""
    pkg = tmp_path / "steps"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "step.py").write_text(_STEP)
    (tmp_path / "main.py").write_text(_MAIN)
    project_registry._PROJECTS.clear()
    got = found(run_check([str(tmp_path / "main.py"), str(pkg / "step.py")], Config(), jobs=1))
    assert got == {(str((pkg / "step.py").resolve()), 11, "NC601")}
