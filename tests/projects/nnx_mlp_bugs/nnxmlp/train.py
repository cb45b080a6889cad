"""A gradient step, a prediction and a probe of the head."""

import jax
import jax.numpy as jnp
from flax import nnx

from .config import CONFIG
from .layers import Head
from .model import Classifier


def loss_fn(model, x, y):
    logits = model(x)
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.sum(logp * jax.nn.one_hot(y, CONFIG["n_out"]), axis=-1))


def train_main():
    model = Classifier(CONFIG, rngs=nnx.Rngs(0))
    x = jnp.ones((CONFIG["batch"], CONFIG["d_in"]))
    y = jnp.zeros((CONFIG["batch"],), jnp.int32)
    loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)
    params = nnx.state(model, nnx.Param)
    nnx.update(model, jax.tree.map(lambda p, g: p - 0.1 * g, params, grads))
    return loss


def predict_main():
    model = Classifier(CONFIG, rngs=nnx.Rngs(1))
    x = jnp.ones((CONFIG["batch"], CONFIG["d_model"]))
    return jnp.argmax(model(x), axis=-1)


def probe_head():
    head = Head(CONFIG["n_out"], CONFIG["d_model"], rngs=nnx.Rngs(2))
    features = jnp.ones((CONFIG["batch"], CONFIG["d_model"]))
    return head(features)
