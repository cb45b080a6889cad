"""Sharded programs with shard_map: a data-parallel train step and a Megatron-style MLP.

namedcheck tracks each value's varying mesh axes (JAX's VMA) through the body: inputs vary over the
axes of their in_specs, psum / pmean remove axes, collectives add theirs, and each output must not
vary over an axis its out_specs leaves out.
"""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array, lax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

from namedcheck import Dims, f32

mesh = Mesh(np.array(jax.devices()).reshape((4, 2)), ('data', 'model'))


def loss(w: f32[Array, Dims(784, 10)], x: f32[Array, Dims('B', 784)], y: f32[Array, Dims('B', 10)]) -> f32[Array, Dims()]:
    return jnp.mean((x @ w - y) ** 2)


@partial(jax.shard_map, mesh=mesh, in_specs=(P(), P('data'), P('data')), out_specs=P())
def train_step(w, x, y):
    # per device: x is (B / 4, 784) and varies over 'data'; w is replicated (invariant)
    g = jax.grad(loss)(w, x, y)
    g = lax.pmean(g, 'data')  # average the per-shard gradients: invariant again
    return w - 0.01 * g


@partial(jax.shard_map, mesh=mesh, in_specs=(P('data', None), P(None, 'model'), P('model', None)),
         out_specs=P('data', None))
def mlp(x, w1, w2):
    h = jax.nn.relu(x @ w1)  # (B / 4, 1024 / 2): hidden units split over 'model'
    partial_out = h @ w2  # partial sums: varies over 'model'
    return lax.psum(partial_out, 'model')  # complete the contraction: invariant over 'model'


def main() -> None:
    w = jnp.zeros((784, 10))
    x = jnp.zeros((64, 784))
    y = jnp.zeros((64, 10))
    new_w: f32[Array, Dims(784, 10)] = train_step(w, x, y)
    out: f32[Array, Dims(64, 784)] = mlp(x, jnp.zeros((784, 1024)), jnp.zeros((1024, 784)))
    print(new_w.shape, out.shape)


if __name__ == "__main__":
    main()
