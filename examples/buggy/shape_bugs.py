"""A tour of the diagnostics: each marked line is a bug namedcheck finds before the program runs.

    namedcheck check examples/buggy/
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental.maps import xmap

from namedcheck import f32, i32


def attention_scores(q: f32[('T', 64), {'heads': 8}], k: f32[('S', 32), {'heads': 8}]) -> f32[('T', 'S'), {'heads': 8}]:
    return q @ k.T  # NC203: contracting 64 against 32


def add_bias(x: f32[(128, 512)], b: f32[(256,)]) -> f32[(128, 512)]:
    return x + b  # NC201: 512 vs 256 when right-aligned


def mix_batches(x: f32[(), {'batch': 32}], y: f32[(), {'batch': 64}]) -> f32[(), {'batch': 32}]:
    return x * y  # NC202: one name, two sizes


def flatten(images: f32[(128, 28, 28)]) -> f32[(128, 784)]:
    return images.reshape(128, 748)  # NC203: 100352 elements cannot become 95744


def per_example_loss(logits: f32[(10,), {'batch': 128}]) -> f32[(), {'batch': 128}]:
    return jnp.sum(logits, axis=1)  # NC701: there is only axis 0


def layer(x: f32[('B', 784)], w: f32[(784, 512)]) -> f32[('B', 512)]:
    return jax.nn.relu(x @ w)


def model(x: f32[(32, 784)], w: f32[(512, 784)]) -> f32[(32, 512)]:
    return layer(x, w)  # NC302: w is (512, 784); layer declares (784, 512)


def wrong_return(x: f32[(32, 10)]) -> f32[(32,)]:
    return jnp.argmax(x, axis=0)  # NC301: argmax over the batch gives (10,) (and int32)


def named_contraction(x: f32[(5,), {'b': 20, 'k': 7}], y: f32[(), {'k': 7, 'm': 11}]) -> f32[(5,), {'m': 11}]:
    return jnp.einsum('n{b},{k,m}->n{m}', x, y)  # NC702: 'k' mentioned for y, skipped for x


def malformed(x: f32[(784, -1)]) -> None:  # NC102: a negative size
    pass


def labels_as_floats(labels: i32[(128,)]) -> None:
    wrong: i32[(128, 10)] = jax.nn.one_hot(labels, 10)  # NC304: one_hot gives float32
