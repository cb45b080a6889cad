"""A tour of the diagnostics: each marked line is a bug namedcheck finds before the program runs.

    namedcheck check examples/buggy/
"""

import jax
import jax.numpy as jnp
from jax import Array

import namedcheck.numpy as nnp
from namedcheck import Dims, f32, i32


def attention_scores(q: f32[Array, Dims('T', 64, heads=8)], k: f32[Array, Dims('S', 32, heads=8)]) -> f32[Array, Dims('T', 'S', heads=8)]:
    return q @ k.T  # NC203: contracting 64 against 32


def add_bias(x: f32[Array, Dims(128, 512)], b: f32[Array, Dims(256)]) -> f32[Array, Dims(128, 512)]:
    return x + b  # NC201: 512 vs 256 when right-aligned


def mix_batches(x: f32[Array, Dims(batch=32)], y: f32[Array, Dims(batch=64)]) -> f32[Array, Dims(batch=32)]:
    return x * y  # NC202: one name, two sizes


def flatten(images: f32[Array, Dims(128, 28, 28)]) -> f32[Array, Dims(128, 784)]:
    return images.reshape(128, 748)  # NC203: 100352 elements cannot become 95744


def per_example_loss(logits: f32[Array, Dims(10, batch=128)]) -> f32[Array, Dims(batch=128)]:
    return jnp.sum(logits, axis=1)  # NC701: there is only axis 0


def layer(x: f32[Array, Dims('B', 784)], w: f32[Array, Dims(784, 512)]) -> f32[Array, Dims('B', 512)]:
    return jax.nn.relu(x @ w)


def model(x: f32[Array, Dims(32, 784)], w: f32[Array, Dims(512, 784)]) -> f32[Array, Dims(32, 512)]:
    return layer(x, w)  # NC302: w is (512, 784); layer declares (784, 512)


def wrong_return(x: f32[Array, Dims(32, 10)]) -> f32[Array, Dims(32)]:
    return jnp.argmax(x, axis=0)  # NC301: argmax over the batch gives (10,) (and int32)


def named_contraction(x: f32[Array, Dims(5, b=20, k=7)], y: f32[Array, Dims(k=7, m=11)]) -> f32[Array, Dims(5, m=11)]:
    return nnp.einsum('n{b},{k,m}->n{m}', x, y)  # NC702: 'k' mentioned for y, skipped for x


def malformed(x: f32[Array, Dims(784, -1)]) -> None:  # NC102: a negative size
    pass


def labels_as_floats(labels: i32[Array, Dims(128)]) -> i32[Array, Dims(128, 10)]:
    wrong: i32[Array, Dims(128, 10)] = jax.nn.one_hot(labels, 10)  # NC304: one_hot gives float32
    return wrong
