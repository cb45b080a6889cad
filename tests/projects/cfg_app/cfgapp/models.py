"""A two-layer classifier over flattened images."""

import jax
import jax.numpy as jnp


def init_params(key, model_config, num_classes):
    k1, k2 = jax.random.split(key)
    return {
        "w1": jax.random.normal(k1, (model_config.input_dim, model_config.hidden)) * 0.1,
        "w2": jax.random.normal(k2, (model_config.hidden, num_classes)) * 0.1,
    }


def apply(params, images):
    x = images.reshape(images.shape[0], -1)
    h = jax.nn.relu(x @ params["w1"])
    return h @ params["w2"]


def loss_fn(params, images, labels, num_classes):
    logits = apply(params, images)
    onehot = jax.nn.one_hot(labels, num_classes)
    return -jnp.mean(jnp.sum(onehot * jax.nn.log_softmax(logits), axis=-1))
