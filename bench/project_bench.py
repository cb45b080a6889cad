"""Incremental whole-project check (issue 12, SPEC section 7): re-checking one changed file of a 50-module
project against checking that file alone. Prints ratios measured in the same run.

A 50-module JAX project is generated in a temporary directory (config, sharding helpers, layers, blocks,
models, training modules, utilities; cross-module calls and relative imports). A full `namedcheck check`
warms the result cache; then one file is edited (a comment line appended) and
timed, whole process:

- `project`: `namedcheck check <project>` after the edit (the cache serves every file whose text and
  dependencies are unchanged);
- `file`: `namedcheck check <edited file>` (what pre-commit runs: only the changed file, the project's
  other modules read as needed);
- `alone`: the same edited file copied into an empty directory and checked there, no cache (the baseline).

Target: `project` and `file` <= 2x `alone` for a file that no other module imports (a leaf: its importers
are re-checked too when a widely imported module changes, which `--edit layers` shows).

    python bench/project_bench.py [--runs 5] [--edit train|layers|model] [--keep]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PYPROJECT = '[project]\nname = "bignet"\nversion = "0.1.0"\ndependencies = ["jax"]\n'

CONFIG = '''"""Model and training configuration."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class ModelConfig:
    d_model: int = 256
    d_ff: int = 1024
    n_heads: int = 8
    d_head: int = 32
    vocab: int = 1000
    n_layers: int = 4
    seq: int = 128


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    batch: int = 16
    lr: float = 3e-4
    steps: int = 1000
    warmup: int = 100


MODEL = ModelConfig()
TRAIN = TrainConfig()
'''

SHARDING = '''"""Mesh and partition helpers."""

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

DATA_AXIS = "data"
MODEL_AXIS = "model"


def make_mesh():
    return Mesh(np.array(jax.devices()).reshape(4, 2), (DATA_AXIS, MODEL_AXIS))


def batch_spec():
    return P(DATA_AXIS, None)


def weight_spec():
    return P(None, MODEL_AXIS)


def shard_batch(mesh, x):
    return jax.device_put(x, NamedSharding(mesh, batch_spec()))


def shard_weight(mesh, w):
    return jax.device_put(w, NamedSharding(mesh, weight_spec()))
'''

LAYER = '''"""{doc}"""

import jax
import jax.numpy as jnp

from namedcheck import f32

from ..config import MODEL
from ..utils.shapes import check_rank


def {name}_init(key, d_in, d_out):
    w = jax.random.normal(key, (d_in, d_out)) / jnp.sqrt(d_in)
    b = jnp.zeros((d_out,))
    return w, b


def {name}_apply(x: f32[("B", "I")], w: f32[("I", "O")], b: f32[("O",)]) -> f32[("B", "O")]:
    check_rank(x, 2)
    return jnp.dot(x, w) + b


def {name}_norm(x, eps=1e-5):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.var(x, axis=-1, keepdims=True)
    return (x - m) / jnp.sqrt(v + eps)


def {name}_gated(x, w_gate, w_up, w_down):
    g = jax.nn.silu(jnp.dot(x, w_gate))
    u = jnp.dot(x, w_up)
    return jnp.dot(g * u, w_down)


def {name}_heads(x: f32[("B", "S", "D")]) -> f32[("B", "S", "H", "K")]:
    b, s, _ = x.shape
    return x.reshape(b, s, MODEL.n_heads, MODEL.d_head)


def {name}_merge(x: f32[("B", "S", "H", "K")]) -> f32[("B", "S", "D")]:
    b, s, h, k = x.shape
    return x.reshape(b, s, h * k)


def {name}_scores(q, k):
    s = jnp.einsum("bshk,bthk->bhst", q, k)
    return jax.nn.softmax(s / jnp.sqrt(q.shape[-1]), axis=-1)


def {name}_mix(p, v):
    return jnp.einsum("bhst,bthk->bshk", p, v)


def {name}_residual(x, f, *args):
    return x + f({name}_norm(x), *args)


def {name}_project(x, w):
    y = x @ w
    y = jax.nn.gelu(y)
    return jnp.clip(y, -10.0, 10.0)
'''

BLOCK = '''"""Block {i}: attention and a feed-forward layer built from the layer modules."""

import jax
import jax.numpy as jnp

from ..config import MODEL
from ..layers import {la} as la
from ..layers import {lb} as lb
from ..layers.{lc} import {lc}_gated, {lc}_norm


def init_block_{i}(key):
    k1, k2, k3, k4, k5 = jax.random.split(key, 5)
    wq, _ = la.{la}_init(k1, MODEL.d_model, MODEL.d_model)
    wk, _ = la.{la}_init(k2, MODEL.d_model, MODEL.d_model)
    wv, _ = la.{la}_init(k3, MODEL.d_model, MODEL.d_model)
    w_gate, _ = lb.{lb}_init(k4, MODEL.d_model, MODEL.d_ff)
    w_up, _ = lb.{lb}_init(k5, MODEL.d_model, MODEL.d_ff)
    w_down, _ = lb.{lb}_init(k5, MODEL.d_ff, MODEL.d_model)
    return {{"wq": wq, "wk": wk, "wv": wv, "gate": w_gate, "up": w_up, "down": w_down}}


