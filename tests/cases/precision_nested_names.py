# Functions defined inside a map body run under that map: their axis names are bound there.
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

from namedcheck import f32

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))


@partial(jax.shard_map, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
def sgd_step(w: f32[(4, 3)], xb: f32[(4, 4)]) -> f32[(4, 3)]:
    def loss(w: f32[(4, 3)]) -> f32[()]:
        return lax.pmean(jnp.mean((xb @ w) ** 2), "data")

    value, g = jax.value_and_grad(loss)(w)
    return w - 0.1 * g


@partial(jax.shard_map, mesh=mesh, in_specs=P("data"), out_specs=P())
def global_sum(x: f32[(2,)]) -> f32[()]:
    def body(i: int, acc: f32[()]) -> f32[()]:
        return acc + lax.psum(x[i], "data")

    def total(v: f32[(2,)]) -> f32[()]:
        return lax.psum(v.sum(), "data")

    return lax.fori_loop(0, x.shape[0], body, jnp.zeros(())) + total(x)


def column_norms(x):
    def sq_norm(v: f32[(2,)]) -> f32[()]:
        return lax.psum((v * v).sum(), "data")

    return jnp.sqrt(sq_norm(x))


norms = jax.shard_map(column_norms, mesh=mesh, in_specs=P("data"), out_specs=P())  # defined here, called elsewhere


# --- wrong: nothing binds 'data' where this runs (no map, no mesh)
def unmapped_total(x: f32[(3,)]) -> f32[()]:
    def inner(v: f32[(3,)]) -> f32[()]:
        return lax.psum(v.sum(), "data")  # expect: NC705

    return inner(x)


# --- wrong: the nested loss names an axis the mesh lacks
@partial(jax.shard_map, mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
def bad_step(w: f32[(4, 3)], xb: f32[(4, 4)]) -> f32[(4, 3)]:
    def loss(w: f32[(4, 3)]) -> f32[()]:
        return lax.pmean(jnp.mean((xb @ w) ** 2), "batch")  # expect: NC501

    value, g = jax.value_and_grad(loss)(w)
    return w - 0.1 * g


w1 = sgd_step(jnp.ones((4, 3)), jnp.ones((16, 4)))
w2 = bad_step(jnp.ones((4, 3)), jnp.ones((16, 4)))
