"""The xmap tutorial's programs on today's JAX with namedcheck's runtime.

    python examples/xmap_tutorial.py      # runs them on 8 CPU devices and prints the results
    namedcheck check examples/            # the same file, checked statically (clean)
"""

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array, lax
from jax.sharding import Mesh

import namedcheck.lax as nlax
import namedcheck.nn as nnn
import namedcheck.numpy as nnp
from namedcheck import Dims, checked, f32, i32, xmap


def named_predict(w1: f32[Array, Dims(inputs=784, hidden=512)], w2: f32[Array, Dims(hidden=512, classes=10)],
                  image: f32[Array, Dims(batch='B', inputs=784)]) -> f32[Array, Dims(batch='B', classes=10)]:
    hidden = jax.nn.relu(nlax.pdot(image, w1, 'inputs'))
    logits = nlax.pdot(hidden, w2, 'hidden')
    return logits - nnn.logsumexp(logits, 'classes')


def named_loss(w1: f32[Array, Dims(inputs=784, hidden=512)], w2: f32[Array, Dims(hidden=512, classes=10)],
               images: f32[Array, Dims(batch='B', inputs=784)], labels: i32[Array, Dims(batch='B')]) -> f32[Array, Dims()]:
    predictions = named_predict(w1, w2, images)
    num_classes = lax.psum(1, 'classes')
    targets = nnn.one_hot(labels, num_classes, axis='classes')
    losses = lax.psum(targets * predictions, 'classes')
    return -lax.pmean(losses, 'batch')


def named_broadcasting(x: f32[Array, Dims(2, 1, 1, a=2)], y: f32[Array, Dims(1, 3, 1, b=3)],
                       z: f32[Array, Dims(1, 1, 5, c=5)]) -> f32[Array, Dims(2, 3, 5, a=2, b=3, c=5)]:
    i: f32[Array, Dims(2, 3, 1, a=2, b=3)] = x + y
    j: f32[Array, Dims(1, 3, 5, b=3, c=5)] = y + z
    return i + j


def named_broadcast_and_reduce(x: f32[Array, Dims(x=2)], y: f32[Array, Dims(5, y=4)]) -> f32[Array, Dims()]:
    z: f32[Array, Dims(5, x=2, y=4)] = x + y
    return nnp.sum(z, axis=(0, 'x', 'y'))


def named_batch_matrix_single_matrix(x: f32[Array, Dims(5, b=20, k=7)],
                                     y: f32[Array, Dims(k=7, m=11)]) -> f32[Array, Dims(5, b=20, m=11)]:
    return nnp.einsum('n{b,k},{k,m}->n{b,m}', x, y)


def sum_two_args(x: f32[Array, Dims(a=4)], y: f32[Array, Dims(b=12)]) -> f32[Array, Dims()]:
    return nnp.sum(x, axis='a') + nnp.sum(y, axis='b')


@checked
def normalize(x: f32[Array, Dims('B', 'D')]) -> f32[Array, Dims('B', 'D')]:
    return x / jnp.linalg.norm(x, axis=-1, keepdims=True)


def main() -> None:
    k1, k2, k3, k4 = jax.random.split(jax.random.PRNGKey(0), 4)
    w1 = jax.random.normal(k1, (784, 512)) * 0.05
    w2 = jax.random.normal(k2, (512, 10)) * 0.05
    images = jax.random.normal(k3, (128, 784))
    labels = jax.random.randint(k4, (128,), 0, 10)
    in_axes = [['inputs', 'hidden', ...], ['hidden', 'classes', ...], ['batch', 'inputs', ...], ['batch', ...]]
    loss = xmap(named_loss, in_axes=in_axes, out_axes=[...])
    print('loss, vectorised:', loss(w1, w2, images, labels))
    devices = np.array(jax.devices())
    for resources, mesh in [({'batch': 'x'}, Mesh(devices, ('x',))),
                            ({'hidden': 'x'}, Mesh(devices, ('x',))),
                            ({'batch': 'x', 'hidden': 'y'}, Mesh(devices.reshape((4, 2)), ('x', 'y')))]:
        sharded = xmap(named_loss, in_axes=in_axes, out_axes=[...], axis_resources=resources)
        with jax.set_mesh(mesh):
            print(f'loss, axis_resources={resources}:', sharded(w1, w2, images, labels))

    y = xmap(lambda v: v, in_axes={0: 'batch'}, out_axes={1: 'batch'})(jnp.zeros((20, 5)))
    print('out_axes moves batch to dim 1:', y.shape)
    k = xmap(named_broadcasting, in_axes=(['a', ...], ['b', ...], ['c', ...]), out_axes=['a', 'b', 'c', ...])(
        jnp.ones((2, 2, 1, 1)), jnp.ones((3, 1, 3, 1)), jnp.ones((5, 1, 1, 5)))
    print('named broadcasting:', k.shape)
    r = xmap(named_broadcast_and_reduce, in_axes=({0: 'x'}, {1: 'y'}), out_axes={})(
        jnp.arange(2, dtype=np.float32), jnp.arange(20, dtype=np.float32).reshape((5, 4)))
    print('named reduction:', r)
    zx = xmap(named_batch_matrix_single_matrix, in_axes=[{0: 'b', 2: 'k'}, ['k', 'm', ...]],
              out_axes={0: 'b', 2: 'm'})(jnp.ones((20, 5, 7)), jnp.ones((7, 11)))
    print('named einsum:', zx.shape, 'equals positional:', bool(jnp.allclose(zx, 7.0)))
    with jax.set_mesh(Mesh(devices[:4], ('x',))):
        v = xmap(sum_two_args, in_axes=(['a', ...], ['b', ...]), out_axes=[...],
                 axis_resources={'a': 'x', 'b': 'x'})(jnp.ones(4), jnp.ones(12))
    print('sum_two_args on one resource:', v)
    print('pshuffle:', xmap(lambda x: lax.pshuffle(x, 'i', list(reversed(range(8)))),
                            in_axes=['i', ...], out_axes=['i', ...])(jnp.arange(8)))
    print('@checked normalize:', normalize(jnp.ones((2, 3))).shape)


if __name__ == '__main__':
    main()
