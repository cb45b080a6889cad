"""Configured mode of `bench/realcode.py` (`python bench/realcode.py configured`): recall AT THE LINE on
one-line mutants of real, config-driven JAX model code, each mutant verified to fail under JAX.

    python bench/realcode.py configured [--source NAME=DIR ...] [--keep DIR] [--limit N] [--seed 0]
                                        [--show-missed] [--json-out FILE] [--projects NAME ...]
                                        [--with-entry] [--jobs 2]

Sources (never copied into this repository): public repositories, each named by a source NAME and given
as `--source NAME=DIR` (a checkout or an unpacked archive of the repository), or found at the default
location `$NAMEDCHECK_BENCH_SOURCES/NAME` (default `~/.cache/namedcheck-bench/sources/NAME`):

    nanodo             github.com/google-deepmind/nanodo          project nanodo (nanodo/model.py)
    jax_llm_examples   github.com/jax-ml/jax-llm-examples         projects llama3 (llama3/llama3_jax/model.py),
                                                                  qwen3 (qwen3/qwen3_jax/model.py)
    nanogpt_jax        github.com/cgarciae/nanoGPT-jax            project nanogpt (model.py)
    easylm             github.com/young-geng/EasyLM               project easylm (EasyLM/models/llama/llama_model.py;
                                                                  needs mlxu, einops and transformers<4.50 installed)
    flax               flax's sdist (`pip download --no-binary :all: flax`, downloaded into the work
                       directory when no DIR is given)         projects flax_lm1b, flax_wmt, flax_gemma (examples/)

A project whose source is missing, or whose unmutated copy fails its driver, is reported and skipped.

Each project has a DRIVER (code of this file, DRIVERS below) that builds the model from a tiny config
(small dims, few layers, sizes chosen pairwise distinct) and runs it abstractly under JAX (`jax.eval_shape` of
init and apply, of the forward and of a loss / gradient, decode paths where the project has them), with 8
forced host devices (XLA_FLAGS is set before jax is imported). The project directory is copied into the work
directory; mutants are one-line edits located with `ast` in the project's model files (the operators of
`realcode_mutants.Finder` plus the config-code operators of `ConfiguredFinder`: a reduction / concatenation /
softmax axis changed, `keepdims` dropped, a `swapaxes` / `transpose` removed or its axes changed, two reshape
sizes swapped, a config field used as a size replaced by another field of the same config, a size off by one,
a `.shape[i]` index changed), chosen with a seeded shuffle of each kind, the kinds taken in turn (at most
`--limit` candidates per project, default 30). Each
candidate is run: the driver on a hard-linked copy of the project with the one file replaced. A mutant is kept
(verified) only when the driver raises (an exception other than an import / syntax / name error, and other than
an assertion of the driver itself) while the unmutated project passes. Verification results are cached in
`--keep DIR` (`configured_verify.json`), keyed by the hash of the project's sources, the mutated text and the
driver.

Measure: `namedcheck check --no-cache --format json` (the checker beside this Python, or `--checker`) over the
whole mutated project directory (cross-module analysis applies). A verified mutant is found AT THE LINE when a
new diagnostic (not NC000/NC001, and not on the unmutated tree at that file and line with that code and
message) lies on the edited line; NEAR when a new diagnostic lies within 2 lines of it in the same file or
carries a related location at the edited line; otherwise missed ("elsewhere" counts the missed mutants
with some new diagnostic on another line of the project: an effect found, not its cause). The diagnostics on each unmutated project
are printed (false alarms: each should be 0).

`--with-entry` also measures each mutant with a concrete entry point added to the tree (ENTRIES: the driver's
tiny config as plain calls on concrete arrays, a file that is checked, never run): the gap between the two
figures is what the checker misses only because the project's sizes come from runtime configuration.

Printed: per project and in total, candidates tried, verified mutants, found at the line, near, missed; the
same per mutation kind; `--show-missed` lists each missed mutant (file:line, before -> after, the first line
of JAX's error). `--json-out FILE` writes every verified mutant with its outcome.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

from realcode import INTERNAL_CODES, Diagnostic, default_checker, flax_sdist, link_tree, run_checker, workdir
from realcode_mutants import XLA_FLAGS, Edit, Finder, one_line, replace, segment

NEAR_LINES = 2
DRIVER_TIMEOUT = 180.0
SOURCES_ENV = "NAMEDCHECK_BENCH_SOURCES"
INVALID_ERRORS = {"ImportError", "ModuleNotFoundError", "SyntaxError", "IndentationError", "NameError"}

# ----------------------------------------------------------------------------------------------
# Projects and their drivers


@dataclass(frozen=True)
class ProjectSpec:
    name: str
    source: str  # the --source NAME
    subdir: str  # the project directory inside the source ("" = the source root)
    model_files: tuple[str, ...]  # relative to the project directory: where mutants are made
    driver: str  # Python run with the project directory first on sys.path and as the working directory


DRIVER_NANODO = """
import jax, jax.numpy as jnp, optax
from nanodo import model as m
for fsdp in (False, True):
    cfg = m.DoConfig(D=48, H=4, L=32, N=2, V=96, F=80, fsdp_enabled=fsdp)
    mod = m.TransformerDo(cfg)
    x = jax.ShapeDtypeStruct((2, 32), jnp.int32)
    params = jax.eval_shape(lambda x: mod.init(jax.random.PRNGKey(0), x), x)
    def loss(p, x):
        logits = mod.apply(p, x)
        return optax.softmax_cross_entropy_with_integer_labels(logits[:, :-1], x[:, 1:]).mean()
    jax.eval_shape(jax.grad(loss), params, x)
    out = jax.eval_shape(mod.apply, params, x)
    assert out.shape == (2, 32, 96), out.shape
