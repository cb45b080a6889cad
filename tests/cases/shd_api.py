"""Explicit-axis sharding in types through the sharding API: gathers with sharded indices,
with_sharding_constraint as an assertion, jit's in_shardings against committed arguments, scan carries."""

from functools import partial

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

table = jnp.ones((10, 16))  # reveal: f32[(10, 16)]
ids = jax.device_put(jnp.arange(8), P('data'))  # reveal: i32[(8@data,)]
rows = jnp.take(table, ids, axis=0)  # expect: NC806
rows_ok = jnp.take(jax.device_put(table, P(None, 'model')), jnp.arange(4), axis=0)  # reveal: f32[(4, 16@model)]
rows_axis = jnp.take(jax.device_put(jnp.ones((12, 16)), P('data', None)), jnp.arange(4), axis=0)  # expect: NC806

x = jax.device_put(jnp.ones((8, 16)), NamedSharding(mesh, P('data', None)))  # reveal: f32[(8@data, 16)]


@jax.jit
def constrain_bad(a):
    return lax.with_sharding_constraint(a, P('model', None))  # expect: NC807


@jax.jit
def constrain_ok(a):
    return lax.with_sharding_constraint(a * 2, P('data', None))


bad = constrain_bad(x)
ok = constrain_ok(x)  # reveal: f32[(8@data, 16)]
eager_bad = lax.with_sharding_constraint(jnp.ones((8, 4)), P('data'))  # expect: NC807
moved = jax.sharding.reshard(x, P(None, 'model'))  # reveal: f32[(8, 16@model)]


@partial(jax.jit, in_shardings=P('data'))
def double(a):
    return a * 2


replicated = jnp.ones((8, 4))  # reveal: f32[(8, 4)]
doubled_bad = double(replicated)  # expect: NC808
doubled = double(jax.device_put(replicated, P('data')))  # reveal: f32[(8@data, 4)]
doubled_np = double(jax.random.normal(jax.random.key(0), (8, 4), out_sharding=P('data')))  # reveal: f32[(8@data, 4)]


def grow(c, _):
    return jax.sharding.reshard(c * 2, P(None, 'model')), None


def keep(c, _):
    return jnp.tanh(c), None


carry_bad, _ = lax.scan(grow, x, None, length=3)  # expect: NC809
carried = lax.scan(keep, x, None, length=3)[0]  # reveal: f32[(8@data, 16)]
