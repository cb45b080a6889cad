"""One SGD step of next-token prediction, and probes of single layers."""

import jax
import jax.numpy as jnp

from . import layers
from .config import CFG, PROBE_CFG
from .model import LM


def loss_fn(params, model, tokens):
    logits = model.apply(params, tokens)
    logp = jax.nn.log_softmax(logits)
    targets = jax.nn.one_hot(tokens, CFG.vocab)
    return -jnp.mean(jnp.sum(logp * targets, axis=-1))  # expect: NC201


def train_main():
    key = jax.random.PRNGKey(0)
    model = LM(CFG)
    tokens = jnp.zeros((CFG.batch, CFG.seq), jnp.int32)
    params = model.init(key, tokens)
    loss, grads = jax.value_and_grad(loss_fn)(params, model, tokens)
    params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
    return loss


def probe_attention():
    block = layers.Block(PROBE_CFG.d_model, PROBE_CFG.n_heads, PROBE_CFG.d_ff)
    x = jnp.ones((PROBE_CFG.batch, PROBE_CFG.seq, PROBE_CFG.d_model))
    params = block.init(jax.random.PRNGKey(1), x)
    return block.apply(params, x)


def probe_ffn():
    ffn = layers.FeedForward(CFG.d_ff, CFG.d_model)
    x = jnp.ones((CFG.batch, CFG.seq, CFG.d_model))
    params = ffn.init(jax.random.PRNGKey(2), x)
    return ffn.apply(params, x)