"""

# jax-llm-examples' llama3 and qwen3: one program, their configs and quantisation switches
DRIVER_LLAMA_LIKE = """
import dataclasses, jax, jax.numpy as jnp
from jax.sharding import PartitionSpec as P, AxisType
from {package} import model as m
mesh = jax.make_mesh((1, 2, 4), P("x", "y", "z"), axis_types=(AxisType.Explicit,) * 3)
cfg = m.Config({config}, mesh=mesh)
for quant in (False, True):
    c = dataclasses.replace(cfg, {quant})
    with jax.sharding.set_mesh(mesh):
        w = jax.eval_shape(lambda: m.Weights.init(jax.random.key(0), c))
        cache = jax.eval_shape(lambda: m.KVCache.init(jax.random.key(0), c, {cache}))
        tokens = jax.ShapeDtypeStruct((2, 16), jnp.int32)
        out = jax.eval_shape(lambda t, w: m.forward(t, jnp.ones_like(t), w, c, None), tokens, w)
        assert out[0].shape == (2, 16, 512), out[0].shape
        out = jax.eval_shape(lambda t, w, k: m.forward(t, jnp.ones_like(t), w, c, k), tokens, w, cache)
        assert out[0].shape == (2, 16, 512), out[0].shape
        one = jax.ShapeDtypeStruct((2, 1), jnp.int32)
        nxt = jax.eval_shape(lambda t, w, k: m.decode_step(t, w, k, c), one, w, cache)
        assert nxt[0].shape == (2, 1), nxt[0].shape
"""

DRIVER_LLAMA3 = DRIVER_LLAMA_LIKE.format(
    package="llama3_jax",
    config="embed=128, ffw_size=384, q_heads=16, kv_heads=8, num_layers=2, head_dim=24, vocab_size=512,\n               max_seq_len=64, causal=True, use_prefill_attn_kernel=False, use_decode_attn_kernel=False",
    quant="quant_layer=quant, quant_cache=quant",
    cache="2",
)
DRIVER_QWEN3 = DRIVER_LLAMA_LIKE.format(
    package="qwen3_jax",
    config='embed=128, q_heads=16, kv_heads=8, num_layers=2, head_dim=24, vocab_size=512, max_seq_len=64,\n               causal=True, moe_ffw_size=80, moe_experts_per_tok=2, moe_num_experts=8, ep_strategy="decode",\n               mlp_ffw_size=384, mlp_layer_idxs=[0]',
    quant="quant_attn=quant, quant_moe=quant, quant_mlp=quant, quant_cache=quant",
    cache="2, 64",
)

DRIVER_NANOGPT = """
import jax, jax.numpy as jnp
from jax._src import array, core
# nanoGPT-jax calls `x.split(3, axis=-1)`, a method jax arrays no longer have: give it back (jnp.split)
core.Tracer.split = array.ArrayImpl.split = lambda self, n, axis=0: jnp.split(self, n, axis=axis)
from model import GPT, GPTConfig
cfg = GPTConfig(block_size=32, vocab_size=96, n_layer=2, n_head=4, n_embd=48, dropout=0.1)
gpt = GPT(cfg)
x = jax.ShapeDtypeStruct((2, 24), jnp.int32)
params = jax.eval_shape(lambda x: gpt.init(jax.random.PRNGKey(0), x, train=False), x)['params']
def loss(p, x):
    logits, l = gpt.apply({'params': p}, x, train=True, targets=x, rngs={'dropout': jax.random.PRNGKey(1)})
    assert logits.shape == (2, 24, 96), logits.shape
    return l
jax.eval_shape(jax.grad(loss), params, x)
out = jax.eval_shape(lambda p, x: gpt.generate(jax.random.PRNGKey(2), p, x, 4, top_k=5), params,
                     jax.ShapeDtypeStruct((2, 8), jnp.int32))
jax.eval_shape(lambda p: gpt.crop_block_size(p, 16), params)
"""

DRIVER_EASYLM = """
import jax, jax.numpy as jnp
from EasyLM.models.llama import llama_model as m
cfg = m.LLaMAConfigurator.get_default_config(dict(
    vocab_size=96, hidden_size=48, intermediate_size=80, num_hidden_layers=2, num_attention_heads=4,
    num_key_value_heads=2, max_position_embeddings=64))
config = m.LLaMAConfigurator.finalize_config(cfg)
model = m.FlaxLLaMAForCausalLMModule(config)
x = jax.ShapeDtypeStruct((2, 24), jnp.int32)
params = jax.eval_shape(lambda x: model.init(jax.random.PRNGKey(0), x, jnp.ones_like(x),
                                             jnp.broadcast_to(jnp.arange(24), x.shape)), x)
def loss(p, x):
    out = model.apply(p, x, jnp.ones_like(x), jnp.broadcast_to(jnp.arange(24), x.shape), deterministic=True)
    assert out.logits.shape == (2, 24, 96), out.logits.shape
    return out.logits.mean()
jax.eval_shape(jax.grad(loss), params, x)
"""

DRIVER_FLAX_LM1B = """
import jax, jax.numpy as jnp
import models
for decode in (False, True):
    cfg = models.TransformerConfig(vocab_size=96, output_vocab_size=96, emb_dim=48, num_heads=4, num_layers=2,
                                   qkv_dim=40, mlp_dim=80, max_len=32, dropout_rate=0.1,
                                   attention_dropout_rate=0.1, deterministic=decode, decode=decode)
    lm = models.TransformerLM(cfg)
    T = 1 if decode else 24
    x = jax.ShapeDtypeStruct((2, T), jnp.int32)
    init = jax.eval_shape(lambda x: lm.init({'params': jax.random.PRNGKey(0), 'dropout': jax.random.PRNGKey(1)},
                                            jnp.ones((2, 24), jnp.int32)), x)
    if decode:
        out, _ = jax.eval_shape(lambda v, x: lm.apply(v, x, mutable=['cache']), init, x)
    else:
        out = jax.eval_shape(lambda v, x: lm.apply(v, x, inputs_positions=jnp.broadcast_to(jnp.arange(T), x.shape),
                                                   inputs_segmentation=jnp.ones_like(x),
                                                   rngs={'dropout': jax.random.PRNGKey(2)}), init, x)
    assert out.shape == (2, T, 96), out.shape
