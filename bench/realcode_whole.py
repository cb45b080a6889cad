"""Whole mode of `bench/realcode.py` (`python bench/realcode.py whole`): a held-out benchmark of whole real
projects nobody on the team wrote. Recall AT THE LINE on one-line bugs whose cause (the edited line) and effect
(JAX's innermost traceback frame inside the project) lie in different modules, each verified to fail under JAX;
and the diagnostics on the unmutated projects, each judged with a JAX run.

    python bench/realcode.py whole [--source NAME=DIR ...] [--keep DIR] [--limit N] [--seed 0] [--jobs 2]
                                   [--projects NAME ...] [--show-missed] [--json-out FILE] [--checker PATH]

Sources (never copied into this repository): `--source NAME=DIR`, else `$NAMEDCHECK_BENCH_SOURCES/NAME`
(default `~/.cache/namedcheck-bench/sources/NAME`; fetch a repository and unpack it there):

    flax               flax's sdist (downloaded into the work directory when absent)   examples/mnist, wmt,
                       imagenet, sst2, ogbg_molpcba, seq2seq, ppo
    nanodo             github.com/google-deepmind/nanodo                              the whole package
    jax_llm_examples   github.com/jax-ml/jax-llm-examples                             llama3/, qwen3/
    (not measured yet: young-geng/EasyLM, google-research/big_vision, levanter's tutorials, equinox's
    examples: see NOT_MEASURED)

Environment: the drivers run with the interpreter running this file plus the packages the projects need
(EXTRA_PACKAGES: ml_collections, clu, einops, jraph, ...), installed at run time with
`pip install --no-deps --target WORK/site` (cached in --keep DIR). TensorFlow, tensorflow_datasets,
sentencepiece, gymnasium, cv2 and the like are not installed: the driver's prelude (STUBS) makes them stub
modules whose every attribute is a do-nothing object, and the drivers feed the projects' step functions small
numpy / ShapeDtypeStruct batches of the right shapes instead of their tf.data pipelines.

Each project has a DRIVER (DRIVERS below) that runs the project's own path from its entry: its default config
(`configs/default.py` / flags / config dataclasses) shrunk to tiny sizes by dividing its size fields (so a mutant
of a config value still changes what the model sees), its own model / state constructors and its train / eval /
predict step functions (under `jax.eval_shape` where a compiled run would be slow), with 8 forced host CPU
devices. Candidates: every non-test module of the project, with `realcode_configured`'s operators (axes, reshape
sizes, config fields used as sizes, `.shape[i]`, PartitionSpec entries, ...) plus four of this mode
(`WholeFinder`): `config_value` (an int field of a config or module changed: by a quarter, or a small one
off by one), `layer_width` (an int size given to a layer constructor, `nn.Dense(features=10)`, off by one),
`config_swap` (an int field of a config given the value of another field) and `call_arg_swap` (two positional arguments swapped
at a call into another module of the project). The candidates of those kinds and of config modules come first
(CROSS_KINDS), the others after them, each group taken kind by kind in turn, seeded (`--limit` per project,
default 30). A mutant is kept (verified) only when the driver raises under JAX (not an
import / syntax / name error, nor a timeout) while the unmutated project runs clean, AND the innermost traceback
frame inside the project (the effect) lies in another module than the edited one. A failure that only the
driver's shrinking causes (a mutated size divided down to 0: ZeroDivisionError, a take from an empty axis) is
rejected too. Shrinking by division keeps most of a config's arithmetic, not all of it: a mutant that breaks a
divisibility only at the tiny sizes can still slip through (the JSON keeps JAX's message for each mutant). Verification results are
cached in `--keep DIR` (`whole_verify.json`). Only lines the clean run of the driver executed (the line tracer
below) are mutated: an edit elsewhere cannot change what JAX sees.

Measure: `namedcheck check --no-cache --format json` over the mutated project directory as the project ships
(its `main.py`, configs and tests included; the driver is not in the tree), scored as `configured` scores:
AT THE LINE when a new diagnostic (or one of its related locations) lies on the edited line, NEAR within 2
lines, EFFECT when a new diagnostic lies on the effect line, else missed. The diagnostics on each unmutated
project are judged with a JAX run: the driver is run once more under a line tracer; a diagnostic on a line the
driver executed (while the project ran clean) is a FALSE ALARM; one on a line the driver never ran is "not run"
(JAX has no verdict on it).

Printed: per project and in total, candidates, verified cross-module mutants, at line, near, effect found,
missed; per mutation kind; the unmutated diagnostics with JAX's verdict; `--show-missed` lists the mutants not
found at the line. `--json-out FILE` writes everything.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from realcode import default_checker, link_tree, run_checker, workdir
from realcode_configured import (
    CMutant,
    DriverResult,
    choose,
    classify,
    default_source_dir,
    diag_text,
    find_candidates,
    int_value,
    rel,
    resolve_sources,
    run_driver,
    tree_hash,
)
from realcode_mutants import Edit, one_line, replace, segment

EXTRA_PACKAGES = ("ml_collections", "clu", "einops", "jraph", "wrapt", "chex", "toolz", "flatbuffers")
SKIPPED_FILES = ("_test.py", "_benchmark.py", "test_", "conftest.py")

# The driver's prelude: the bench's package directory on sys.path, and stub modules for what is not installed.
STUBS = """
import importlib.abc, importlib.machinery, sys, types
sys.path.insert(1, {site!r})
STUBBED = ('tensorflow', 'tensorflow_datasets', 'tensorflow_text', 'sentencepiece', 'gymnasium', 'gym', 'ale_py',
           'cv2', 'sklearn', 'grain', 'tqdm', 'tensorboard', 'tensorboardX', 'wandb', 'orbax.export')
