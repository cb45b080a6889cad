"""The tutorial's positional MLP, annotated: shapes are checked through dot, logsumexp and one_hot."""

import jax.numpy as jnp
from jax import Array
from jax.nn import one_hot, relu
from jax.scipy.special import logsumexp

from namedcheck import Dims, f32, i32


def predict(w1: f32[Array, Dims(784, 512)], w2: f32[Array, Dims(512, 10)], images: f32[Array, Dims('B', 784)]) -> f32[Array, Dims('B', 10)]:
    hiddens = relu(jnp.dot(images, w1))
    logits = jnp.dot(hiddens, w2)
    return logits - logsumexp(logits, axis=1, keepdims=True)


def loss(w1: f32[Array, Dims(784, 512)], w2: f32[Array, Dims(512, 10)], images: f32[Array, Dims('B', 784)], labels: i32[Array, Dims('B')]) -> f32[Array, Dims()]:
    predictions = predict(w1, w2, images)
    targets = one_hot(labels, predictions.shape[-1])
    losses: f32[Array, Dims('B')] = jnp.sum(targets * predictions, axis=1)
    return -jnp.mean(losses, axis=0)


def main() -> None:
    w1 = jnp.zeros((784, 512))
    w2 = jnp.zeros((512, 10))
    images = jnp.zeros((128, 784))
    labels = jnp.zeros(128, dtype=jnp.int32)
    value: f32[Array, Dims()] = loss(w1, w2, images, labels)
    print(value)


if __name__ == "__main__":
    main()
