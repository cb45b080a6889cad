"""Explicit-axis sharding errors at the line to edit: recall and false alarms on programs in the style of model code.

Each program is two modules: `layers.py` holds the model code (a dense layer, attention, a loss, a shard_map
body), `train.py` places arrays (`device_put`, `reshard`, `jit(in_shardings=)`, creation under `jax.set_mesh`)
and passes them in. One rule family per program; each mutant changes one line (usually a placement in
`train.py`), which is the line a user must edit. The programs are written from the templates below into a
temporary directory at run time; every correct program runs under the installed JAX (8 forced CPU devices)
without raising, and a mutant is kept only when JAX raises on it.

    python bench/sharding_lines.py [--only NAME ...] [--keep DIR] [--show] [--json-out FILE]

Printed: per program and mutant whether the checker reports at the edited line (a diagnostic there, or a
related location there), within two lines of it, anywhere, or not at all; the shares over the kept mutants;
and every diagnostic on the correct programs (false alarms). A mutant JAX does not reject, or a correct
program JAX rejects, is listed and left out of the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HEAD = """\
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, reshard
from jax.sharding import PartitionSpec as P
"""

MESH = """\
mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)
"""


@dataclass(frozen=True)
class Mutant:
    """One edit: `old` (a whole line's text, stripped) in `file` replaced by `new`."""

    file: str
    old: str
    new: str


@dataclass(frozen=True)
class Program:
    name: str
    family: str
    layers: str
    train: str
    mutants: tuple[Mutant, ...] = field(default_factory=tuple)

    def files(self) -> dict[str, str]:
        layers = textwrap.dedent(self.layers).strip()
        names = ", ".join(re.findall(r"^(?:def|class) (\w+)", layers, re.M))
        return {
            "layers.py": HEAD + "\n\n" + layers + "\n",
            "train.py": HEAD + f"\nfrom layers import {names}\n\n" + MESH + textwrap.dedent(self.train).strip() + "\n",
        }


def _m(file: str, old: str, new: str) -> Mutant:
    return Mutant(file, old, new)


PROGRAMS: tuple[Program, ...] = (
    Program(
        "mlp_dot",
        "dot contraction",
        """
        def mlp(x, w_in, w_out):
            h = jax.nn.relu(x @ w_in)
            return jnp.dot(h, w_out, out_sharding=P('data', None))
        """,
        """
        x = jax.device_put(jnp.ones((8, 16)), P('data', None))
        w_in = jax.device_put(jnp.ones((16, 32)), P(None, 'model'))
        w_out = jax.device_put(jnp.ones((32, 16)), P('model', None))
        y = mlp(x, w_in, w_out)
        """,
        (
            _m(
                "train.py",
                "w_in = jax.device_put(jnp.ones((16, 32)), P(None, 'model'))",
                "w_in = jax.device_put(jnp.ones((16, 32)), P('data', 'model'))",
            ),
            _m(
                "train.py",
                "x = jax.device_put(jnp.ones((8, 16)), P('data', None))",
                "x = jax.device_put(jnp.ones((8, 16)), P('model', None))",
            ),
        ),
    ),
    Program(
        "attention_einsum",
        "einsum contraction",
        """
        def attention_scores(q, k):
            return jnp.einsum('btd,bsd->bts', q, k)
        """,
        """
        q = jax.device_put(jnp.ones((8, 4, 16)), P('data', None, None))
        k = jax.device_put(jnp.ones((8, 4, 16)), P('data', None, None))
        scores = attention_scores(q, k)
        """,
        (
            _m(
                "train.py",
                "k = jax.device_put(jnp.ones((8, 4, 16)), P('data', None, None))",
                "k = jax.device_put(jnp.ones((8, 4, 16)), P('model', None, None))",
            ),
            _m(
                "train.py",
                "q = jax.device_put(jnp.ones((8, 4, 16)), P('data', None, None))",
                "q = jax.device_put(jnp.ones((8, 4, 16)), P('data', None, 'model'))",
            ),
        ),
    ),
    Program(
        "residual_add",
        "elementwise",
        """
        def residual(x, branch):
            return x + jnp.tanh(branch)
        """,
        """
        x = jax.device_put(jnp.ones((8, 16)), P('data', None))
        branch = jax.device_put(jnp.ones((8, 16)), P('data', None))
        out = residual(x, branch)
        """,
        (
            _m(
                "train.py",
                "branch = jax.device_put(jnp.ones((8, 16)), P('data', None))",
                "branch = jax.device_put(jnp.ones((8, 16)), P('model', None))",
            ),
            _m(
                "train.py",
                "branch = jax.device_put(jnp.ones((8, 16)), P('data', None))",
                "branch = jax.device_put(jnp.ones((8, 16)), P(None, 'data'))",
            ),
        ),
    ),
    Program(
        "sgd_reshard",
        "elementwise after reshard",
        """
        def sgd(params, grads, lr=0.1):
            return jax.tree.map(lambda p, g: p - lr * g, params, grads)
        """,
        """
        w = jax.device_put(jnp.ones((8, 16)), P('data', None))
        g = jax.device_put(jnp.ones((8, 16)), P(None, 'model'))
        g = reshard(g, P('data', None))
        new = sgd({'w': w}, {'w': g})
        """,
        (_m("train.py", "g = reshard(g, P('data', None))", "g = reshard(g, P('model', None))"),),
    ),
    Program(
        "split_heads_reshape",
        "reshape of sharded dims",
        """
        def merge_heads(x):
            b, t, h, d = x.shape
            return x.reshape(b, t, h * d)
        """,
        """
        x = jax.device_put(jnp.ones((8, 4, 2, 8)), P('data', None, None, None))
        merged = merge_heads(x)
        """,
        (
            _m(
                "train.py",
                "x = jax.device_put(jnp.ones((8, 4, 2, 8)), P('data', None, None, None))",
                "x = jax.device_put(jnp.ones((8, 4, 2, 8)), P('data', None, None, 'model'))",
            ),
        ),
    ),
    Program(
        "cumsum_reduction",
        "reduction along a sharded dim",
        """
        def running_total(x):
            return jnp.cumsum(x, axis=1)
        """,
        """
        x = jax.device_put(jnp.ones((8, 16)), P('data', None))
        totals = running_total(x)
        """,
        (
            _m(
                "train.py",
                "x = jax.device_put(jnp.ones((8, 16)), P('data', None))",
                "x = jax.device_put(jnp.ones((8, 16)), P('data', 'model'))",
            ),
        ),
    ),
    Program(
        "sort_logits",
        "sort along a sharded dim",
        """
        def top_logits(logits):
            return jnp.sort(logits, axis=-1)
        """,
        """
        logits = jax.device_put(jnp.ones((8, 16)), P('data', None))
        ranked = top_logits(logits)
        """,
        (
            _m(
                "train.py",
                "logits = jax.device_put(jnp.ones((8, 16)), P('data', None))",
                "logits = jax.device_put(jnp.ones((8, 16)), P(None, 'data'))",
            ),
        ),
    ),
    Program(
        "embed_gather",
        "indexing / gather",
        """
        @jax.jit
        def embed(table, ids):
            return table.at[ids].get(out_sharding=P('data', None))
        """,
        """
        table = jax.device_put(jnp.ones((32, 16)), P(None, None))
        ids = jax.device_put(jnp.arange(8), P('data'))
        h = embed(table, ids)
        """,
        (
            _m(
                "train.py",
                "table = jax.device_put(jnp.ones((32, 16)), P(None, None))",
                "table = jax.device_put(jnp.ones((32, 16)), P(None, 'data'))",
            ),
        ),
    ),
    Program(
        "loss_mean",
        "elementwise in a loss",
        """
        def mse(pred, target):
            return jnp.mean((pred - target) ** 2)
        """,
        """
        pred = jax.device_put(jnp.ones((8, 16)), P('data', None))
        target = jax.device_put(jnp.zeros((8, 16)), P('data', None))
        loss = mse(pred, target)
        """,
        (
            _m(
                "train.py",
                "target = jax.device_put(jnp.zeros((8, 16)), P('data', None))",
                "target = jax.device_put(jnp.zeros((8, 16)), P('model', None))",
            ),
        ),
    ),
    Program(
        "jit_step_in_shardings",
        "jit in_shardings",
        """
        def step(w, x):
            return x @ w
        """,
        """
        batch = NamedSharding(mesh, P('data', None))
        train_step = jax.jit(step, in_shardings=(NamedSharding(mesh, P(None, None)), batch))
        w = jax.device_put(np.ones((16, 4), np.float32), P(None, None))
        x = jax.device_put(np.ones((8, 16), np.float32), P('data', None))
        out = train_step(w, x)
        """,
        (
            _m(
                "train.py",
                "x = jax.device_put(np.ones((8, 16), np.float32), P('data', None))",
                "x = jax.device_put(np.ones((8, 16), np.float32), P('model', None))",
            ),
        ),
    ),
    Program(
        "shard_map_sum",
        "shard_map varying sets",
        """
        def local_sum(x):
            return jax.lax.psum(x.sum(axis=0, keepdims=True), 'data')


        def global_sum(x, mesh):
            return jax.shard_map(local_sum, mesh=mesh, in_specs=P('data', None), out_specs=P(None, None))(x)
        """,
        """
        x = jax.device_put(jnp.ones((8, 16)), P('data', None))
        total = global_sum(x, mesh)
        """,
        (
            _m(
                "layers.py",
                "return jax.lax.psum(x.sum(axis=0, keepdims=True), 'data')",
                "return x.sum(axis=0, keepdims=True)",
            ),
        ),
    ),
    Program(
        "scan_carry_sharding",
        "scan carry sharding",
        """
        def accumulate(h0, xs):
            def body(h, x):
                return h + x, h.sum()
            return jax.lax.scan(body, h0, xs)
        """,
        """
        h0 = jax.device_put(jnp.zeros((8, 16)), P('data', None))
        xs = jax.device_put(jnp.ones((3, 8, 16)), P(None, 'data', None))
        h, sums = accumulate(h0, xs)
        """,
        (
            _m(
                "train.py",
                "h0 = jax.device_put(jnp.zeros((8, 16)), P('data', None))",
                "h0 = jax.device_put(jnp.zeros((8, 16)), P(None, None))",
            ),
        ),
    ),
    Program(
        "constraint_assert",
        "with_sharding_constraint",
        """
        def layer(x):
            return jax.lax.with_sharding_constraint(x * 2, P('data', None))
        """,
        """
        x = jax.device_put(jnp.ones((8, 16)), P('data', None))
        y = layer(x)
        """,
        (
            _m(
                "train.py",
                "x = jax.device_put(jnp.ones((8, 16)), P('data', None))",
                "x = jax.device_put(jnp.ones((8, 16)), P('model', None))",
            ),
        ),
    ),
    Program(
        "dynamic_update",
        "dynamic update slice",
        """
        def write_cache(cache, new):
            return jax.lax.dynamic_update_slice(cache, new, (0, 0))
        """,
        """
        cache = jax.device_put(jnp.zeros((8, 16)), P('data', None))
        new = jax.device_put(jnp.ones((8, 16)), P('data', None))
        cache = write_cache(cache, new)
        """,
        (
            _m(
                "train.py",
                "new = jax.device_put(jnp.ones((8, 16)), P('data', None))",
                "new = jax.device_put(jnp.ones((8, 16)), P('model', None))",
            ),
        ),
    ),
    Program(
        "where_mask",
        "select",
        """
        def masked(x, mask):
            return jnp.where(mask, x, 0.0)
        """,
        """
        x = jax.device_put(jnp.ones((8, 16)), P('data', None))
        mask = jax.device_put(jnp.ones((8, 16), bool), P('data', None))
        y = masked(x, mask)
        """,
        (
            _m(
                "train.py",
                "mask = jax.device_put(jnp.ones((8, 16), bool), P('data', None))",
                "mask = jax.device_put(jnp.ones((8, 16), bool), P('model', None))",
            ),
        ),
    ),
    Program(
        "sharding_defined_apart",
        "elementwise, sharding built on its own line",
        """
        def gated(x, gate):
            return x * jax.nn.sigmoid(gate)
        """,
        """
        batch_sharding = NamedSharding(mesh, P('data', None))
        gate_sharding = NamedSharding(mesh, P('data', None))
        x = jax.device_put(jnp.ones((8, 16)), batch_sharding)
        gate = jax.device_put(jnp.ones((8, 16)), gate_sharding)
        y = gated(x, gate)
        """,
        (
            _m(
                "train.py",
                "gate_sharding = NamedSharding(mesh, P('data', None))",
                "gate_sharding = NamedSharding(mesh, P('model', None))",
            ),
        ),
    ),
    Program(
        "params_tree_put",
        "device_put of a parameter tree",
        """
        def dense(params, x):
            return x @ params['w'] + params['b']
        """,
        """
        params = {'w': jnp.ones((16, 4)), 'b': jnp.zeros((4,))}
        params = jax.device_put(
            params,
            {
                'w': P(None, 'model'),
                'b': P('model'),
            },
        )
        x = jax.device_put(jnp.ones((8, 16)), P('data', None))
        y = dense(params, x)
        """,
        (_m("train.py", "'b': P('model'),", "'b': P('data'),"),),
    ),
    Program(
        "init_in_helper",
        "placement inside the library's init",
        """
        SPECS = {
            'w': P(None, 'model'),
            'b': P('model'),
        }


        def init(key):
            w = jax.random.normal(key, (16, 4))
            b = jnp.zeros((4,))
            return {'w': jax.device_put(w, SPECS['w']), 'b': jax.device_put(b, SPECS['b'])}


        def apply(params, x):
            return x @ params['w'] + params['b']
        """,
        """
        params = init(jax.random.key(0))
        x = jax.device_put(jnp.ones((8, 16)), P('data', None))
        y = apply(params, x)
        """,
        (_m("layers.py", "'b': P('model'),", "'b': P('data'),"),),
    ),
    Program(
        "helper_called_twice",
        "elementwise, one helper called from two sites",
        """
        def combine(a, b):
            return a * b + a
        """,
        """
        x = jax.device_put(jnp.ones((8, 16)), P('data', None))
        y = jax.device_put(jnp.ones((8, 16)), P('data', None))
        z = jax.device_put(jnp.ones((8, 16)), P('data', None))
        first = combine(x, y)
        second = combine(x, z)
        """,
        (
            _m(
                "train.py",
                "z = jax.device_put(jnp.ones((8, 16)), P('data', None))",
                "z = jax.device_put(jnp.ones((8, 16)), P('model', None))",
            ),
        ),
    ),
    Program(
        "jit_in_shardings_entry",
        "jit in_shardings gives the argument its sharding",
        """
        def scale_add(x, y):
            return x * 2 + y
        """,
        """
        step = jax.jit(
            scale_add,
            in_shardings=(
                NamedSharding(mesh, P('data', None)),
                NamedSharding(mesh, P('data', None)),  # y
            ),
        )
        out = step(np.ones((8, 16), np.float32), np.ones((8, 16), np.float32))
        """,
        (_m("train.py", "NamedSharding(mesh, P('data', None)),  # y", "NamedSharding(mesh, P('model', None)),  # y"),),
    ),
    Program(
        "out_sharding_in_caller",
        "elementwise with a result placed by out_sharding=",
        """
        def add_bias(h, bias):
            return h + bias
        """,
        """
        x = jax.device_put(jnp.ones((8, 16)), P('data', None))
        w = jax.device_put(jnp.ones((16, 32)), P(None, None))
        h = jnp.dot(x, w, out_sharding=P('data', None))
        bias = jax.device_put(jnp.ones((8, 32)), P('data', None))
        y = add_bias(h, bias)
        """,
        (
            _m(
                "train.py",
                "h = jnp.dot(x, w, out_sharding=P('data', None))",
                "h = jnp.dot(x, w, out_sharding=P('model', None))",
            ),
        ),
    ),
    Program(
        "method_on_module",
        "a model class holding placed weights",
        """
        class Linear:
            def __init__(self, w, b):
                self.w = w
                self.b = b

            def __call__(self, x):
                return x @ self.w + self.b
        """,
        """
        w = jax.device_put(jnp.ones((16, 4)), P(None, 'model'))
        b = jax.device_put(jnp.zeros((4,)), P('model'))
        layer = Linear(w, b)
        x = jax.device_put(jnp.ones((8, 16)), P('data', None))
        y = layer(x)
        """,
        (
            _m(
                "train.py",
                "b = jax.device_put(jnp.zeros((4,)), P('model'))",
                "b = jax.device_put(jnp.zeros((4,)), P('data'))",
            ),
        ),
    ),
    Program(
        "created_under_set_mesh",
        "arrays made under jax.set_mesh (replicated, committed)",
        """
        def write_rows(state, rows):
            return jax.lax.dynamic_update_slice(state, rows, (0, 0))
        """,
        """
        state = jnp.zeros((8, 16))
        rows = jnp.ones((4, 16))
        state = write_rows(state, rows)
        """,
        (
            _m("train.py", "rows = jnp.ones((4, 16))", "rows = jax.device_put(jnp.ones((4, 16)), P('data', None))"),
            _m("train.py", "state = jnp.zeros((8, 16))", "state = jax.device_put(jnp.zeros((8, 16)), P('data', None))"),
        ),
    ),
    Program(
        "jitted_helper",
        "elementwise inside a jitted helper",
        """
        @jax.jit
        def loss_fn(logits, labels):
            return -jnp.sum(labels * jax.nn.log_softmax(logits, axis=-1), axis=-1).mean()
        """,
        """
        logits = jax.device_put(jnp.ones((8, 16)), P('data', None))
        labels = jax.device_put(jnp.ones((8, 16)), P('data', None))
        loss = loss_fn(logits, labels)
        """,
        (
            _m(
                "train.py",
                "labels = jax.device_put(jnp.ones((8, 16)), P('data', None))",
                "labels = jax.device_put(jnp.ones((8, 16)), P(None, 'data'))",
            ),
        ),
    ),
    Program(
        "shard_map_carry",
        "shard_map loop carry",
        """
        def body(x):
            def step(i, acc):
                return acc + x
            return jax.lax.fori_loop(0, 3, step, jnp.zeros_like(x))


        def run(x, mesh):
            return jax.shard_map(body, mesh=mesh, in_specs=P('data', None), out_specs=P('data', None))(x)
        """,
        """
        x = jax.device_put(jnp.ones((8, 16)), P('data', None))
        y = run(x, mesh)
        """,
        (
            _m(
                "layers.py",
                "return jax.lax.fori_loop(0, 3, step, jnp.zeros_like(x))",
                "return jax.lax.fori_loop(0, 3, step, jnp.zeros(x.shape))",
            ),
        ),
    ),
    Program(
        "reshard_spec_variable",
        "reshard to a spec named on its own line",
        """
        def mix(a, b):
            return a * b
        """,
        """
        act_spec = P('data', None)
        a = jax.device_put(jnp.ones((8, 16)), P('data', None))
        b = jax.device_put(jnp.ones((8, 16)), P(None, None))
        b = reshard(b, act_spec)
        y = mix(a, b)
        """,
        (_m("train.py", "act_spec = P('data', None)", "act_spec = P(None, 'data')"),),
    ),
    Program(
        "sgd_typeof_spec",
        "reshard to the parameter's own spec (the issue's SGD update)",
        """
        def sgd(params, grads, lr=0.1):
            return jax.tree.map(lambda p, g: p - lr * reshard(g, jax.typeof(p).sharding.spec), params, grads)


        def sgd_plain(params, grads, lr=0.1):
            return jax.tree.map(lambda p, g: p - lr * g, params, grads)
        """,
        """
        w = jax.device_put(jnp.ones((8, 16)), P('data', None))
        g = jax.device_put(jnp.ones((8, 16)), P('model', None))
        new = sgd({'w': w}, {'w': g})
        g2 = jax.device_put(jnp.ones((8, 16)), P('data', None))
        new2 = sgd_plain({'w': w}, {'w': g2})
        """,
        (
            _m(
                "train.py",
                "g2 = jax.device_put(jnp.ones((8, 16)), P('data', None))",
                "g2 = jax.device_put(jnp.ones((8, 16)), P('model', None))",
            ),
        ),
    ),
    Program(
        "stack_layer_params",
        "jnp.stack of layer parameters",
        """
        def stack_layers(layers):
            return jnp.stack([layer['w'] for layer in layers])
        """,
        """
        w0 = jax.device_put(jnp.ones((16, 16)), P(None, 'model'))
        w1 = jax.device_put(jnp.ones((16, 16)), P(None, 'model'))
        stacked = stack_layers([{'w': w0}, {'w': w1}])
        """,
        (
            _m(
                "train.py",
                "w1 = jax.device_put(jnp.ones((16, 16)), P(None, 'model'))",
                "w1 = jax.device_put(jnp.ones((16, 16)), P('model', None))",
            ),
        ),
    ),
    Program(
        "eager_batch_slice",
        "eager slicing of a sharded batch",
        """
        def first_rows(batch, n):
            return batch[:n]
        """,
        """
        batch = jax.device_put(jnp.ones((16, 8)), P(None, 'data'))
        head = first_rows(batch, 8)
        """,
        (
            _m(
                "train.py",
                "batch = jax.device_put(jnp.ones((16, 8)), P(None, 'data'))",
                "batch = jax.device_put(jnp.ones((16, 8)), P('data', None))",
            ),
        ),
    ),
    Program(
        "lookup_sharded_ids",
        "gather from an unsharded table with sharded indices",
        """
        def lookup(table, ids):
            return jnp.take(table, ids, axis=0)
        """,
        """
        table = jax.device_put(jnp.ones((32, 16)), P(None, None))
        ids = jnp.arange(8)
        h = lookup(table, ids)
        """,
        (_m("train.py", "ids = jnp.arange(8)", "ids = jax.device_put(jnp.arange(8), P('data'))"),),
    ),
    Program(
        "auto_axes_matmul",
        "a matmul inside auto_axes",
        """
        def project(x, w):
            return jax.sharding.auto_axes(lambda a, b: a @ b, out_sharding=P('data', None))(x, w)
        """,
        """
        x = jax.device_put(jnp.ones((8, 16)), P('data', None))
        w = jax.device_put(jnp.ones((16, 4)), P(None, None))
        y = project(x, w)
        z = y + x[:, :4]
        """,
        (_m("train.py", "z = y + x[:, :4]", "z = y + jax.device_put(jnp.ones((8, 4)), P('model', None))"),),
    ),
)


# ---- running the programs under JAX ------------------------------------------------------------------------

RUNNER = r"""
import json, os, runpy, sys, traceback
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # imported once; each program runs in a forked child before any backend starts here
results = {}
for d in sys.argv[1:]:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.chdir(d)
        sys.path.insert(0, d)
        try:
            runpy.run_path(os.path.join(d, "train.py"), run_name="__main__")
            msg = ""
        except BaseException as e:
            msg = type(e).__name__ + ": " + (str(e).splitlines() or [""])[0][:300] or "error"
        os.write(w, msg.encode())
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    os.waitpid(pid, 0)
    results[d] = b"".join(chunks).decode()
print(json.dumps(results))
"""


def run_under_jax(dirs: list[Path]) -> dict[str, str]:
    """dir -> '' when train.py ran cleanly, else the error JAX raised (type: first line)."""
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", RUNNER, *map(str, dirs)], capture_output=True, text=True, timeout=1800, check=True
    )
    got: dict[str, str] = json.loads(out.stdout.strip().splitlines()[-1])
    return got