class _Any:
    def __init__(self, *a, **k): pass
    def __call__(self, *a, **k): return _Any()
    def __getattr__(self, name): return _Any()
    def __iter__(self): return iter(())
    def __getitem__(self, key): return _Any()
    def __class_getitem__(cls, key): return cls
    def __mro_entries__(self, bases): return (object,)
    def __or__(self, other): return _Any()
    def __ror__(self, other): return _Any()
class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return _Any()
class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if any(name == s or name.startswith(s + '.') for s in STUBBED):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None
    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        return module
    def exec_module(self, module):
        pass
sys.meta_path.insert(0, _StubFinder())
"""

# A line tracer for the judging run: the project's executed lines, written at exit.
COVER = """
import atexit, json, os, sys, threading
_root = os.path.realpath(os.getcwd()) + os.sep
_ran = set()
def _local(frame, event, arg):
    if event == 'line':
        _ran.add((frame.f_code.co_filename, frame.f_lineno))
    return _local
def _global(frame, event, arg):
    name = frame.f_code.co_filename
    if name.startswith(_root):
        _ran.add((name, frame.f_lineno))
        return _local
    return None
sys.settrace(_global)
threading.settrace(_global)
@atexit.register
def _dump():
    sys.settrace(None)
    with open({out!r}, 'w') as fh:
        json.dump(sorted([os.path.relpath(f, _root), n] for f, n in _ran), fh)
"""

# ----------------------------------------------------------------------------------------------
# Drivers

DRIVER_MNIST = """
import numpy as np, optax
from flax import nnx
from configs import default
import train
cfg = default.get_config()
cfg.batch_size //= 16
model = train.CNN(rngs=nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.sgd(cfg.learning_rate, cfg.momentum), wrt=nnx.Param)
metrics = nnx.MultiMetric(accuracy=nnx.metrics.Accuracy(), loss=nnx.metrics.Average('loss'))
batch = {'image': np.zeros((cfg.batch_size, 28, 28, 1), np.float32), 'label': np.zeros((cfg.batch_size,), np.int32)}
model.train()
train.train_step(model, optimizer, metrics, batch, nnx.Rngs(0))
model.eval()
train.eval_step(model, metrics, batch)
metrics.compute()
"""

DRIVER_WMT = """
import functools, jax, jax.numpy as jnp, numpy as np, optax
from flax import linen as nn
from configs import default
import models, train
cfg = default.get_config()
for name in ('qkv_dim', 'emb_dim', 'mlp_dim'):
    cfg[name] //= 32
cfg.vocab_size //= 500
cfg.max_target_length //= 16
cfg.max_eval_target_length //= 16
cfg.max_predict_length //= 16
cfg.num_layers = 1
cfg.per_device_batch_size //= 32
dtype = train.preferred_dtype(cfg)
train_config = models.TransformerConfig(
    vocab_size=cfg.vocab_size, output_vocab_size=cfg.vocab_size, share_embeddings=cfg.share_embeddings,
    logits_via_embedding=cfg.logits_via_embedding, dtype=dtype, emb_dim=cfg.emb_dim, num_heads=cfg.num_heads,
    num_layers=cfg.num_layers, qkv_dim=cfg.qkv_dim, mlp_dim=cfg.mlp_dim,
    max_len=max(cfg.max_target_length, cfg.max_eval_target_length), dropout_rate=cfg.dropout_rate,
    attention_dropout_rate=cfg.attention_dropout_rate, deterministic=False, decode=False,
    kernel_init=nn.initializers.xavier_uniform(), bias_init=nn.initializers.normal(stddev=1e-6))
eval_config = train_config.replace(deterministic=True)
predict_config = train_config.replace(deterministic=True, decode=True)
shape = (cfg.per_device_batch_size, cfg.max_target_length)
m = models.Transformer(eval_config)
lr = train.create_learning_rate_schedule(learning_rate=cfg.learning_rate, warmup_steps=cfg.warmup_steps)
def create(key):
    variables = m.init(key, jnp.ones(shape, jnp.float32), jnp.ones(shape, jnp.float32))
    return train.TrainState.create(apply_fn=m.apply, params=variables['params'],
                                   tx=optax.adamw(learning_rate=lr, b1=0.9, b2=0.98, eps=1e-9), dynamic_scale=None)
