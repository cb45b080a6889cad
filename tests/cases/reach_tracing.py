"""Shapes without running: eval_shape of an init function, make_jaxpr and jit(...).lower of a model."""

from functools import partial

import jax
import jax.numpy as jnp


def init_params(key, d_in, d_hidden, d_out):
    k1, k2 = jax.random.split(key)
    return {
        "w1": jax.random.normal(k1, (d_in, d_hidden)) / jnp.sqrt(d_in),
        "b1": jnp.zeros((d_hidden,)),
        "w2": jax.random.normal(k2, (d_hidden, d_out)) / jnp.sqrt(d_hidden),
        "b2": jnp.zeros((d_out,)),
    }


def model(params, x):
    h = jax.nn.gelu(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def decoder(params, z):
    h = jnp.tanh(z @ params["w1"]) + params["b1"]  # expect: NC203
    return h @ params["w2"] + params["b2"]


def classifier(params, images):
    x = images.reshape(images.shape[0], -1)
    logits = jax.nn.relu(x @ params["w1"] + params["b1"]) @ params["w2"]  # expect: NC203
    return jax.nn.log_softmax(logits + params["b2"])


def init_wide(key):
    w = jax.random.normal(key, (16, 32))
    b = jnp.zeros((16,))
    return w + b  # expect: NC201


def right_abstract_init():
    shapes = jax.eval_shape(partial(init_params, d_in=16, d_hidden=32, d_out=4), jax.random.PRNGKey(0))
    w1 = shapes["w1"]  # reveal: f32[(16, 32)]
    x = jax.ShapeDtypeStruct((8, 16), jnp.float32)
    out = jax.eval_shape(model, shapes, x)  # reveal: f32[(8, 4)]
    return out


def right_inspect_and_lower():
    params = init_params(jax.random.PRNGKey(0), 16, 32, 4)
    x = jnp.ones((8, 16))
    jaxpr = jax.make_jaxpr(model)(params, x)
    lowered = jax.jit(model).lower(params, x)
    out = jax.jit(model).eval_shape(params, x)  # reveal: f32[(8, 4)]
    return jaxpr, lowered.as_text(), out


def wrong_latent_size():
    params = jax.eval_shape(partial(init_params, d_in=16, d_hidden=32, d_out=4), jax.random.PRNGKey(0))
    z = jax.ShapeDtypeStruct((8, 12), jnp.float32)
    return jax.eval_shape(decoder, params, z)


def wrong_init_under_eval_shape():
    return jax.eval_shape(init_wide, jax.random.PRNGKey(0))


def wrong_jaxpr_of_loss():
    loss = lambda pred, target: jnp.mean((pred - target) ** 2)  # expect: NC201
    return jax.make_jaxpr(loss)(jnp.ones((8, 4)), jnp.ones((8,)))


def wrong_lowered_batch():
    params = init_params(jax.random.PRNGKey(0), 16, 32, 4)
    images = jax.ShapeDtypeStruct((8, 4, 5), jnp.float32)
    return jax.jit(classifier).lower(params, images)
