"""A gradient step over a batch of sequences, and a single-sequence prediction."""

import equinox as eqx
import jax
import jax.numpy as jnp

from .config import CONFIG
from .model import Model


def loss_fn(model, tokens, labels):
    logits = jax.vmap(model)(tokens)
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.sum(logp * jax.nn.one_hot(labels, CONFIG.n_out), axis=-1))


def train_main():
    model = Model(CONFIG, jax.random.PRNGKey(0))
    tokens = jnp.zeros((CONFIG.batch, CONFIG.seq), jnp.int32)
    labels = jnp.zeros((CONFIG.batch,), jnp.int32)
    loss, grads = eqx.filter_value_and_grad(loss_fn)(model, tokens, labels)
    model = eqx.apply_updates(model, jax.tree.map(lambda g: -0.1 * g, grads))
    return loss


def predict_main():
    model = Model(CONFIG, jax.random.PRNGKey(1))
    tokens = jnp.zeros((CONFIG.seq,), jnp.int32)
    return jnp.argmax(model(tokens))