"""

DRIVER_FLAX_WMT = """
import jax, jax.numpy as jnp
import models
for decode in (False, True):
    cfg = models.TransformerConfig(vocab_size=96, output_vocab_size=88, emb_dim=48, num_heads=4, num_layers=2,
                                   qkv_dim=40, mlp_dim=80, max_len=32, dropout_rate=0.1,
                                   attention_dropout_rate=0.1, deterministic=decode, decode=decode)
    tr = models.Transformer(cfg)
    src = jax.ShapeDtypeStruct((2, 20), jnp.int32)
    T = 1 if decode else 24
    tgt = jax.ShapeDtypeStruct((2, T), jnp.int32)
    rngs = {'params': jax.random.PRNGKey(0), 'dropout': jax.random.PRNGKey(1)}
    init = jax.eval_shape(lambda s: tr.init(rngs, s, jnp.ones((2, 24), jnp.int32)), src)
    if decode:
        def step(v, s, t):
            enc = tr.apply(v, s, method=tr.encode)
            return tr.apply(v, enc, s, t, mutable=['cache'], method=tr.decode)
        out, _ = jax.eval_shape(step, init, src, tgt)
    else:
        out = jax.eval_shape(lambda v, s, t: tr.apply(
            v, s, t, inputs_positions=jnp.broadcast_to(jnp.arange(20), s.shape),
            targets_positions=jnp.broadcast_to(jnp.arange(T), t.shape),
            inputs_segmentation=jnp.ones_like(s), targets_segmentation=jnp.ones_like(t),
            rngs={'dropout': jax.random.PRNGKey(2)}), init, src, tgt)
    assert out.shape == (2, T, 88), out.shape
"""

DRIVER_FLAX_GEMMA = """
import jax, jax.numpy as jnp
from flax import nnx
import modules
import transformer as transformer_lib
mesh = jax.make_mesh((1, 8), ('fsdp', 'tp'))
for kv_heads in (4, 2):
    config = transformer_lib.TransformerConfig(
        num_layers=2, num_embed=96, embed_dim=48, hidden_dim=80, num_heads=4, head_dim=24, num_kv_heads=kv_heads,
        final_logit_softcap=None, attention_types=[modules.AttentionType.GLOBAL, modules.AttentionType.LOCAL_SLIDING],
        sliding_window_size=8, use_post_attn_norm=True, use_post_ffw_norm=True, dropout_rate=0.0)
    with jax.set_mesh(mesh):
        model = nnx.eval_shape(lambda: transformer_lib.Transformer(config=config, rngs=nnx.Rngs(params=0)))
        graphdef, state = nnx.split(model)
        def run(state, tokens):
            t = nnx.merge(graphdef, state)
            cache = t.init_cache(cache_size=32, batch_size=2, dtype=jnp.float32)
            mask = jnp.ones((2, tokens.shape[1], 32), dtype=jnp.bool_)
            pos = jnp.broadcast_to(jnp.arange(tokens.shape[1]), tokens.shape)
            return t(tokens, pos, cache, mask)
        out, cache = jax.eval_shape(run, state, jax.ShapeDtypeStruct((2, 12), jnp.int32))
        assert out.shape == (2, 12, 96), out.shape
"""

PROJECTS: tuple[ProjectSpec, ...] = (
    ProjectSpec("nanodo", "nanodo", "", ("nanodo/model.py",), DRIVER_NANODO),
    ProjectSpec("llama3", "jax_llm_examples", "llama3", ("llama3_jax/model.py",), DRIVER_LLAMA3),
    ProjectSpec("qwen3", "jax_llm_examples", "qwen3", ("qwen3_jax/model.py",), DRIVER_QWEN3),
    ProjectSpec("nanogpt", "nanogpt_jax", "", ("model.py",), DRIVER_NANOGPT),
    ProjectSpec("easylm", "easylm", "", ("EasyLM/models/llama/llama_model.py",), DRIVER_EASYLM),
    ProjectSpec("flax_lm1b", "flax", "examples/lm1b", ("models.py",), DRIVER_FLAX_LM1B),
    ProjectSpec("flax_wmt", "flax", "examples/wmt", ("models.py",), DRIVER_FLAX_WMT),
    ProjectSpec(
        "flax_gemma", "flax", "examples/gemma", ("modules.py", "layers.py", "transformer.py"), DRIVER_FLAX_GEMMA
    ),
)

# ----------------------------------------------------------------------------------------------
# Concrete entry points (`--with-entry`): the driver's tiny config as plain calls with concrete arrays, a file
# added to the checked tree only (never run), to tell "the sizes are unknown" from "the checker cannot follow".

ENTRY_FILE = "namedcheck_bench_entry.py"

ENTRY_NANODO = """
import jax
import jax.numpy as jnp
from nanodo import model as m


def entry():
    mod = m.TransformerDo(m.DoConfig(D=48, H=4, L=32, N=2, V=96, F=80))
    x = jnp.ones((2, 32), jnp.int32)
    params = mod.init(jax.random.PRNGKey(0), x)
    return mod.apply(params, x)
"""

ENTRY_LLAMA_LIKE = """
import jax
import jax.numpy as jnp
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P
from {package} import model as m


def entry():
    mesh = jax.make_mesh((1, 2, 4), P("x", "y", "z"), axis_types=(AxisType.Explicit,) * 3)
    cfg = m.Config({config}, mesh=mesh)
    with jax.sharding.set_mesh(mesh):
        weights = m.Weights.init(jax.random.key(0), cfg)
        tokens = jnp.ones((2, 16), jnp.int32)
        return m.forward(tokens, jnp.ones_like(tokens), weights, cfg, None)