# ---- running the checker -------------------------------------------------------------------------------------


def check(d: Path) -> list[dict[str, Any]]:
    """The checker's diagnostics over the program's directory (JSON, as `namedcheck check --format json`)."""
    from namedcheck.cli.main import main

    buf = io.StringIO()
    cwd = os.getcwd()
    try:
        os.chdir(d)
        with contextlib.redirect_stdout(buf):
            main(["check", ".", "--no-cache", "--format", "json"])
    finally:
        os.chdir(cwd)
    diags: list[dict[str, Any]] = json.loads(buf.getvalue() or "[]")
    return [x for x in diags if x["code"] not in ("NC000", "NC001")]


def apply(files: dict[str, str], m: Mutant) -> tuple[dict[str, str], int]:
    """The program with the mutant's edit, and the edited line (1-based)."""
    lines = files[m.file].splitlines()
    idx = [i for i, ln in enumerate(lines) if ln.strip() == m.old]
    if len(idx) != 1:
        raise SystemExit(f"template error: {m.old!r} found {len(idx)} times in {m.file}")
    indent = lines[idx[0]][: len(lines[idx[0]]) - len(lines[idx[0]].lstrip())]
    lines[idx[0]] = indent + m.new
    return {**files, m.file: "\n".join(lines) + "\n"}, idx[0] + 1


