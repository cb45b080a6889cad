"""The tutorial's MLP loss with named axes: no axis order to remember, no positions to reduce over."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array, lax
from jax.sharding import Mesh

from namedcheck import Dims, f32, i32, xmap
from namedcheck.lax import pdot
from namedcheck.nn import logsumexp, one_hot, relu

# Type aliases work as annotations.
Weights1 = f32[Array, Dims(inputs=784, hidden=512)]
Weights2 = f32[Array, Dims(hidden=512, classes=10)]


def named_predict(w1: Weights1, w2: Weights2,
                  image: f32[Array, Dims(batch=128, inputs=784)]) -> f32[Array, Dims(batch=128, classes=10)]:
    hidden: f32[Array, Dims(batch=128, hidden=512)] = relu(pdot(image, w1, 'inputs'))
    logits: f32[Array, Dims(batch=128, classes=10)] = pdot(hidden, w2, 'hidden')
    return logits - logsumexp(logits, 'classes')


def named_loss(w1: Weights1, w2: Weights2,
               images: f32[Array, Dims(batch=128, inputs=784)],
               labels: i32[Array, Dims(batch=128)]) -> f32[Array, Dims()]:
    predictions = named_predict(w1, w2, images)
    num_classes = lax.psum(1, 'classes')
    targets: f32[Array, Dims(batch=128, classes=10)] = one_hot(labels, num_classes, axis='classes')
    losses: f32[Array, Dims(batch=128)] = lax.psum(targets * predictions, 'classes')
    return -lax.pmean(losses, 'batch')


in_axes = [['inputs', 'hidden', ...],
           ['hidden', 'classes', ...],
           ['batch', 'inputs', ...],
           ['batch', ...]]
loss = xmap(named_loss, in_axes=in_axes, out_axes=[...])


def run() -> None:
    w1 = jnp.zeros((784, 512))
    w2 = jnp.zeros((512, 10))
    images = jnp.zeros((128, 784))
    labels = jnp.zeros(128, dtype=jnp.int32)
    value: f32[Array, Dims()] = loss(w1, w2, images, labels)

    # The same program, parallelised three ways by changing only axis_resources (checked for
    # co-occurring axes and divisibility against each mesh).
    with Mesh(np.array(jax.local_devices()), ('x',)):
        by_batch = xmap(named_loss, in_axes=in_axes, out_axes=[...], axis_resources={'batch': 'x'})
        value = by_batch(w1, w2, images, labels)
        by_hidden = xmap(named_loss, in_axes=in_axes, out_axes=[...], axis_resources={'hidden': 'x'})
        value = by_hidden(w1, w2, images, labels)
    with Mesh(np.array(jax.local_devices()).reshape((4, 2)), ('x', 'y')):
        both = xmap(named_loss, in_axes=in_axes, out_axes=[...], axis_resources={'batch': 'x', 'hidden': 'y'})
        value = both(w1, w2, images, labels)
    print(value)