"""

ENTRY_LLAMA3 = ENTRY_LLAMA_LIKE.format(
    package="llama3_jax",
    config="embed=128, ffw_size=384, q_heads=16, kv_heads=8, num_layers=2, head_dim=24, vocab_size=512, "
    "max_seq_len=64, causal=True, use_prefill_attn_kernel=False, use_decode_attn_kernel=False",
)
ENTRY_QWEN3 = ENTRY_LLAMA_LIKE.format(
    package="qwen3_jax",
    config="embed=128, q_heads=16, kv_heads=8, num_layers=2, head_dim=24, vocab_size=512, max_seq_len=64, "
    "causal=True, moe_ffw_size=80, moe_experts_per_tok=2, moe_num_experts=8, mlp_ffw_size=384, mlp_layer_idxs=[0]",
)

ENTRY_NANOGPT = """
import jax
import jax.numpy as jnp
from model import GPT, GPTConfig


def entry():
    gpt = GPT(GPTConfig(block_size=32, vocab_size=96, n_layer=2, n_head=4, n_embd=48, dropout=0.1))
    x = jnp.ones((2, 24), jnp.int32)
    params = gpt.init(jax.random.PRNGKey(0), x, train=False)
    return gpt.apply(params, x, train=True, targets=x, rngs={"dropout": jax.random.PRNGKey(1)})
"""

ENTRY_EASYLM = """
import jax
import jax.numpy as jnp
from EasyLM.models.llama import llama_model as m


def entry():
    cfg = m.LLaMAConfigurator.get_default_config(dict(
        vocab_size=96, hidden_size=48, intermediate_size=80, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=64))
    model = m.FlaxLLaMAForCausalLMModule(m.LLaMAConfigurator.finalize_config(cfg))
    x = jnp.ones((2, 24), jnp.int32)
    pos = jnp.broadcast_to(jnp.arange(24), x.shape)
    params = model.init(jax.random.PRNGKey(0), x, jnp.ones_like(x), pos)
    return model.apply(params, x, jnp.ones_like(x), pos, deterministic=True)
"""

ENTRY_FLAX_LM1B = """
import jax
import jax.numpy as jnp
import models


def entry():
    cfg = models.TransformerConfig(vocab_size=96, output_vocab_size=96, emb_dim=48, num_heads=4, num_layers=2,
                                   qkv_dim=40, mlp_dim=80, max_len=32, deterministic=True)
    lm = models.TransformerLM(cfg)
    x = jnp.ones((2, 24), jnp.int32)
    params = lm.init(jax.random.PRNGKey(0), x)
    return lm.apply(params, x)
"""

ENTRY_FLAX_WMT = """
import jax
import jax.numpy as jnp
import models


def entry():
    cfg = models.TransformerConfig(vocab_size=96, output_vocab_size=88, emb_dim=48, num_heads=4, num_layers=2,
                                   qkv_dim=40, mlp_dim=80, max_len=32, deterministic=True)
    tr = models.Transformer(cfg)
    src = jnp.ones((2, 20), jnp.int32)
    tgt = jnp.ones((2, 24), jnp.int32)
    params = tr.init(jax.random.PRNGKey(0), src, tgt)
    return tr.apply(params, src, tgt)
"""

ENTRY_FLAX_GEMMA = """
import jax.numpy as jnp
from flax import nnx
import modules
import transformer as transformer_lib


def entry():
    config = transformer_lib.TransformerConfig(
        num_layers=2, num_embed=96, embed_dim=48, hidden_dim=80, num_heads=4, head_dim=24, num_kv_heads=2,
        final_logit_softcap=None, attention_types=[modules.AttentionType.GLOBAL, modules.AttentionType.LOCAL_SLIDING],
        sliding_window_size=8, use_post_attn_norm=True, use_post_ffw_norm=True, dropout_rate=0.0)
    t = transformer_lib.Transformer(config=config, rngs=nnx.Rngs(params=0))
    cache = t.init_cache(cache_size=32, batch_size=2, dtype=jnp.float32)
    tokens = jnp.ones((2, 12), jnp.int32)
    pos = jnp.broadcast_to(jnp.arange(12), tokens.shape)
    return t(tokens, pos, cache, jnp.ones((2, 12, 32), dtype=jnp.bool_))
"""

ENTRIES = {
    "nanodo": ENTRY_NANODO,
    "llama3": ENTRY_LLAMA3,
    "qwen3": ENTRY_QWEN3,
    "nanogpt": ENTRY_NANOGPT,
    "easylm": ENTRY_EASYLM,
    "flax_lm1b": ENTRY_FLAX_LM1B,
    "flax_wmt": ENTRY_FLAX_WMT,
    "flax_gemma": ENTRY_FLAX_GEMMA,
}


# ----------------------------------------------------------------------------------------------
# Mutation operators for config-driven model code

AXIS_CALLS = {
    "sum",
    "mean",
    "max",
    "min",
    "argmax",
    "argmin",
    "softmax",
    "log_softmax",
    "logsumexp",
    "concatenate",
    "stack",
    "split",
    "var",
    "std",
    "cumsum",
    "expand_dims",
    "squeeze",
    "take_along_axis",
    "norm",
    "repeat",
    "roll",
    "flip",
    "DenseGeneral",
}
POSITIONAL_AXIS = {"concatenate": 1, "stack": 1, "expand_dims": 1, "squeeze": 1, "argmax": 1, "sum": 1, "mean": 1}
SWAP_CALLS = {"swapaxes", "moveaxis"}
CONFIG_BASES = ("cfg", "config", "docfg", "c", "self.config", "self.cfg", "self.docfg", "self.c")


def int_value(node: ast.expr) -> int | None:
    """The value of an int literal, `-1` included."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = int_value(node.operand)
        return -inner if inner is not None else None
    return None


def other_axis(value: int) -> int:
    return value - 1 if value < 0 else value + 1


def config_base(node: ast.expr) -> str | None:
    """`cfg` of `cfg.embed` (a config object by its usual names), else None."""
    if not isinstance(node, ast.Attribute):
        return None
    base = ast.unparse(node.value)
    if base in CONFIG_BASES or base.endswith(("config", "cfg")):
        return base
    return None