def grade(diags: list[dict[str, Any]], file: str, line: int) -> str:
    """'at' (a diagnostic or a related location at the edited line), 'near' (within two lines), 'elsewhere'
    (somewhere), 'missed'."""
    spots = [(os.path.normpath(d["path"]), d["line"]) for d in diags]
    spots += [(os.path.normpath(r["path"]), r["line"]) for d in diags for r in d.get("related", [])]
    if any(p == file and ln == line for p, ln in spots):
        return "at"
    if any(p == file and abs(ln - line) <= 2 for p, ln in spots):
        return "near"
    return "elsewhere" if diags else "missed"


def write(d: Path, files: dict[str, str]) -> None:
    d.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (d / name).write_text(text, encoding="utf-8")


def measure(programs: tuple[Program, ...] | list[Program], root: Path, show: bool = False) -> dict[str, Any]:
    """Write, run under JAX, check and grade every program and mutant; the figures as a dict."""
    variants: list[tuple[Program, Mutant | None, Path, str, int]] = []
    for p in programs:
        base = p.files()
        write(root / p.name / "ok", base)
        variants.append((p, None, root / p.name / "ok", "", 0))
        for i, m in enumerate(p.mutants):
            files, line = apply(base, m)
            d = root / p.name / f"m{i}"
            write(d, files)
            variants.append((p, m, d, m.file, line))
    jax_errors = run_under_jax([v[2] for v in variants])
    rows: list[dict[str, Any]] = []
    for p, m, d, file, line in variants:
        err = jax_errors.get(str(d), "?")
        diags = check(d)
        row: dict[str, Any] = {"program": p.name, "family": p.family, "jax": err}
        if m is None:
            row.update(kind="correct", valid=err == "", diagnostics=diags)
        else:
            row.update(kind="mutant", file=file, line=line, valid=err != "", grade=grade(diags, file, line))
            row["diagnostics"] = diags
        rows.append(row)
    kept = [r for r in rows if r["kind"] == "mutant" and r["valid"]]
    counts = {g: sum(r["grade"] == g for r in kept) for g in ("at", "near", "elsewhere", "missed")}
    correct = [r for r in rows if r["kind"] == "correct" and r["valid"]]
    # a mutant JAX accepts is a correct program too
    accepted = correct + [r for r in rows if r["kind"] == "mutant" and not r["valid"]]
    false_alarms = [(r["program"], d) for r in accepted for d in r["diagnostics"]]
    n = len(kept)
    figures = {
        "programs": len(programs),
        "mutants_kept": n,
        "mutants_jax_accepts": [
            f"{r['program']}:{r['line']}" for r in rows if r["kind"] == "mutant" and not r["valid"]
        ],
        "correct_jax_rejects": [
            f"{r['program']}: {r['jax']}" for r in rows if r["kind"] == "correct" and not r["valid"]
        ],
        "at_line": counts["at"],
        "within_two": counts["at"] + counts["near"],
        "found": n - counts["missed"],
        "share_at_line": counts["at"] / n if n else 0.0,
        "share_within_two": (counts["at"] + counts["near"]) / n if n else 0.0,
        "false_alarms": len(false_alarms),
        "false_alarm_programs": sorted({p for p, _ in false_alarms}),
        "rows": rows,
    }
    if show:
        _print(figures)
    return figures