state = jax.eval_shape(create, jax.random.key(0))
D = 8
rep = lambda t: jax.tree_util.tree_map(lambda x: jax.ShapeDtypeStruct((D,) + x.shape, x.dtype), t)
tok = jax.ShapeDtypeStruct((D,) + shape, jnp.int32)
batch = {k: tok for k in ('inputs', 'targets', 'inputs_position', 'targets_position', 'inputs_segmentation',
                          'targets_segmentation')}
keys = jax.ShapeDtypeStruct((D,), jax.random.key(0).dtype)
step = jax.vmap(lambda s, b, k: train.train_step(s, b, config=train_config, learning_rate_fn=lr,
                                                 label_smoothing=cfg.label_smoothing, dropout_rng=k),
               axis_name='batch')
jax.eval_shape(step, rep(state), batch, keys)
ev = jax.vmap(functools.partial(train.eval_step, config=eval_config), axis_name='batch')
jax.eval_shape(ev, rep(state.params), {'inputs': tok, 'targets': tok})
def predict(inputs, params):
    cache = train.initialize_cache(inputs, cfg.max_predict_length, predict_config)
    return train.predict_step(inputs, params, cache, 2, cfg.max_predict_length, predict_config,
                              beam_size=cfg.beam_size)
jax.eval_shape(predict, jax.ShapeDtypeStruct(shape, jnp.int32), state.params)
"""

DRIVER_SEQ2SEQ = """
import jax
from absl import flags
import input_pipeline, train
flags.FLAGS(['seq2seq'])
flags.FLAGS.hidden_size //= 32
ctable = input_pipeline.CharacterTable('0123456789+= ', flags.FLAGS.max_len_query_digit)
state = train.get_train_state(jax.random.key(0), ctable)
batch = ctable.get_batch(8)
state, metrics = train.train_step(state, batch, jax.random.key(1), ctable.eos_id)
train.decode_batch(state, batch, jax.random.key(2), ctable)
"""

DRIVER_SST2 = """
import jax, numpy as np
from configs import default
import train
cfg = default.get_config()
cfg.embedding_size //= 20
cfg.hidden_size //= 16
cfg.vocab_size = 50
cfg.batch_size //= 8
model = train.model_from_config(cfg)
state = train.create_train_state(jax.random.key(cfg.seed), cfg, model)
L = cfg.max_input_length // 5
batch = {'token_ids': np.ones((cfg.batch_size, L), np.int32), 'length': np.full((cfg.batch_size,), L, np.int32),
         'label': np.zeros((cfg.batch_size,), np.float32)}
rngs = {'dropout': jax.random.key(1), 'word_dropout': jax.random.key(2)}
jax.eval_shape(train.train_step, state, batch, rngs)
jax.eval_shape(train.eval_step, state, batch, rngs)
"""

DRIVER_OGBG = """
import jax, jax.numpy as jnp, jraph, numpy as np
from flax.training import train_state
from configs import default
import train
cfg = default.get_config()
cfg.latent_size //= 16
cfg.batch_size //= 32
cfg.message_passing_steps = 2
n_node, n_edge = 5 * cfg.batch_size, 12 * cfg.batch_size
graphs = jraph.GraphsTuple(
    n_node=np.full((cfg.batch_size,), 5, np.int32), n_edge=np.full((cfg.batch_size,), 12, np.int32),
    nodes=np.zeros((n_node, 9), np.float32), edges=np.zeros((n_edge, 3), np.float32),
    senders=np.arange(n_edge, dtype=np.int32) % n_node, receivers=(np.arange(n_edge, dtype=np.int32) * 3) % n_node,
    globals=np.zeros((cfg.batch_size, cfg.num_classes), np.float32))
init_model = train.create_model(cfg, deterministic=True)
def create(key):
    params = jax.jit(init_model.init)(key, train.replace_globals(graphs))
    model = train.create_model(cfg, deterministic=False)
    return train_state.TrainState.create(apply_fn=model.apply, params=params, tx=train.create_optimizer(cfg))
