"""Runnable multi-module projects for `bench/realcode.py projects` (verified recall): small sharded JAX
programs written for this harness in the style of real ones, each a package plus a `main.py` that runs it
(tiny sizes, 8 forced host CPU devices). Mutants of the package modules are kept only when JAX raises."""

RUNNABLE_PROJECTS: dict[str, dict[str, str]] = {
    "attn_lm": {
        "attnlm/__init__.py": '''\
"""A one-layer attention language model with einsum weights."""
''',
        "attnlm/config.py": '''\
"""Sizes."""
VOCAB = 48
D_MODEL = 32
N_HEADS = 4
HEAD_DIM = D_MODEL // N_HEADS
SEQ = 8
BATCH = 4
''',
        "attnlm/layers.py": '''\
"""Attention and the tied output projection."""
import jax
import jax.numpy as jnp
import numpy as np


def attention(x, wq, wk, wv, wo):
    q = jnp.einsum('btd,dhk->bthk', x, wq)
    k = jnp.einsum('btd,dhk->bthk', x, wk)
    v = jnp.einsum('btd,dhk->bthk', x, wv)
    scores = jnp.einsum('bqhk,bshk->bhqs', q, k) / np.sqrt(q.shape[-1])
    probs = jax.nn.softmax(scores, axis=-1)
    ctx = jnp.einsum('bhqs,bshk->bqhk', probs, v)
    return jnp.einsum('bqhk,hkd->bqd', ctx, wo)


def tied_logits(x, embed):
    return jnp.einsum('btd,vd->btv', x, embed)
''',
        "attnlm/model.py": '''\
"""Embedding, one attention layer, tied logits; activations sharded by batch."""
import jax
from jax.sharding import NamedSharding, PartitionSpec as P

from .layers import attention, tied_logits


def forward(params, tokens, mesh):
    x = params['embed'][tokens]
    x = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P('data', None, None)))
    x = x + attention(x, params['wq'], params['wk'], params['wv'], params['wo'])
    return tied_logits(x, params['embed'])
''',
        "attnlm/params.py": '''\
"""Parameter initialisation."""
import jax

from . import config as C


def init(key):
    ks = jax.random.split(key, 5)
    return {
        'embed': jax.random.normal(ks[0], (C.VOCAB, C.D_MODEL)) * 0.02,
        'wq': jax.random.normal(ks[1], (C.D_MODEL, C.N_HEADS, C.HEAD_DIM)) * 0.02,
        'wk': jax.random.normal(ks[2], (C.D_MODEL, C.N_HEADS, C.HEAD_DIM)) * 0.02,
        'wv': jax.random.normal(ks[3], (C.D_MODEL, C.N_HEADS, C.HEAD_DIM)) * 0.02,
        'wo': jax.random.normal(ks[4], (C.N_HEADS, C.HEAD_DIM, C.D_MODEL)) * 0.02,
    }
''',
        "main.py": """\
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh

from attnlm import config as C
from attnlm.model import forward
from attnlm.params import init

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('data', 'model'))
params = init(jax.random.key(0))
tokens = jnp.zeros((C.BATCH, C.SEQ), jnp.int32)
out = jax.jit(lambda p, t: forward(p, t, mesh))(params, tokens)
assert out.shape == (C.BATCH, C.SEQ, C.VOCAB)
""",
    },
    "dp_train": {
        "dptrain/__init__.py": '''\
"""Data-parallel training with shard_map."""
''',
        "dptrain/data.py": '''\
"""Batches from a host array."""
import numpy as np


def batches(n_batches, batch, features, seed=0):
    rng = np.random.default_rng(seed)
    xs = rng.standard_normal((n_batches * batch, features)).astype(np.float32)
    return xs.reshape(n_batches, batch, features)
''',
        "dptrain/model.py": '''\
"""A two-layer network."""
import jax.numpy as jnp


def init(features, hidden, out):
    return {'w1': jnp.full((features, hidden), 0.01), 'w2': jnp.full((hidden, out), 0.01)}


def predict(params, x):
    return jnp.tanh(x @ params['w1']) @ params['w2']
''',
        "dptrain/step.py": '''\
"""The per-device step: gradients and loss averaged over 'data'."""
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

from .model import predict


def loss_fn(params, x, y):
    return jnp.mean((predict(params, x) - y) ** 2)


def local_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    grads = lax.pmean(grads, 'data')
    new = jax.tree.map(lambda p, g: p - 0.05 * g, params, grads)
    return new, lax.pmean(loss, 'data')


def make_step(mesh):
    return jax.jit(jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P('data', None), P('data', None)),
                                 out_specs=(P(), P())))
''',
        "main.py": """\
import jax
import numpy as np
from jax.sharding import Mesh

from dptrain.data import batches
from dptrain.model import init
from dptrain.step import make_step

FEATURES, HIDDEN, OUT = 12, 16, 2
mesh = Mesh(np.array(jax.devices()), ('data',))
params = init(FEATURES, HIDDEN, OUT)
step = make_step(mesh)
for x in batches(2, 32, FEATURES):
    y = x[:, :OUT] * 2.0
    params, loss = step(params, x, y)
""",
    },
    "eqx_reg": {
        "eqxreg/__init__.py": '''\
"""An equinox regressor."""
''',
        "eqxreg/config.py": '''\
"""Sizes."""
IN_SIZE = 6
WIDTH = 24
OUT_SIZE = 3
DEPTH = 2
BATCH = 16
''',
        "eqxreg/data.py": '''\
"""A synthetic linear dataset."""
import jax


def make_batch(key, n, d_in, d_out):
    kx, kw = jax.random.split(key)
    x = jax.random.normal(kx, (n, d_in))
    w = jax.random.normal(kw, (d_in, d_out))
    return x, x @ w
''',
        "eqxreg/model.py": '''\
"""Encoder, MLP trunk, linear head."""
import equinox as eqx
import jax

from . import config


class Regressor(eqx.Module):
    encoder: eqx.nn.Linear
    trunk: eqx.nn.MLP
    head: eqx.nn.Linear

    def __init__(self, key):
        k1, k2, k3 = jax.random.split(key, 3)
        self.encoder = eqx.nn.Linear(config.IN_SIZE, config.WIDTH, key=k1)
        self.trunk = eqx.nn.MLP(config.WIDTH, config.WIDTH, config.WIDTH, config.DEPTH, key=k2)
        self.head = eqx.nn.Linear(config.WIDTH, config.OUT_SIZE, key=k3)

    def __call__(self, x):
        return self.head(jax.nn.relu(self.trunk(self.encoder(x))))
''',
        "eqxreg/train.py": '''\
"""Loss and one step."""
import equinox as eqx
import jax
import jax.numpy as jnp


def loss(model, x, y):
    pred = jax.vmap(model)(x)
    return jnp.mean((pred - y) ** 2)


@eqx.filter_jit
def step(model, x, y):
    value, grads = eqx.filter_value_and_grad(loss)(model, x, y)
    updates = jax.tree.map(lambda g: -0.01 * g, grads)
    return eqx.apply_updates(model, updates), value
''',
        "main.py": """\
import jax

from eqxreg import config
from eqxreg.data import make_batch
from eqxreg.model import Regressor
from eqxreg.train import step

model = Regressor(jax.random.key(0))
x, y = make_batch(jax.random.key(1), config.BATCH, config.IN_SIZE, config.OUT_SIZE)
model, value = step(model, x, y)
""",
    },
    "linen_clf": {
        "linenclf/__init__.py": '''\
"""A flax linen classifier."""
''',
        "linenclf/config.py": '''\
"""Sizes."""
import dataclasses


@dataclasses.dataclass
class Config:
    features: int = 16
    hidden: int = 32
    classes: int = 10
    batch: int = 8
''',
        "linenclf/layers.py": '''\
"""Building blocks."""
import flax.linen as nn
import jax.numpy as jnp


class Projection(nn.Module):
    d_in: int
    d_out: int

    @nn.compact
    def __call__(self, x):
        kernel = self.param('kernel', nn.initializers.lecun_normal(), (self.d_in, self.d_out))
        bias = self.param('bias', nn.initializers.zeros, (self.d_out,))
        return jnp.dot(x, kernel) + bias


class Block(nn.Module):
    hidden: int

    @nn.compact
    def __call__(self, x):
        h = nn.Dense(self.hidden)(x)
        h = nn.relu(h)
        return nn.LayerNorm()(h) + x
''',
        "linenclf/model.py": '''\
"""The classifier."""
import flax.linen as nn

from .config import Config
from .layers import Block, Projection


class Classifier(nn.Module):
    cfg: Config

    @nn.compact
    def __call__(self, x):
        h = Projection(self.cfg.features, self.cfg.hidden)(x)
        h = Block(self.cfg.hidden)(h)
        return nn.Dense(self.cfg.classes)(h)
''',
        "linenclf/train.py": '''\
"""One SGD step."""
import jax
import jax.numpy as jnp


def loss_fn(params, model, x, labels, classes):
    logits = model.apply(params, x)
    onehot = jax.nn.one_hot(labels, classes)
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * onehot, axis=-1))


def sgd_step(params, model, x, labels, classes):
    loss, grads = jax.value_and_grad(loss_fn)(params, model, x, labels, classes)
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads), loss
''',
        "main.py": """\
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

from linenclf.config import Config
from linenclf.model import Classifier
from linenclf.train import sgd_step

cfg = Config()
mesh = Mesh(np.array(jax.devices()), ('batch',))
model = Classifier(cfg)
x = jax.device_put(jnp.ones((cfg.batch, cfg.features)), NamedSharding(mesh, P('batch', None)))
labels = jnp.arange(cfg.batch) % cfg.classes
params = model.init(jax.random.key(0), x)
params, loss = sgd_step(params, model, x, labels, cfg.classes)
""",
    },
    "nnx_seq": {
        "main.py": """\
import jax.numpy as jnp
from flax import nnx

from nnxseq.config import ModelConfig
from nnxseq.model import SeqModel

cfg = ModelConfig()
model = SeqModel(cfg, rngs=nnx.Rngs(0))
tokens = jnp.zeros((cfg.batch, cfg.seq), jnp.int32)
logits = model(tokens)
assert logits.shape == (cfg.batch, cfg.seq, cfg.vocab)
""",
        "nnxseq/__init__.py": '''\
"""A flax nnx sequence model."""
''',
        "nnxseq/config.py": '''\
"""Sizes."""
from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    vocab: int = 40
    dim: int = 16
    hidden: int = 32
    seq: int = 6
    batch: int = 4
''',
        "nnxseq/layers.py": '''\
"""Feed-forward block."""
import jax
from flax import nnx


class FeedForward(nnx.Module):
    def __init__(self, dim, hidden, *, rngs):
        self.up = nnx.Linear(dim, hidden, rngs=rngs)
        self.down = nnx.Linear(hidden, dim, rngs=rngs)

    def __call__(self, x):
        return self.down(jax.nn.gelu(self.up(x)))
''',
        "nnxseq/model.py": '''\
"""Embedding, a residual feed-forward block, output head."""
from flax import nnx

from .config import ModelConfig
from .layers import FeedForward


class SeqModel(nnx.Module):
    def __init__(self, cfg: ModelConfig, *, rngs):
        self.embed = nnx.Embed(cfg.vocab, cfg.dim, rngs=rngs)
        self.norm = nnx.LayerNorm(cfg.dim, rngs=rngs)
        self.ff = FeedForward(cfg.dim, cfg.hidden, rngs=rngs)
        self.out = nnx.Linear(cfg.dim, cfg.vocab, rngs=rngs)

    def __call__(self, tokens):
        x = self.embed(tokens)
        x = x + self.ff(self.norm(x))
        return self.out(x)
''',
    },
    "tp_mlp": {
        "main.py": """\
import jax
import jax.numpy as jnp

from tpmlp.config import CONFIG
from tpmlp.model import forward, init_params
from tpmlp.sharding import make_mesh

mesh = make_mesh()
params = init_params(jax.random.key(0), CONFIG)
x = jnp.ones((CONFIG.batch, CONFIG.d_model))
y = jax.jit(lambda p, x: forward(mesh, p, x))(params, x)
assert y.shape == (CONFIG.batch, CONFIG.d_model)
""",
        "tpmlp/__init__.py": '''\
"""Tensor-parallel MLP stack."""
''',
        "tpmlp/config.py": '''\
"""Model sizes."""
from dataclasses import dataclass


@dataclass(frozen=True)
class MLPConfig:
    d_model: int = 32
    d_ff: int = 128
    batch: int = 16
    n_layers: int = 2


CONFIG = MLPConfig()
''',
        "tpmlp/layers.py": '''\
"""A Megatron-style block: column-parallel w1, row-parallel w2."""
import jax
import jax.numpy as jnp
from jax import lax


def mlp_block(x, w1, b1, w2):
    h = jax.nn.gelu(x @ w1 + b1)
    out = jnp.dot(h, w2)
    return lax.psum(out, 'model')


def init_block(key, cfg):
    k1, k2 = jax.random.split(key)
    w1 = jax.random.normal(k1, (cfg.d_model, cfg.d_ff)) * 0.02
    b1 = jnp.zeros((cfg.d_ff,))
    w2 = jax.random.normal(k2, (cfg.d_ff, cfg.d_model)) * 0.02
    return w1, b1, w2
''',
        "tpmlp/model.py": '''\
"""The stack: residual blocks under one shard_map."""
import jax

from .layers import init_block, mlp_block
from .sharding import B1_SPEC, W1_SPEC, W2_SPEC, X_SPEC


def init_params(key, cfg):
    keys = jax.random.split(key, cfg.n_layers)
    return [init_block(k, cfg) for k in keys]


def forward(mesh, params, x):
    block = jax.shard_map(mlp_block, mesh=mesh, in_specs=(X_SPEC, W1_SPEC, B1_SPEC, W2_SPEC), out_specs=X_SPEC)
    for w1, b1, w2 in params:
        x = x + block(x, w1, b1, w2)
    return x
''',
        "tpmlp/sharding.py": '''\
"""The device mesh and the partition specs of activations and weights."""
import jax
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P

X_SPEC = P('data', None)
W1_SPEC = P(None, 'model')
B1_SPEC = P('model')
W2_SPEC = P('model', None)


def make_mesh():
    return Mesh(np.array(jax.devices()).reshape(2, 4), ('data', 'model'))
''',
    },
}