def _print(fig: dict[str, Any]) -> None:
    for r in fig["rows"]:
        if r["kind"] == "correct":
            status = "ok" if r["valid"] else f"JAX REJECTS THE CORRECT PROGRAM: {r['jax']}"
            print(f"{r['program']:<24} correct   {status}; {len(r['diagnostics'])} diagnostics")
            for d in r["diagnostics"]:
                print(f"    FALSE ALARM {d['path']}:{d['line']} {d['code']} {d['message'][:120]}")
            continue
        if not r["valid"]:
            print(f"{r['program']:<24} {r['file']}:{r['line']:<3} JAX accepts it: a correct program")
            for d in r["diagnostics"]:
                print(f"    FALSE ALARM {d['path']}:{d['line']} {d['code']} {d['message'][:120]}")
            continue
        where = ", ".join(f"{d['code']}@{os.path.basename(d['path'])}:{d['line']}" for d in r["diagnostics"]) or "-"
        print(f"{r['program']:<24} {r['file']}:{r['line']:<3} {r['grade']:<9} {where}   [{r['jax'][:70]}]")
    n = fig["mutants_kept"]
    print(
        f"\n{fig['programs']} programs, {n} mutants JAX rejects: at the line to edit {fig['at_line']}/{n} "
        f"({fig['share_at_line']:.0%}), within two lines {fig['within_two']}/{n} ({fig['share_within_two']:.0%}), "
        f"found anywhere {fig['found']}/{n}; false alarms on the correct programs (and mutants JAX accepts): "
        f"{fig['false_alarms']}"
    )
    if fig["mutants_jax_accepts"]:
        print(
            "mutants JAX accepts (correct programs, out of the recall figures):", ", ".join(fig["mutants_jax_accepts"])
        )
    if fig["correct_jax_rejects"]:
        print("correct programs JAX rejects (template bugs):", "; ".join(fig["correct_jax_rejects"]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="program names")
    ap.add_argument("--keep", help="write the programs here (kept)")
    ap.add_argument("--show", action="store_true", help="(default) print every row")
    ap.add_argument("--json-out", help="write the figures here")
    args = ap.parse_args(argv)
    programs = [p for p in PROGRAMS if not args.only or p.name in args.only]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        fig = measure(programs, root, show=True)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({k: v for k, v in fig.items()}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
