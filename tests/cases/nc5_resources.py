import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental.maps import xmap
from jax.nn import logsumexp, one_hot, relu
from jax.sharding import Mesh

from namedcheck import f32, i32


def named_predict(w1: f32[(), {'inputs': 784, 'hidden': 512}], w2: f32[(), {'hidden': 512, 'classes': 10}],
                  image: f32[(), {'batch': 128, 'inputs': 784}]) -> f32[(), {'batch': 128, 'classes': 10}]:
    hidden = relu(lax.pdot(image, w1, 'inputs'))
    logits = lax.pdot(hidden, w2, 'hidden')
    return logits - logsumexp(logits, 'classes')


def named_loss(w1, w2, images, labels):
    predictions = named_predict(w1, w2, images)
    num_classes = lax.psum(1, 'classes')
    targets = one_hot(labels, num_classes, axis='classes')
    losses = lax.psum(targets * predictions, 'classes')
    return -lax.pmean(losses, 'batch')


in_axes = [['inputs', 'hidden', ...], ['hidden', 'classes', ...], ['batch', 'inputs', ...], ['batch', ...]]
w1 = jnp.zeros((784, 512))
w2 = jnp.zeros((512, 10))
images = jnp.zeros((128, 784))
labels = jnp.zeros(128, dtype=jnp.int32)

loss = xmap(named_loss, in_axes=in_axes, out_axes=[...])
plain = loss(w1, w2, images, labels)  # reveal: f32[()]

with Mesh(np.array(jax.local_devices()), ('x',)):
    by_batch = xmap(named_loss, in_axes=in_axes, out_axes=[...], axis_resources={'batch': 'x'})
    l1 = by_batch(w1, w2, images, labels)  # reveal: f32[()]
    by_hidden = xmap(named_loss, in_axes=in_axes, out_axes=[...], axis_resources={'hidden': 'x'})
    l2 = by_hidden(w1, w2, images, labels)  # reveal: f32[()]

with Mesh(np.array(jax.local_devices()).reshape((4, 2)), ('x', 'y')):
    both = xmap(named_loss, in_axes=in_axes, out_axes=[...], axis_resources={'batch': 'x', 'hidden': 'y'})
    l3 = both(w1, w2, images, labels)  # reveal: f32[()]


def sum_two_args(x: f32[(), {'a': 4}], y: f32[(), {'b': 12}]) -> f32[()]:
    return jnp.sum(x, axis='a') + jnp.sum(y, axis='b')


q = jnp.ones((4,), dtype=np.float32)
u = jnp.ones((12,), dtype=np.float32)
with Mesh(np.array(jax.devices()[:4]), ('x',)):
    v = xmap(sum_two_args, in_axes=(['a', ...], ['b', ...]), out_axes=[...],
             axis_resources={'a': 'x', 'b': 'x'})(q, u)


def sum_two_args_wrongly(x: f32[(), {'a': 4}], y: f32[(), {'b': 12}]) -> f32[()]:
    both = x + y  # expect: NC502
    return jnp.sum(both, axis=('a', 'b'))


with Mesh(np.array(jax.devices()[:4]), ('x',)):
    bad = xmap(sum_two_args_wrongly, in_axes=(['a', ...], ['b', ...]), out_axes=[...],
               axis_resources={'a': 'x', 'b': 'x'})(q, u)


def outer_product(x, y):
    return x * y  # expect: NC502


def through_helper(x: f32[(), {'a': 4}], y: f32[(), {'b': 12}]) -> f32[()]:
    return jnp.sum(outer_product(x, y), axis=('a', 'b'))


mesh2 = jax.make_mesh((2, 4), ('x', 'y'))
with mesh2:
    h = xmap(through_helper, in_axes=(['a', ...], ['b', ...]), out_axes=[...],
             axis_resources={'a': 'y', 'b': 'y'})(q, u)
    ok = xmap(through_helper, in_axes=(['a', ...], ['b', ...]), out_axes=[...],
              axis_resources={'a': 'x', 'b': 'y'})(q, u)
    missing = xmap(sum_two_args, in_axes=(['a', ...], ['b', ...]), out_axes=[...],
                   axis_resources={'a': 'z'})  # expect: NC501
    missing(q, u)
    indivisible = xmap(sum_two_args, in_axes=(['a', ...], ['b', ...]), out_axes=[...],
                       axis_resources={'b': ('x', 'y')})  # expect: NC503
    indivisible(q, jnp.ones((6,)))
    repeated = xmap(sum_two_args, in_axes=(['a', ...], ['b', ...]), out_axes=[...],
                    axis_resources={'a': ('x', 'x')})  # expect: NC504
    repeated(q, u)