class ConfiguredFinder(Finder):
    """The single-file operators plus those of config-driven model code."""

    def __init__(self, source: bytes) -> None:
        super().__init__(source, allow_module_level=False)
        self.size_fields: dict[str, list[str]] = defaultdict(list)  # config base -> fields used as sizes

    def run(self, tree: ast.Module) -> list[tuple[str, str, str, Edit]]:
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and self.size_context(node):
                base = config_base(node)
                if base is not None and node.attr not in self.size_fields[base]:
                    self.size_fields[base].append(node.attr)
        return super().run(tree)

    def size_context(self, node: ast.expr) -> bool:
        """The expression is (part of) a call argument, a tuple entry or arithmetic: a size, not a flag."""
        parent = self.parents.get(node)
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add | ast.Sub | ast.Mult | ast.FloorDiv):
            return True
        if isinstance(parent, ast.Tuple) and isinstance(self.parents.get(parent), ast.Call | ast.keyword):
            return True
        if isinstance(parent, ast.keyword) and parent.arg in {
            "features",
            "num_heads",
            "num_embeddings",
            "embed_dim",
            "head_dim",
            "hidden_dim",
            "qkv_features",
            "out_features",
            "in_features",
            "shape",
        }:
            return True
        return isinstance(parent, ast.Call) and node in parent.args and call_label(parent) in SIZE_CALLS

    def visit_Call(self, node: ast.Call) -> None:
        name = call_label(node)
        if name in AXIS_CALLS:
            self.axis_mutation(node, name)
        if name in SWAP_CALLS:
            self.swap_mutation(node, name)
        if name in {"swapaxes", "transpose"} and isinstance(node.func, ast.Attribute) and one_line(node):
            receiver = node.func.value
            if one_line(receiver):
                self.add("transpose_missing", name, replace(node, segment(self.lines, receiver)))
        if name == "reshape":
            self.reshape_swap(node)
            self.reshape_size(node)
        for kw in node.keywords:
            if kw.arg == "keepdims" and isinstance(kw.value, ast.Constant) and kw.value.value is True:
                self.add("keepdims_dropped", name, replace(kw.value, "False"))
        super().visit_Call(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        base = config_base(node)
        if base is not None and one_line(node) and self.size_context(node) and isinstance(node.ctx, ast.Load):
            fields = [f for f in self.size_fields[base] if f != node.attr]
            if fields:
                pick = fields[(node.lineno + node.col_offset) % len(fields)]
                self.add("config_field_swap", base, replace(node, f"{base}.{pick}"))
            text = f"{segment(self.lines, node)} + 1"
            if isinstance(self.parents.get(node), ast.BinOp):
                text = f"({text})"
            self.add("size_off_by_one", base, replace(node, text))
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if (
            isinstance(node.value, ast.Attribute)
            and node.value.attr == "shape"
            and one_line(node)
            and isinstance(node.ctx, ast.Load)
        ):
            index = int_value(node.slice)
            if index is not None:
                self.add("shape_index", "shape", replace(node.slice, str(other_axis(index))))
        self.generic_visit(node)

    def axis_mutation(self, node: ast.Call, name: str) -> None:
        target: ast.expr | None = None
        for kw in node.keywords:
            if kw.arg == "axis":
                target = kw.value
        if target is None and name in POSITIONAL_AXIS:
            pos = POSITIONAL_AXIS[name]
            is_method = isinstance(node.func, ast.Attribute) and ast.unparse(node.func.value) not in {
                "jnp",
                "np",
                "jax.numpy",
                "lax",
                "jax.lax",
            }
            pos = pos - 1 if is_method else pos
            if len(node.args) > pos:
                target = node.args[pos]
        if target is None or not one_line(target):
            return
        value = int_value(target)
        if value is not None:
            self.add("axis_changed", name, replace(target, str(other_axis(value))))
        elif isinstance(target, ast.Tuple) and target.elts:
            last = target.elts[-1]
            last_value = int_value(last)
            if last_value is not None and one_line(last):
                self.add("axis_changed", name, replace(last, str(other_axis(last_value))))

    def swap_mutation(self, node: ast.Call, name: str) -> None:
        args = node.args
        if isinstance(node.func, ast.Attribute) and ast.unparse(node.func.value) in {"jnp", "np", "jax.numpy"}:
            args = args[1:]
        if len(args) < 2 or not one_line(args[1]):
            return
        value = int_value(args[1])
        if value is not None:
            self.add("swapaxes_changed", name, replace(args[1], str(other_axis(value))))

    def reshape_mutation(self, node: ast.Call) -> None:
        """Replaced by `reshape_size` (no `-1` entries changed, `n + 1` without parentheses around a name)."""

    def reshape_size(self, node: ast.Call) -> None:
        """One size of a reshape off by one: the last literal > 1, else the last size expression."""
        entries = self.reshape_entries(node)
        literals = [e for e in entries if (int_value(e) or 0) > 1]
        if literals:
            self.add("reshape_size", "reshape", replace(literals[-1], str((int_value(literals[-1]) or 0) + 1)))
            return
        sizes = [e for e in entries if int_value(e) is None]
        if len(entries) < 2 or not sizes:
            return
        target = sizes[-1]
        if isinstance(target, ast.Attribute) and target.attr == "shape":
            return
        text = segment(self.lines, target)
        if not isinstance(target, ast.Name | ast.Attribute | ast.Subscript | ast.Call):
            text = f"({text})"
        self.add("reshape_size", "reshape", replace(target, f"{text} + 1"))

    def reshape_swap(self, node: ast.Call) -> None:
        entries = self.reshape_entries(node)
        sizes = [e for e in entries if int_value(e) is None]
        for first, second in zip(sizes, sizes[1:], strict=False):
            a, b = segment(self.lines, first), segment(self.lines, second)
            if a != b and first.lineno == second.lineno:
                assert second.end_col_offset is not None
                text = self.lines[first.lineno - 1][first.col_offset : second.end_col_offset].decode("utf-8")
                middle = text[len(a) : len(text) - len(b)]
                self.add(
                    "reshape_swap",
                    "reshape",
                    Edit(first.lineno, first.col_offset, second.end_col_offset, b + middle + a),
                )
                return


SIZE_CALLS = {"Dense", "DenseGeneral", "Embed", "zeros", "ones", "full", "empty", "reshape", "normal", "broadcast_to"}


def call_label(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


@dataclass(frozen=True)
class CMutant:
    project: str
    file: str  # relative to the project directory
    line: int
    kind: str
    context: str
    before: str
    after: str


def find_candidates(
    project: str,
    rel: str,
    source: str,
    skip: tuple[str, ...] = ("spec_", "collective_", "carry_"),
    extra: Callable[[ast.Module, bytes], list[tuple[str, str, Edit]]] | None = None,
) -> list[tuple[CMutant, str]]:
    """Mutants of one file (`skip`: kinds left out, by prefix; `extra`: more (kind, context, edit) found in the
    tree); each with the mutated text."""
    raw = source.encode("utf-8")
    try:
        tree = ast.parse(raw)
    except (SyntaxError, ValueError):
        return []
    finder = ConfiguredFinder(raw)
    lines = raw.splitlines(keepends=True)
    seen: set[tuple[int, int, int, str]] = set()
    out: list[tuple[CMutant, str]] = []
    found = [(kind, context, edit) for _function, kind, context, edit in finder.run(tree)]
    if extra is not None:
        found.extend(extra(tree, raw))
    for kind, context, edit in found:
        key = (edit.line, edit.start, edit.end, edit.text)
        if key in seen or (skip and kind.startswith(skip)):
            continue  # sharding-spec mutants belong to the other modes; here: shapes of config-driven code
        seen.add(key)
        old = lines[edit.line - 1]
        new = old[: edit.start] + edit.text.encode("utf-8") + old[edit.end :]
        mutated = b"".join([*lines[: edit.line - 1], new, *lines[edit.line :]]).decode("utf-8")
        try:
            ast.parse(mutated)
        except SyntaxError:
            continue
        before, after = old.decode("utf-8").strip(), new.decode("utf-8").strip()
        out.append((CMutant(project, rel, edit.line, kind, context, before, after), mutated))
    return out


# ----------------------------------------------------------------------------------------------
# Running drivers

DRIVER_RUNNER = """
import json, os, sys, traceback
root, driver = sys.argv[1], sys.argv[2]
sys.path.insert(0, root)
os.chdir(root)
try:
    exec(compile(open(driver, encoding='utf-8').read(), '<driver>', 'exec'), {'__name__': '__driver__'})
    print(json.dumps(['ok', '', []]))
except BaseException as exc:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ''
    frames = traceback.extract_tb(exc.__traceback__)
    own = [[os.path.relpath(f.filename, root), f.lineno] for f in frames if f.filename.startswith(root)]
    kind = type(exc).__name__
    if isinstance(exc, AssertionError) and frames and frames[-1].filename == '<driver>':
        kind = 'DriverAssertion'
    print(json.dumps([kind, first[:300], own]))
"""


@dataclass
class DriverResult:
    error: str  # exception class name, "ok", "timeout" or "died"
    message: str
    frames: list[list[object]] = field(default_factory=list)

    @property
    def raised(self) -> bool:
        return self.error not in {"ok", "timeout", "died", "DriverAssertion"} and self.error not in INVALID_ERRORS


def run_driver(root: Path, driver_file: Path, timeout: float = DRIVER_TIMEOUT) -> DriverResult:
    env = dict(os.environ, XLA_FLAGS=XLA_FLAGS, JAX_PLATFORMS="cpu", JAX_TRACEBACK_FILTERING="off")
    env.pop("PYTHONPATH", None)
    cmd = [sys.executable, "-c", DRIVER_RUNNER, str(root), str(driver_file)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return DriverResult("timeout", f"over {timeout:.0f} s")
    for line in reversed(proc.stdout.splitlines()):
        try:
            kind, message, frames = json.loads(line)
        except (json.JSONDecodeError, ValueError):
            continue
        return DriverResult(str(kind), str(message), list(frames))
    return DriverResult("died", f"rc={proc.returncode}: {proc.stderr.strip()[-300:]}")


def tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


# ----------------------------------------------------------------------------------------------
# Sources


def default_source_dir(name: str) -> Path:
    base = os.environ.get(SOURCES_ENV) or str(Path.home() / ".cache" / "namedcheck-bench" / "sources")
    return Path(base) / name


def resolve_sources(
    given: Sequence[str], base: Path, timeout: float, sources: Iterable[str] | None = None
) -> dict[str, Path | None]:
    """Each source NAME (of `sources`, default this mode's projects') -> its directory (None: missing)."""
    named: dict[str, Path] = {}
    for item in given:
        name, sep, directory = item.partition("=")
        if not sep:
            raise SystemExit(f"--source takes NAME=DIR, not {item!r}")
        named[name] = Path(directory).expanduser().resolve()
    out: dict[str, Path | None] = {}
    for name in sorted(sources if sources is not None else {p.source for p in PROJECTS}):
        if name in named:
            out[name] = named[name]
        elif default_source_dir(name).is_dir():
            out[name] = default_source_dir(name)
        elif name == "flax":
            out[name] = flax_sdist(base, timeout)
        else:
            out[name] = None
    return out


# ----------------------------------------------------------------------------------------------
# Scoring


@dataclass
class Outcome:
    mutant: CMutant
    error: str
    message: str
    where: str = "missed"  # "line", "near" or "missed"
    new_diagnostics: list[str] = field(default_factory=list)
    where_entry: str = ""  # the same with the concrete entry point (--with-entry)
    new_with_entry: list[str] = field(default_factory=list)


@dataclass
class ProjectRun:
    spec: ProjectSpec
    problem: str = ""
    candidates: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    baseline: list[str] = field(default_factory=list)
    baseline_entry: list[str] | None = None
    outcomes: list[Outcome] = field(default_factory=list)


def diag_text(d: Diagnostic, root: Path) -> str:
    return f"{rel(d.path, root)}:{d.line}:{d.column}: {d.code} {d.message}"


def rel(path: str, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(root.resolve()))
    except ValueError:
        return path


def classify(
    mutant: CMutant, root: Path, base: Sequence[Diagnostic], base_root: Path, mutated: Sequence[Diagnostic]
) -> tuple[str, list[Diagnostic]]:
    before = {(rel(d.path, base_root), d.line, d.code, d.message) for d in base}
    new = [
        d
        for d in mutated
        if d.code not in INTERNAL_CODES and (rel(d.path, root), d.line, d.code, d.message) not in before
    ]
    same_file = [d for d in new if rel(d.path, root) == mutant.file]
    if any(d.line == mutant.line for d in same_file):
        return "line", new
    near = any(abs(d.line - mutant.line) <= NEAR_LINES for d in same_file) or any(
        r.line == mutant.line and rel(r.path, root) == mutant.file for d in new for r in d.related
    )
    return ("near" if near else "missed"), new


def choose(candidates: list[tuple[CMutant, str]], limit: int, seed: str) -> list[tuple[CMutant, str]]:
    """At most `limit` candidates: a seeded shuffle of each mutation kind, the kinds taken in turn."""
    rng = random.Random(seed)
    by_kind: dict[str, list[tuple[CMutant, str]]] = defaultdict(list)
    for item in candidates:
        by_kind[item[0].kind].append(item)
    queues = []
    for kind in sorted(by_kind):
        items = by_kind[kind]
        rng.shuffle(items)
        queues.append(items)
    out: list[tuple[CMutant, str]] = []
    while len(out) < limit and any(queues):
        for queue in queues:
            if queue and len(out) < limit:
                out.append(queue.pop(0))
    return out


def run_project(
    spec: ProjectSpec, source: Path, work: Path, checker: str, args: argparse.Namespace, cache: dict[str, list[object]]
) -> ProjectRun:
    result = ProjectRun(spec)
    src = source / spec.subdir if spec.subdir else source
    if not src.is_dir():
        result.problem = f"no directory {src}"
        return result
    base = work / "base" / spec.name
    if base.exists():
        shutil.rmtree(base)
    shutil.copytree(src, base, ignore=shutil.ignore_patterns(".git", "__pycache__"))
    driver_file = work / "drivers" / f"{spec.name}.py"
    driver_file.parent.mkdir(parents=True, exist_ok=True)
    driver_file.write_text(spec.driver)
    clean = run_driver(base, driver_file)
    if clean.error != "ok":
        result.problem = f"the unmutated project fails its driver: {clean.error}: {clean.message}"
        return result
    base_run = run_checker(checker, [base], args.timeout, cwd=base)
    if base_run.error:
        result.problem = f"checker failed on the unmutated project: {base_run.error[-300:]}"
        return result
    result.baseline = [diag_text(d, base) for d in base_run.diagnostics]
    entry_text = ENTRIES.get(spec.name) if args.with_entry else None
    entry_diags: list[Diagnostic] = []
    if entry_text is not None:
        entry_base = work / "base_entry" / spec.name
        if entry_base.exists():
            shutil.rmtree(entry_base)
        link_tree(base, entry_base)
        (entry_base / ENTRY_FILE).write_text(entry_text)
        entry_run = run_checker(checker, [entry_base], args.timeout, cwd=entry_base)
        entry_diags = entry_run.diagnostics
        result.baseline_entry = [diag_text(d, entry_base) for d in entry_diags]
        if entry_run.error:
            result.baseline_entry.append(f"checker failed: {entry_run.error[-300:]}")

    candidates: list[tuple[CMutant, str]] = []
    for rel_file in spec.model_files:
        path = base / rel_file
        if path.exists():
            candidates.extend(find_candidates(spec.name, rel_file, path.read_text(encoding="utf-8")))
    candidates = choose(candidates, args.limit, f"{args.seed}:{spec.name}")
    result.candidates = len(candidates)
    source_key = tree_hash(base) + hashlib.sha256(spec.driver.encode()).hexdigest()

    def verify(i: int) -> DriverResult:
        mutant, text = candidates[i]
        key = hashlib.sha256(f"{source_key}:{mutant.file}:{text}".encode()).hexdigest()
        if key in cache:
            kind, message, frames = cache[key]
            return DriverResult(str(kind), str(message), list(frames))  # type: ignore[arg-type]
        root = work / "mut" / spec.name / str(i)
        if root.exists():
            shutil.rmtree(root)
        link_tree(base, root)
        target = root / mutant.file
        target.unlink()
        target.write_text(text, encoding="utf-8")
        res = run_driver(root, driver_file)
        cache[key] = [res.error, res.message, res.frames]
        return res

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        verdicts = list(pool.map(verify, range(len(candidates))))
    kept: list[int] = []
    for i, res in enumerate(verdicts):
        if res.raised:
            kept.append(i)
        else:
            result.rejected["not raised" if res.error in {"ok", "DriverAssertion"} else res.error] += 1

    def check(i: int) -> Outcome:
        mutant, text = candidates[i]
        root = work / "mut" / spec.name / str(i)
        if not root.exists():  # verified from the cache
            link_tree(base, root)
            target = root / mutant.file
            target.unlink()
            target.write_text(text, encoding="utf-8")
        run = run_checker(checker, [root], args.timeout, cwd=root)
        res = verdicts[i]
        outcome = Outcome(mutant, res.error, res.message)
        if run.error:
            outcome.where = "missed"
            outcome.new_diagnostics = [f"checker failed: {run.error[-200:]}"]
            return outcome
        outcome.where, new = classify(mutant, root, base_run.diagnostics, base, run.diagnostics)
        outcome.new_diagnostics = [diag_text(d, root) for d in new]
        if entry_text is not None:
            (root / ENTRY_FILE).write_text(entry_text)
            run = run_checker(checker, [root], args.timeout, cwd=root)
            outcome.where_entry, new = classify(
                mutant, root, entry_diags, work / "base_entry" / spec.name, run.diagnostics
            )
            outcome.new_with_entry = [diag_text(d, root) for d in new]
        return outcome

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        result.outcomes = list(pool.map(check, kept))
    shutil.rmtree(work / "mut" / spec.name, ignore_errors=True)
    return result


# ----------------------------------------------------------------------------------------------
# Report


def figures(outcomes: Sequence[Outcome]) -> str:
    n = len(outcomes)
    at = sum(1 for o in outcomes if o.where == "line")
    near = sum(1 for o in outcomes if o.where == "near")
    missed = n - at - near
    elsewhere = sum(1 for o in outcomes if o.where == "missed" and o.new_diagnostics)
    share = f"{100 * at / n:5.1f}%" if n else "    -"
    return f"{n:>8} {at:>7} {share:>7} {near:>6} {missed:>7} {elsewhere:>9}"


def report(runs: Sequence[ProjectRun], show_missed: bool) -> None:
    print(
        f"{'project':<12} {'tried':>6} {'verified':>8} {'at line':>7} {'share':>7} {'near':>6} {'missed':>7}  false alarms"
    )
    everything: list[Outcome] = []
    for run in runs:
        if run.problem:
            print(f"{run.spec.name:<12} SKIPPED: {run.problem}")
            continue
        everything.extend(run.outcomes)
        print(f"{run.spec.name:<12} {run.candidates:>6} {figures(run.outcomes)}  {len(run.baseline)}")
    tried = sum(r.candidates for r in runs if not r.problem)
    alarms = sum(len(r.baseline) for r in runs if not r.problem)
    print(f"{'TOTAL':<12} {tried:>6} {figures(everything)}  {alarms}")

    print(
        f"\n{'mutation kind':<20} {'verified':>8} {'at line':>7} {'share':>7} {'near':>6} {'missed':>7} {'elsewhere':>9}"
    )
    by_kind: dict[str, list[Outcome]] = defaultdict(list)
    for o in everything:
        by_kind[o.mutant.kind].append(o)
    for kind in sorted(by_kind):
        print(f"{kind:<20} {figures(by_kind[kind])}")

    if any(r.baseline_entry is not None for r in runs):
        print("\nwith a concrete entry point (--with-entry: the driver's config as plain calls, added to the tree):")
        print(
            f"{'project':<12} {'verified':>8} {'at line':>7} {'share':>7} {'near':>6} {'missed':>7} {'elsewhere':>9}  false alarms"
        )
        for run in runs:
            if run.problem or run.baseline_entry is None:
                continue
            moved = [Outcome(o.mutant, o.error, o.message, o.where_entry, o.new_with_entry) for o in run.outcomes]
            print(f"{run.spec.name:<12} {figures(moved)}  {len(run.baseline_entry)}")
        moved = [
            Outcome(o.mutant, o.error, o.message, o.where_entry, o.new_with_entry) for o in everything if o.where_entry
        ]
        alarms_entry = sum(len(r.baseline_entry or []) for r in runs if not r.problem)
        print(f"{'TOTAL':<12} {figures(moved)}  {alarms_entry}")

    print("\nrejected candidates (the driver did not raise, or raised an import / syntax / name error):")
    for run in runs:
        if not run.problem:
            print(f"  {run.spec.name:<12} " + ", ".join(f"{k} {v}" for k, v in run.rejected.most_common()))
    errors = Counter(o.error for o in everything)
    print("errors JAX raised on the verified mutants: " + ", ".join(f"{k} {v}" for k, v in errors.most_common()))

    print("\ndiagnostics on the unmutated projects (false alarms):")
    for run in runs:
        if run.problem:
            continue
        print(f"  {run.spec.name}: {len(run.baseline)}")
        for text in run.baseline:
            print(f"    {text}")
        if run.baseline_entry:
            print(f"  {run.spec.name} with the entry point: {len(run.baseline_entry)}")
            for text in run.baseline_entry:
                print(f"    {text}")
    if show_missed:
        for label, where in (("near the line", "near"), ("missed", "missed")):
            chosen = [o for o in everything if o.where == where]
            print(f"\n{label} ({len(chosen)}):")
            for o in chosen:
                m = o.mutant
                print(f"  {m.project}/{m.file}:{m.line} [{m.kind}] {m.before}  ->  {m.after}")
                print(f"      JAX: {o.error}: {o.message}")
                for text in o.new_diagnostics[:3]:
                    print(f"      new: {text}")
                if o.where_entry:
                    print(f"      with the entry point: {o.where_entry}")
                    for text in o.new_with_entry[:2]:
                        print(f"      new with the entry point: {text}")


def dump(runs: Sequence[ProjectRun], out: Path) -> None:
    data = []
    for run in runs:
        data.append(
            {
                "project": run.spec.name,
                "problem": run.problem,
                "candidates": run.candidates,
                "rejected": dict(run.rejected),
                "false_alarms": run.baseline,
                "false_alarms_with_entry": run.baseline_entry,
                "mutants": [
                    {
                        **asdict(o.mutant),
                        "error": o.error,
                        "message": o.message,
                        "where": o.where,
                        "new_diagnostics": o.new_diagnostics,
                        "where_with_entry": o.where_entry,
                        "new_with_entry": o.new_with_entry,
                    }
                    for o in run.outcomes
                ],
            }
        )
    out.write_text(json.dumps(data, indent=1))


def configured_mode(args: argparse.Namespace) -> int:
    checker: str = args.checker or default_checker()
    work, cleanup = workdir(args.keep)
    cache_file = work / "configured_verify.json"
    cache: dict[str, list[object]] = {}
    if cache_file.exists():
        try:
            cache = json.loads(cache_file.read_text())
        except json.JSONDecodeError:
            cache = {}
    try:
        sources = resolve_sources(args.source or [], work, args.install_timeout)
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
            runs.append(run_project(spec, source, work, checker, args, cache))
            cache_file.write_text(json.dumps(cache))
        report(runs, args.show_missed)
        if args.json_out:
            dump(runs, Path(args.json_out))
    finally:
        cleanup()
    return 0