def attention_{i}(x, p):
    q = la.{la}_heads(x @ p["wq"])
    k = la.{la}_heads(x @ p["wk"])
    v = la.{la}_heads(x @ p["wv"])
    probs = la.{la}_scores(q, k)
    return la.{la}_merge(la.{la}_mix(probs, v))


def feed_forward_{i}(x, p):
    return {lc}_gated({lc}_norm(x), p["gate"], p["up"], p["down"])


def block_{i}(x, p):
    x = x + attention_{i}(lb.{lb}_norm(x), p)
    x = x + feed_forward_{i}(x, p)
    return x


def block_{i}_flat(x, p):
    b, s, d = x.shape
    y = block_{i}(x, p)
    return jnp.reshape(y, (b * s, d))
'''

MODEL_MOD = '''"""Model {i}: an embedding, blocks and a head."""

import jax
import jax.numpy as jnp

from ..blocks import block_{a} as first
from ..blocks.block_{b} import block_{b}, init_block_{b}
from ..config import MODEL, ModelConfig
from ..layers.embed import embed_init


def init_model_{i}(key, cfg: ModelConfig = MODEL):
    k1, k2, k3, k4 = jax.random.split(key, 4)
    emb, _ = embed_init(k1, cfg.vocab, cfg.d_model)
    head, bias = embed_init(k4, cfg.d_model, cfg.vocab)
    return {{"emb": emb, "a": first.init_block_{a}(k2), "b": init_block_{b}(k3), "head": head, "bias": bias}}


def forward_{i}(params, tokens):
    x = jnp.take(params["emb"], tokens, axis=0)
    x = first.block_{a}(x, params["a"])
    x = block_{b}(x, params["b"])
    return jnp.dot(x, params["head"]) + params["bias"]


def logits_{i}(params, tokens):
    y = forward_{i}(params, tokens)
    return jax.nn.log_softmax(y, axis=-1)
'''

TRAIN_MOD = '''"""Training: {what}."""

import jax
import jax.numpy as jnp

from ..config import TRAIN
from ..models.model_{m} import init_model_{m}, logits_{m}
from ..utils.tree import tree_scale


def loss_{i}(params, tokens, targets):
    logp = logits_{m}(params, tokens)
    picked = jnp.take_along_axis(logp, targets[..., None], axis=-1)
    return -jnp.mean(picked)


def step_{i}(params, tokens, targets):
    loss, grads = jax.value_and_grad(loss_{i})(params, tokens, targets)
    params = jax.tree.map(lambda p, g: p - TRAIN.lr * g, params, tree_scale(grads, 1.0))
    return params, loss


def run_{i}(key):
    params = init_model_{m}(key)
    tokens = jnp.zeros((TRAIN.batch, 128), dtype=jnp.int32)
    for _ in range(2):
        params, loss = step_{i}(params, tokens, tokens)
    return loss
'''

UTIL = {
    "tree": '"""Tree helpers."""\n\nimport jax\n\n\ndef tree_scale(tree, s):\n    return jax.tree.map(lambda x: x * s, tree)\n\n\n'
    "def tree_size(tree):\n    return sum(x.size for x in jax.tree.leaves(tree))\n",
    "rng": '"""Keys."""\n\nimport jax\n\n\ndef split_n(key, n):\n    return jax.random.split(key, n)\n',
    "logging": '"""Logging."""\n\nimport logging\n\nLOG = logging.getLogger("bignet")\n\n\ndef info(msg):\n    LOG.info(msg)\n',
    "shapes": '"""Shape checks."""\n\n\ndef check_rank(x, n):\n    if x.ndim != n:\n        raise ValueError(x.shape)\n    return x\n',
}

TOP_MODEL = '''"""The default model."""

from .models.model_0 import forward_0 as forward
from .models.model_0 import init_model_0 as init_model

__all__ = ["forward", "init_model"]
'''

TOP_TRAIN = '''"""Entry point: train the default model on one sharded batch."""

import jax
import jax.numpy as jnp

from namedcheck import f32

from . import sharding
from .config import MODEL, TRAIN
from .layers.dense import dense_apply, dense_init
from .model import forward, init_model
from .train.step_0 import step_0


def probe(x: f32[("B", 256)], w: f32[(256, 64)], b: f32[(64,)]) -> f32[("B", 64)]:
    return dense_apply(x, w, b)


def main():
    key = jax.random.key(0)
    mesh = sharding.make_mesh()
    params = init_model(key)
    tokens = jnp.zeros((TRAIN.batch, MODEL.seq), dtype=jnp.int32)
    tokens = sharding.shard_batch(mesh, tokens)
    params, loss = step_0(params, tokens, tokens)
    w, b = dense_init(key, MODEL.d_model, 64)
    h = jnp.ones((TRAIN.batch, MODEL.d_model))
    out = probe(h, w, b)
    return forward(params, tokens), out, loss