state = create(jax.random.key(0))
state, metrics = jax.eval_shape(train.train_step, state, graphs, {'dropout': jax.random.key(1)})
jax.eval_shape(train.evaluate_step, create(jax.random.key(0)).replace(apply_fn=init_model.apply), graphs)
"""

DRIVER_IMAGENET = """
import functools, jax, jax.numpy as jnp
from configs import default
import models, train
cfg = default.get_config()
cfg.batch_size //= 16
model_cls = functools.partial(getattr(models, cfg.model), num_filters=8)
model = train.create_model(model_cls=model_cls, half_precision=cfg.half_precision)
lr = train.create_learning_rate_fn(cfg, cfg.learning_rate * cfg.batch_size / 256.0, 10)
image = 32
state = jax.eval_shape(lambda key: train.create_train_state(key, cfg, model, image, lr), jax.random.key(0))
D = 8
rep = lambda t: jax.tree_util.tree_map(lambda x: jax.ShapeDtypeStruct((D,) + x.shape, x.dtype), t)
batch = {'image': jax.ShapeDtypeStruct((D, cfg.batch_size // D, image, image, 3), jnp.float32),
         'label': jax.ShapeDtypeStruct((D, cfg.batch_size // D), jnp.int32)}
jax.eval_shape(jax.vmap(functools.partial(train.train_step, learning_rate_fn=lr), axis_name='batch'), rep(state), batch)
jax.eval_shape(jax.vmap(train.eval_step, axis_name='batch'), rep(state), batch)
"""

DRIVER_PPO = """
import functools, jax, jax.numpy as jnp, numpy as np
from configs import default
import agent, models, ppo_lib
cfg = default.get_config()
cfg.num_agents //= 2
cfg.actor_steps //= 32
cfg.batch_size //= 32
model = models.ActorCritic(num_outputs=6)
params = ppo_lib.get_initial_params(jax.random.key(0), model)
state = ppo_lib.create_train_state(params, model, cfg, train_steps=10)
states = np.zeros((cfg.num_agents, 84, 84, 4), np.float32)
experience = []
for t in range(cfg.actor_steps + 1):
    log_probs, values = agent.policy_action(state.apply_fn, state.params, states)
    experience.append([agent.ExpTuple(states[i], 1, 0.5, float(values[i, 0]), float(log_probs[i, 1]), False)
                       for i in range(cfg.num_agents)])
trajectories = ppo_lib.process_experience(experience, cfg.actor_steps, cfg.num_agents, cfg.gamma, cfg.lambda_)
jax.eval_shape(lambda s, t: ppo_lib.train_step(s, t, cfg.batch_size, clip_param=cfg.clip_param,
                                                  vf_coeff=cfg.vf_coeff, entropy_coeff=cfg.entropy_coeff),
               state, trajectories)
"""

DRIVER_NANODO = """
import jax, jax.numpy as jnp
from jax.experimental import mesh_utils
from jax.sharding import Mesh
from nanodo import model_factory, train
from nanodo.configs import default
c = default.get_config()
c.model.D //= 16
c.model.F //= 16
c.model.L //= 32
c.model.N //= 3
c.model.dtype = 'float32'
c.batch_size //= 32
mesh = Mesh(mesh_utils.create_device_mesh((jax.device_count(),)), ('data',))
model, get_loss_fn = model_factory.get_model_and_loss(c, 96)
shardings, state = train._init_train_state(c, model, rng=jax.random.key(c.seed), mesh=mesh)
trainer = train.Trainer(c, state, mesh, shardings, get_loss_fn)
jax.eval_shape(trainer.step_fn, state, jax.ShapeDtypeStruct((c.batch_size, c.model.L), jnp.int32))
"""

DRIVER_LLAMA3 = """
import dataclasses, jax, jax.numpy as jnp
from jax.sharding import AxisType
from llama3_jax import configs, model as l3jax
mesh = jax.make_mesh((1, 2, 4), ('x', 'y', 'z'), axis_types=(AxisType.Explicit,) * 3)
c = configs.LLAMA3_8B
cfg = dataclasses.replace(c, embed=c.embed // 32, ffw_size=c.ffw_size // 32, q_heads=c.q_heads // 2,
                          head_dim=c.head_dim // 4, num_layers=c.num_layers // 16, vocab_size=c.vocab_size // 501,
                          max_seq_len=c.max_seq_len // 2, mesh=mesh)
with jax.sharding.set_mesh(mesh):
    weights = jax.eval_shape(lambda: l3jax.Weights.init(jax.random.key(0), cfg))
    cache = jax.eval_shape(lambda: l3jax.KVCache.init(jax.random.key(1), cfg, 2))
    tokens = jax.ShapeDtypeStruct((2, 16), jnp.int32)
    nxt, logits, cache = jax.eval_shape(lambda t, w, k: l3jax.prefill(t, w, k, cfg), tokens, weights, cache)
    one = jax.ShapeDtypeStruct((2, 1), jnp.int32)
    jax.eval_shape(lambda t, w, k: l3jax.decode_step(t, w, k, cfg), one, weights, cache)
"""

DRIVER_QWEN3 = """
import dataclasses, jax, jax.numpy as jnp
from jax.sharding import AxisType
from qwen3_jax import configs, model as q3jax
mesh = jax.make_mesh((1, 2, 4), ('x', 'y', 'z'), axis_types=(AxisType.Explicit,) * 3)
c = configs.QWEN3_30B_A3B
cfg = dataclasses.replace(c, embed=c.embed // 16, q_heads=c.q_heads // 2, num_layers=c.num_layers // 24,
                          head_dim=c.head_dim // 4, vocab_size=c.vocab_size // 1187, max_seq_len=c.max_seq_len // 2,
                          moe_ffw_size=c.moe_ffw_size // 8, moe_experts_per_tok=c.moe_experts_per_tok // 4,
                          moe_num_experts=c.moe_num_experts // 16, mlp_ffw_size=c.mlp_ffw_size // 16,
                          mlp_layer_idxs=[0], mesh=mesh)
with jax.sharding.set_mesh(mesh):
    weights = jax.eval_shape(lambda: q3jax.Weights.init(jax.random.key(0), cfg))
    cache = jax.eval_shape(lambda: q3jax.KVCache.init(jax.random.key(1), cfg, 2, cfg.max_seq_len))
    tokens = jax.ShapeDtypeStruct((2, 16), jnp.int32)
    nxt, logits, cache = jax.eval_shape(lambda t, w, k: q3jax.prefill(t, w, k, cfg), tokens, weights, cache)
    one = jax.ShapeDtypeStruct((2, 1), jnp.int32)
    jax.eval_shape(lambda t, w, k: q3jax.decode_step(t, w, k, cfg), one, weights, cache)
"""


@dataclass(frozen=True)
class WholeSpec:
    name: str
    source: str  # the --source NAME
    subdir: str  # the project directory inside the source ("" = the source root)
    driver: str  # run with the project directory first on sys.path and as the working directory
    mutate: tuple[str, ...] = ()  # only these files (relative), else every non-test module


PROJECTS: tuple[WholeSpec, ...] = (
    WholeSpec("mnist", "flax", "examples/mnist", DRIVER_MNIST),
    WholeSpec("wmt", "flax", "examples/wmt", DRIVER_WMT),
    WholeSpec("imagenet", "flax", "examples/imagenet", DRIVER_IMAGENET),
    WholeSpec("sst2", "flax", "examples/sst2", DRIVER_SST2),
    WholeSpec("ogbg_molpcba", "flax", "examples/ogbg_molpcba", DRIVER_OGBG),
    WholeSpec("seq2seq", "flax", "examples/seq2seq", DRIVER_SEQ2SEQ),
    WholeSpec("ppo", "flax", "examples/ppo", DRIVER_PPO),
    WholeSpec("nanodo", "nanodo", "", DRIVER_NANODO),
    WholeSpec("llama3", "jax_llm_examples", "llama3", DRIVER_LLAMA3),
    WholeSpec("qwen3", "jax_llm_examples", "qwen3", DRIVER_QWEN3),
)

# Projects of the benchmark's list that are not measured yet, and why.
NOT_MEASURED = {
    "easylm": "needs mlxu and transformers<4.50 (heavy); no driver yet",
    "jax_llm_examples (other models)": "deepseek_r1, gpt_oss, kimi_k2, llama4, gemma4, nemotron3: no drivers yet",
    "big_vision": "not fetched yet; no driver",
    "levanter": "not fetched yet; its tutorials need haliax and a levanter install",
    "equinox": "not fetched yet; its examples are single-module notebooks (no cross-module mutants)",
}


# ----------------------------------------------------------------------------------------------
# Mutation operators of whole projects


class WholeFinder(ast.NodeVisitor):
    """config_value, config_swap (int fields of configs) and call_arg_swap (calls into another module)."""

    def __init__(self, raw: bytes, modules: set[str]) -> None:
        self.lines = raw.splitlines(keepends=True)
        self.modules = modules  # names of the project's own modules
        self.found: list[tuple[str, str, Edit]] = []
        self.imported: set[str] = set()  # local names bound to the project's modules

    def run(self, tree: ast.Module) -> list[tuple[str, str, Edit]]:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    top = alias.name.split(".")[-1]
                    if top in self.modules:
                        self.imported.add(alias.asname or alias.name)
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name in self.modules:
                        self.imported.add(alias.asname or alias.name)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.Module):
                self.config_fields(node)
        self.visit(tree)
        return self.found

    def config_fields(self, scope: ast.FunctionDef | ast.ClassDef | ast.Module) -> None:
        """Int fields set in one scope: `cfg.x = 512`, `x: int = 512` (a dataclass), `create(x=512, ...)`."""
        fields: list[tuple[str, ast.expr]] = []
        for stmt in scope.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                if isinstance(target, ast.Attribute | ast.Subscript) and self.int_field(stmt.value):
                    fields.append((ast.unparse(target), stmt.value))
                if isinstance(stmt.value, ast.Call):
                    for kw in stmt.value.keywords:
                        if kw.arg and self.int_field(kw.value):
                            fields.append((kw.arg, kw.value))
            elif isinstance(stmt, ast.AnnAssign) and isinstance(scope, ast.ClassDef) and stmt.value is not None:
                if isinstance(stmt.target, ast.Name) and self.int_field(stmt.value):
                    fields.append((stmt.target.id, stmt.value))
        for i, (name, value) in enumerate(fields):
            number = int_value(value) or 0
            changed = number + 1 if number <= 16 else number * 3 // 4
            self.found.append(("config_value", name, replace(value, str(changed))))
            others = [int_value(v) for n, v in fields if n != name and int_value(v) != number]
            if others:
                self.found.append(("config_swap", name, replace(value, str(others[i % len(others)]))))

    @staticmethod
    def int_field(node: ast.expr) -> bool:
        value = int_value(node)
        return value is not None and value >= 2 and one_line(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        into = (
            isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in self.imported
        ) or (isinstance(func, ast.Name) and func.id in self.imported)
        self.layer_width(node)
        args = [a for a in node.args if not isinstance(a, ast.Starred)]
        if into and len(args) >= 2 and one_line(node):
            first, second = args[0], args[1]
            a, b = segment(self.lines, first), segment(self.lines, second)
            if a != b and first.lineno == second.lineno:
                assert second.end_col_offset is not None
                text = self.lines[first.lineno - 1][first.col_offset : second.end_col_offset].decode("utf-8")
                middle = text[len(a) : len(text) - len(b)]
                self.found.append(
                    (
                        "call_arg_swap",
                        ast.unparse(func),
                        Edit(first.lineno, first.col_offset, second.end_col_offset, b + middle + a),
                    )
                )
        self.generic_visit(node)

    def layer_width(self, node: ast.Call) -> None:
        """An int size given to a layer constructor (`nn.Dense(features=10)`, `nnx.Linear(3136, 256)`) changed."""
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if not name[:1].isupper():
            return
        sizes = [a for a in node.args if self.int_field(a)]
        sizes += [kw.value for kw in node.keywords if kw.arg not in NOT_SIZES and self.int_field(kw.value)]
        for value in sizes:
            self.found.append(("layer_width", name, replace(value, str((int_value(value) or 0) + 1))))


NOT_SIZES = {"axis", "dtype", "param_dtype", "precision", "seed", "rate", "num_layers", "message_passing_steps"}


def project_modules(root: Path) -> list[str]:
    """The project's own modules (relative paths), tests and benchmarks left out."""
    out = []
    for path in sorted(root.rglob("*.py")):
        name = path.name
        if name.startswith("test_") or name.endswith(SKIPPED_FILES[:2]) or name == "conftest.py":
            continue
        out.append(str(path.relative_to(root)))
    return out


def candidates_of(spec: WholeSpec, root: Path) -> list[tuple[CMutant, str]]:
    files = list(spec.mutate) or project_modules(root)
    stems = {Path(f).stem for f in project_modules(root)} | {Path(f).parent.name for f in project_modules(root)}
    out: list[tuple[CMutant, str]] = []
    for rel_file in files:
        path = root / rel_file
        if not path.exists():
            continue

        def extra(tree: ast.Module, raw: bytes) -> list[tuple[str, str, Edit]]:
            return WholeFinder(raw, stems - {""}).run(tree)

        out.extend(find_candidates(spec.name, rel_file, path.read_text(encoding="utf-8"), skip=(), extra=extra))
    return out


# The kinds whose effect usually lies in another module than the edit: configs, layer sizes, cross-module calls.
CROSS_KINDS = {"config_value", "config_swap", "layer_width", "call_arg_swap", "config_field_swap", "size_off_by_one"}


def prioritised(candidates: list[tuple[CMutant, str]], limit: int, seed: str) -> list[tuple[CMutant, str]]:
    """At most `limit` candidates: first those of CROSS_KINDS or in a config module, then the others (each
    group with `choose`: a seeded shuffle of each kind, the kinds in turn)."""

    def likely(item: tuple[CMutant, str]) -> bool:
        return item[0].kind in CROSS_KINDS or "config" in item[0].file

    first = choose([c for c in candidates if likely(c)], limit, seed)
    return first + choose([c for c in candidates if not likely(c)], limit - len(first), seed)


# ----------------------------------------------------------------------------------------------
# Environment


def ensure_site(work: Path, timeout: float) -> tuple[Path, str]:
    """EXTRA_PACKAGES installed (no dependencies) under work/site, for the drivers only."""
    site = work / "site"
    marker = site / ".namedcheck_bench_packages"
    wanted = " ".join(EXTRA_PACKAGES)
    if marker.exists() and marker.read_text() == wanted:
        return site, ""
    site.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", "install", "--no-deps", "--upgrade"]
    cmd += ["--target", str(site), *EXTRA_PACKAGES]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return site, f"pip install timed out after {timeout:.0f} s"
    if proc.returncode != 0:
        return site, f"pip install failed: {(proc.stderr or proc.stdout).strip()[-300:]}"
    marker.write_text(wanted)
    return site, ""


def driver_text(spec: WholeSpec, site: Path, cover: Path | None = None) -> str:
    text = STUBS.format(site=str(site))
    if cover is not None:
        text += COVER.format(out=str(cover))
    return text + spec.driver


# ----------------------------------------------------------------------------------------------
# Running a project


@dataclass
class Outcome:
    mutant: CMutant
    error: str
    message: str
    effect: str  # file:line of the innermost project frame
    where: str = "missed"  # "line", "near" or "missed"
    effect_found: bool = False
    new_diagnostics: list[str] = field(default_factory=list)


@dataclass
class Judged:
    text: str
    verdict: str  # "false alarm" (the driver ran the line clean) or "not run"


@dataclass
class ProjectRun:
    spec: WholeSpec
    problem: str = ""
    candidates: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    baseline: list[Judged] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)


def shrink_artifact(res: DriverResult) -> bool:
    """The failure comes from the driver's shrinking, not from the mutant: a mutated size the driver divided down
    to 0 (the same value is fine at the project's own sizes)."""
    return res.error == "ZeroDivisionError" or "from an empty axis" in res.message


def mutated_tree(base: Path, root: Path, mutant: CMutant, text: str) -> None:
    if root.exists():
        shutil.rmtree(root)
    link_tree(base, root)
    target = root / mutant.file
    target.unlink()
    target.write_text(text, encoding="utf-8")


def run_project(
    spec: WholeSpec,
    source: Path,
    work: Path,
    site: Path,
    checker: str,
    args: argparse.Namespace,
    cache: dict[str, list[object]],
) -> ProjectRun:
    result = ProjectRun(spec)
    src = source / spec.subdir if spec.subdir else source
    if not src.is_dir():
        result.problem = f"no directory {src}"
        return result
    base = work / "whole_base" / spec.name
    if base.exists():
        shutil.rmtree(base)
    shutil.copytree(src, base, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.pyc"))
    drivers = work / "whole_drivers"
    drivers.mkdir(parents=True, exist_ok=True)
    driver_file = drivers / f"{spec.name}.py"
    driver_file.write_text(driver_text(spec, site))
    cover_out = drivers / f"{spec.name}.lines.json"
    cover_out.unlink(missing_ok=True)
    cover_file = drivers / f"{spec.name}_cover.py"
    cover_file.write_text(driver_text(spec, site, cover_out))
    clean = run_driver(base, cover_file, timeout=args.driver_timeout * 3)
    if clean.error != "ok":
        result.problem = f"the unmutated project fails its driver: {clean.error}: {clean.message}"
        return result
    ran: set[tuple[str, int]] = set()
    if cover_out.exists():
        ran = {(str(f), int(n)) for f, n in json.loads(cover_out.read_text())}
    base_run = run_checker(checker, [base], args.timeout, cwd=base)
    if base_run.error:
        result.problem = f"checker failed on the unmutated project: {base_run.error[-300:]}"
        return result
    for d in base_run.diagnostics:
        verdict = "false alarm" if (rel(d.path, base), d.line) in ran else "not run"
        result.baseline.append(Judged(diag_text(d, base), verdict))

    # only lines the clean run executed can change what JAX sees
    executed = [c for c in candidates_of(spec, base) if not ran or (c[0].file, c[0].line) in ran]
    candidates = prioritised(executed, args.limit, f"{args.seed}:{spec.name}")
    result.candidates = len(candidates)
    source_key = tree_hash(base) + hashlib.sha256(spec.driver.encode()).hexdigest()

    def verify(i: int) -> DriverResult:
        mutant, text = candidates[i]
        key = hashlib.sha256(f"{source_key}:{mutant.file}:{text}".encode()).hexdigest()
        if key in cache:
            kind, message, frames = cache[key]
            return DriverResult(str(kind), str(message), list(frames))  # type: ignore[arg-type]
        root = work / "whole_mut" / spec.name / str(i)
        mutated_tree(base, root, mutant, text)
        res = run_driver(root, driver_file, timeout=args.driver_timeout)
        cache[key] = [res.error, res.message, res.frames]
        return res

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        verdicts = list(pool.map(verify, range(len(candidates))))
    kept: list[int] = []
    for i, res in enumerate(verdicts):
        mutant = candidates[i][0]
        if not res.raised:
            result.rejected["not raised" if res.error in {"ok", "DriverAssertion"} else res.error] += 1
        elif shrink_artifact(res):
            result.rejected["a size the driver shrank to 0"] += 1
        elif not res.frames:
            result.rejected["no project frame"] += 1
        elif str(res.frames[-1][0]) == mutant.file:
            result.rejected["effect in the same module"] += 1
        else:
            kept.append(i)

    def check(i: int) -> Outcome:
        mutant, text = candidates[i]
        root = work / "whole_mut" / spec.name / str(i)
        if not root.exists():  # verified from the cache
            mutated_tree(base, root, mutant, text)
        res = verdicts[i]
        effect_file, effect_line = str(res.frames[-1][0]), int(str(res.frames[-1][1]))
        outcome = Outcome(mutant, res.error, res.message, f"{effect_file}:{effect_line}")
        run = run_checker(checker, [root], args.timeout, cwd=root)
        if run.error:
            outcome.new_diagnostics = [f"checker failed: {run.error[-200:]}"]
            return outcome
        outcome.where, new = classify(mutant, root, base_run.diagnostics, base, run.diagnostics)
        if any(r.line == mutant.line and rel(r.path, root) == mutant.file for d in new for r in d.related):
            outcome.where = "line"  # a related location at the edited line (the config line that set a size)
        outcome.effect_found = any(rel(d.path, root) == effect_file and d.line == effect_line for d in new)
        outcome.new_diagnostics = [diag_text(d, root) for d in new]
        return outcome

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        result.outcomes = list(pool.map(check, kept))
    shutil.rmtree(work / "whole_mut" / spec.name, ignore_errors=True)
    return result


# ----------------------------------------------------------------------------------------------
# Report


def figures(outcomes: Sequence[Outcome]) -> str:
    n = len(outcomes)
    at = sum(1 for o in outcomes if o.where == "line")
    near = sum(1 for o in outcomes if o.where == "near")
    effect = sum(1 for o in outcomes if o.effect_found)
    missed = sum(1 for o in outcomes if o.where == "missed" and not o.effect_found)
    share = f"{100 * at / n:5.1f}%" if n else "    -"
    return f"{n:>8} {at:>7} {share:>7} {near:>6} {effect:>6} {missed:>7}"


def report(runs: Sequence[ProjectRun], show_missed: bool) -> None:
    print(
        f"{'project':<14} {'tried':>6} {'verified':>8} {'at line':>7} {'share':>7} {'near':>6} {'effect':>6} {'missed':>7}  false alarms / not run"
    )
    everything: list[Outcome] = []
    for run in runs:
        if run.problem:
            print(f"{run.spec.name:<14} SKIPPED: {run.problem}")
            continue
        everything.extend(run.outcomes)
        alarms = sum(1 for j in run.baseline if j.verdict == "false alarm")
        print(
            f"{run.spec.name:<14} {run.candidates:>6} {figures(run.outcomes)}  {alarms} / {len(run.baseline) - alarms}"
        )
    done = [r for r in runs if not r.problem]
    alarms = sum(1 for r in done for j in r.baseline if j.verdict == "false alarm")
    total = sum(len(r.baseline) for r in done)
    print(f"{'TOTAL':<14} {sum(r.candidates for r in done):>6} {figures(everything)}  {alarms} / {total - alarms}")
    print("(missed: neither at / near the line nor at the effect line; effect: a new diagnostic on JAX's effect line)")

    print(
        f"\n{'mutation kind':<20} {'verified':>8} {'at line':>7} {'share':>7} {'near':>6} {'effect':>6} {'missed':>7}"
    )
    by_kind: dict[str, list[Outcome]] = defaultdict(list)
    for o in everything:
        by_kind[o.mutant.kind].append(o)
    for kind in sorted(by_kind):
        print(f"{kind:<20} {figures(by_kind[kind])}")

    print(
        "\nrejected candidates (not raised, raised an import / syntax / name error, or the effect in the edited module):"
    )
    for run in done:
        print(f"  {run.spec.name:<14} " + ", ".join(f"{k} {v}" for k, v in run.rejected.most_common()))
    errors = Counter(o.error for o in everything)
    print("errors JAX raised on the verified mutants: " + ", ".join(f"{k} {v}" for k, v in errors.most_common()))
    print("\nnot measured: " + "; ".join(f"{k}: {v}" for k, v in NOT_MEASURED.items()))

    print("\ndiagnostics on the unmutated projects, judged with a JAX run of the driver (clean):")
    for run in done:
        print(f"  {run.spec.name}: {len(run.baseline)}")
        for j in run.baseline:
            print(f"    [{j.verdict}] {j.text}")
    if show_missed:
        chosen = [o for o in everything if o.where != "line"]
        print(f"\nnot found at the line ({len(chosen)}):")
        for o in chosen:
            m = o.mutant
            print(
                f"  {m.project}/{m.file}:{m.line} [{m.kind}] {m.before}  ->  {m.after}   ({o.where}{', effect found' if o.effect_found else ''})"
            )
            print(f"      JAX: {o.error}: {o.message}   effect at {o.effect}")
            for text in o.new_diagnostics[:3]:
                print(f"      new: {text}")


def dump(runs: Sequence[ProjectRun], out: Path) -> None:
    data = []
    for run in runs:
        data.append(
            {
                "project": run.spec.name,
                "problem": run.problem,
                "candidates": run.candidates,
                "rejected": dict(run.rejected),
                "unmutated_diagnostics": [asdict(j) for j in run.baseline],
                "mutants": [
                    {
                        **asdict(o.mutant),
                        "error": o.error,
                        "message": o.message,
                        "effect": o.effect,
                        "where": o.where,
                        "effect_found": o.effect_found,
                        "new_diagnostics": o.new_diagnostics,
                    }
                    for o in run.outcomes
                ],
            }
        )
    out.write_text(json.dumps({"runs": data, "not_measured": NOT_MEASURED}, indent=1))


def whole_mode(args: argparse.Namespace) -> int:
    checker: str = args.checker or default_checker()
    work, cleanup = workdir(args.keep)
    cache_file = work / "whole_verify.json"
    cache: dict[str, list[object]] = {}
    if cache_file.exists():
        try:
            cache = json.loads(cache_file.read_text())
        except json.JSONDecodeError:
            cache = {}
    try:
        site, problem = ensure_site(work, args.install_timeout)
        if problem:
            print(f"installing {', '.join(EXTRA_PACKAGES)}: {problem}", file=sys.stderr)
        sources = resolve_sources(args.source or [], work, args.install_timeout, {p.source for p in PROJECTS})
        runs: list[ProjectRun] = []
        for spec in PROJECTS:
            if args.projects and spec.name not in args.projects:
                continue
            source = sources.get(spec.source)
            if source is None or not source.is_dir():
                where = default_source_dir(spec.source)
                runs.append(
                    ProjectRun(spec, problem=f"no source {spec.source!r}: pass --source {spec.source}=DIR ({where})")
                )
                continue
            print(f"[{spec.name}] from {source}", file=sys.stderr, flush=True)
            runs.append(run_project(spec, source, work, site, checker, args, cache))
            cache_file.write_text(json.dumps(cache))
        report(runs, args.show_missed)
        if args.json_out:
            dump(runs, Path(args.json_out))
    finally:
        cleanup()
    return 0
