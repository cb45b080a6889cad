# Annotations state dtype and shapes, never varying axes: an annotated name keeps its value's varying set.
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

from namedcheck import f32

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))


@partial(jax.shard_map, mesh=mesh, in_specs=P("data"), out_specs=P("data"))
def running_total(x):
    total0: f32[()] = lax.pcast(jnp.zeros(()), "data", to="varying")  # reveal: f32[()]{V:data}

    def add_row(i, acc):
        return acc + x[i]

    total = lax.fori_loop(0, x.shape[0], add_row, total0)
    return x * total


def prefix_step(c, r):
    return c + r, c


@partial(jax.shard_map, mesh=mesh, in_specs=P("data"), out_specs=P("data"))
def prefix_sums(x):
    init: f32[(3,)] = lax.pcast(jnp.zeros((3,)), "data", to="varying")
    last, ys = lax.scan(prefix_step, init, x)
    return ys


@partial(jax.shard_map, mesh=mesh, in_specs=P("data"), out_specs=P("data"))
def scaled(x):
    y: f32[(2, 3)] = x * 2.0  # reveal: f32[(2, 3)]{V:data}
    return y


@partial(jax.shard_map, mesh=mesh, in_specs=P("data"), out_specs=P("data"))
def from_helper(x):
    start: f32[(3,)] = jax.tree.map(lambda v: v[0], x)  # not inferred: its varying set is not known either
    last, ys = lax.scan(prefix_step, start, x)
    return ys


@partial(jax.shard_map, mesh=mesh, in_specs=P("data"), out_specs=P("data"))
def nested_loops(x):
    def outer(i, acc: f32[(3,)]) -> f32[(3,)]:  # acc arrives not inferred: the annotation says nothing of 'data'
        return lax.fori_loop(0, 2, lambda j, a: a + x[j], acc)

    return lax.fori_loop(0, 2, outer, jax.tree.map(lambda v: v[0], x))[None] + x


# --- wrong: the annotated carry really is invariant, the body makes it vary
@partial(jax.shard_map, mesh=mesh, in_specs=P("data"), out_specs=P("data"))
def bad_total(x):
    total0: f32[()] = jnp.zeros(())

    def add_row(i, acc):
        return acc + x[i]

    total = lax.fori_loop(0, x.shape[0], add_row, total0)  # expect: NC602
    return x * total


# --- wrong: an annotated varying value returned under out_specs that promise replication
@partial(jax.shard_map, mesh=mesh, in_specs=P("data"), out_specs=P())  # expect: NC601
def bad_scaled(x):
    y: f32[(2, 3)] = x * 2.0
    return y


a = jnp.ones((8, 3))
t = running_total(jnp.arange(8.0))
s = prefix_sums(a)
z = scaled(a)
h = from_helper(a)
n = nested_loops(a)
bt = bad_total(jnp.arange(8.0))  # the wrong programs are reported where they are called
bs = bad_scaled(a)