if __name__ == "__main__":
    main()
'''

LAYERS = ["dense", "norm", "attention", "mlp", "embed", "rope", "conv", "pool", "dropout", "moe"]
TRAINS = ["step", "loss", "optim", "data", "eval", "metrics", "schedule", "checkpoint"]


def generate(root: Path) -> dict[str, Path]:
    """Writes the project; returns the files the benchmark edits by role."""
    (root / "pyproject.toml").write_text(PYPROJECT)
    pkg = root / "src" / "bignet"
    files: dict[str, str] = {
        "__init__.py": '"""bignet."""\n',
        "config.py": CONFIG,
        "sharding.py": SHARDING,
        "model.py": TOP_MODEL,
        "train.py": TOP_TRAIN,
    }
    files["layers/__init__.py"] = '"""Layers."""\n\nfrom . import ' + ", ".join(LAYERS) + "\n"
    for name in LAYERS:
        files[f"layers/{name}.py"] = LAYER.format(doc=f"The {name} layer family.", name=name)
    files["blocks/__init__.py"] = '"""Blocks."""\n'
    for i in range(10):
        la, lb, lc = LAYERS[i % 10], LAYERS[(i + 3) % 10], LAYERS[(i + 6) % 10]
        files[f"blocks/block_{i}.py"] = BLOCK.format(i=i, la=la, lb=lb, lc=lc)
    files["models/__init__.py"] = '"""Models."""\n'
    for i in range(10):
        files[f"models/model_{i}.py"] = MODEL_MOD.format(i=i, a=i, b=(i + 1) % 10)
    files["train/__init__.py"] = '"""Training."""\n'
    for i, what in enumerate(TRAINS):
        files[f"train/{what}_{i}.py" if i else "train/step_0.py"] = TRAIN_MOD.format(i=i, m=i % 10, what=what)
    files["utils/__init__.py"] = '"""Utilities."""\n'
    for name, text in UTIL.items():
        files[f"utils/{name}.py"] = text
    for rel, text in files.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text)
    return {"train": pkg / "train.py", "layers": pkg / "layers" / "dense.py", "model": pkg / "models" / "model_3.py"}


def edit(path: Path, n: int) -> None:
    """A real edit: the text changes (a comment line), so the file's cache entry misses."""
    path.write_text(path.read_text() + f"# edit {n}\n")


def run(cmd: list[str], cwd: Path) -> tuple[float, float, str]:
    """(wall s, CPU s of the child, stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{cmd} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return wall, cpu, proc.stdout


def check(*args: str) -> list[str]:
    return [sys.executable, "-m", "namedcheck", "check", "-j", "1", *args]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--edit", choices=["train", "layers", "model"], default="train")
    ap.add_argument("--keep", action="store_true", help="keep the generated project (prints its path)")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="nc_projbench_"))
    try:
        proj = tmp / "proj"
        proj.mkdir()
        target = generate(proj)[args.edit]
        modules = sorted(proj.rglob("*.py"))
        lines = sum(f.read_text().count("\n") for f in modules)
        full_wall, full_cpu, out = run(check("."), proj)
        print(
            f"project: {len(modules)} modules, {lines} lines; full check (cold cache) {full_wall:.2f} s wall, "
            f"{full_cpu:.2f} s CPU"
        )
        print(f"  {out.strip().splitlines()[-1] if out.strip() else ''}")
        alone_dir = tmp / "alone"
        samples: dict[str, list[tuple[float, float]]] = {"project": [], "file": [], "alone": []}
        for n in range(args.runs):
            edit(target, n)
            samples["project"].append(run(check("."), proj)[:2])
            edit(target, n + 1000)
            samples["file"].append(run(check(str(target.relative_to(proj))), proj)[:2])
            shutil.rmtree(alone_dir, ignore_errors=True)
            alone_dir.mkdir()
            shutil.copy(target, alone_dir / target.name)
            samples["alone"].append(run(check("--no-cache", target.name), alone_dir)[:2])
        med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in samples.items()}
        base_w, base_c = med["alone"]
        print(f"edited: {target.relative_to(proj)} ({args.runs} runs, medians, whole process)")
        for k, label in [
            ("alone", "checked alone in an empty directory (baseline)"),
            ("project", "re-check of the whole project, warm cache"),
            ("file", "re-check of the edited file only (pre-commit), warm cache"),
        ]:
            w, c = med[k]
            print(
                f"  {label:58s} {w * 1000:7.0f} ms wall {w / base_w:5.2f}x   {c * 1000:7.0f} ms CPU {c / base_c:5.2f}x"
            )
        print("target: <= 2x (issue 12)")
        if args.keep:
            print(f"kept: {proj}")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
