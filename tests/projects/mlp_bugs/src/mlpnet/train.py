"""One SGD step on a random batch."""

import jax
import jax.numpy as jnp

from .config import CONFIG
from .model import forward, init_params
from .sharding import shard_batch


def loss_fn(params, x, labels):
    logits = forward(params, x)
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.sum(logp * jax.nn.one_hot(labels, CONFIG.n_classes), axis=-1))


@jax.jit
def train_step(params, x, labels):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
    params = jax.tree.map(lambda p, g: p - CONFIG.learning_rate * g, params, grads)
    return params, loss


def main():
    key = jax.random.PRNGKey(0)
    params = init_params(key)
    x = shard_batch(jax.random.normal(key, (CONFIG.batch, CONFIG.d_in)))
    labels = jnp.zeros((CONFIG.batch,), jnp.int32)
    params, loss = train_step(params, x, labels)
    return loss


def evaluate(params, key):
    x = shard_batch(jax.random.normal(key, (CONFIG.eval_batch, CONFIG.d_in)))
    return jnp.argmax(forward(params, x), axis=-1)


def predict(key):
    params = init_params(key)
    x = jax.random.normal(key, (CONFIG.batch, CONFIG.n_classes))
    return jnp.argmax(forward(params, x), axis=-1)


def predict_main():
    return predict(jax.random.PRNGKey(1))


def evaluate_main():
    key = jax.random.PRNGKey(2)
    return evaluate(init_params(key), key)


if __name__ == "__main__":
    main()
