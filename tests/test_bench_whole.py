"""Units of the whole-projects benchmark (`bench/realcode_whole.py`): its mutation operators, the project's
module list and the stub prelude of its drivers. Nothing here runs JAX or the checker."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import realcode_whole as whole  # noqa: E402

CONFIG = """
import ml_collections


def get_config():
    config = ml_collections.ConfigDict()
    config.emb_dim = 1024
    config.num_heads = 16
    config.learning_rate = 0.1
    config.model = ml_collections.config_dict.create(D=512, H=8)
    return config
"""

MODELS = """
import dataclasses
from flax import linen as nn


@dataclasses.dataclass
class Config:
    width: int = 64
    depth: int = 2


class Head(nn.Module):
    def __call__(self, x):
        return nn.Dense(features=10, dtype=None)(x)
"""

TRAIN = """
import models
from models import Head


def step(params, batch):
    return models.apply(params, batch, 3)
"""


def found(text: str, modules: set[str] | None = None) -> list[tuple[str, str, str]]:
    raw = text.encode()
    lines = raw.splitlines()
    out = []
    for kind, context, edit in whole.WholeFinder(raw, modules or set()).run(ast.parse(raw)):
        line = lines[edit.line - 1]
        after = (line[: edit.start] + edit.text.encode() + line[edit.end :]).decode().strip()
        out.append((kind, context, after))
    return out


def test_config_values_and_swaps() -> None:
    got = found(CONFIG)
    assert ("config_value", "config.emb_dim", "config.emb_dim = 768") in got
    assert ("config_value", "config.num_heads", "config.num_heads = 17") in got
    assert ("config_swap", "config.emb_dim", "config.emb_dim = 16") in got
    assert ("config_value", "D", "config.model = ml_collections.config_dict.create(D=384, H=8)") in got
    assert not any("learning_rate" in c for _, c, _ in got)  # a float is not a size


def test_dataclass_fields_and_layer_widths() -> None:
    got = found(MODELS)
    assert ("config_value", "width", "width: int = 48") in got
    assert ("config_swap", "depth", "depth: int = 64") in got
    assert ("layer_width", "Dense", "return nn.Dense(features=11, dtype=None)(x)") in got


def test_call_arg_swap_only_into_project_modules() -> None:
    got = found(TRAIN, {"models", "train"})
    assert ("call_arg_swap", "models.apply", "return models.apply(batch, params, 3)") in got
    assert found(TRAIN, {"train"}) == []


def test_project_modules_leave_tests_out(tmp_path: Path) -> None:
    for name in (
        "train.py",
        "train_test.py",
        "models.py",
        "test_models.py",
        "mnist_benchmark.py",
        "configs/default.py",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    assert whole.project_modules(tmp_path) == ["configs/default.py", "models.py", "train.py"]


def test_candidates_of_a_project(tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "default.py").write_text(CONFIG)
    (tmp_path / "models.py").write_text(MODELS)
    (tmp_path / "train.py").write_text(TRAIN)
    spec = whole.WholeSpec("demo", "demo", "", "")
    got = whole.candidates_of(spec, tmp_path)
    kinds = {m.kind for m, _ in got}
    assert {"config_value", "config_swap", "layer_width", "call_arg_swap"} <= kinds
    for mutant, text in got:
        ast.parse(text)
        assert mutant.before != mutant.after
    first = whole.prioritised(got, 3, "0")
    assert len(first) == 3 and all(m.kind in whole.CROSS_KINDS or "config" in m.file for m, _ in first)


def test_stub_prelude_imports_what_is_not_installed(tmp_path: Path) -> None:
    program = whole.STUBS.format(site=str(tmp_path)) + (
        "import tensorflow as tf\n"
        "import tensorflow_datasets as tfds\n"
        "from gymnasium.spaces.box import Box\n"
        "tf.random.set_seed(0)\n"
        "hint = tf.Tensor | None\n"
        "ds = tfds.load('mnist', split='train').map(lambda s: s).batch(8)\n"
        "assert list(ds.as_numpy_iterator()) == []\n"
        "class Env(Box): pass\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "ok", proc.stderr
