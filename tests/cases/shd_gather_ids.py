"""A gather (`x[ids]`, `x.at[ids].get()`, `jnp.take`) with indices sharded over Explicit mesh axes: JAX cannot
resolve its out sharding, even from an unsharded table (NC806); replicated indices are fine."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

table = jnp.ones((10, 16))  # reveal: f32[(10, 16)]
ids = jax.device_put(jnp.arange(8), P('data'))  # reveal: i32[(8@data,)]
rows = table[ids]  # expect: NC806
rows_at = table.at[ids].get()  # expect: NC806
rows_out = table.at[ids].get(out_sharding=P('data'))  # reveal: f32[(8@data, 16)]
rows_take = jnp.take(table, ids, axis=0)  # expect: NC806
plain = table[jnp.arange(8)]  # reveal: f32[(8, 16)]
cols = jax.device_put(table, P(None, 'model'))[jnp.arange(4)]  # reveal: f32[(4, 16@model)]


@jax.jit
def lookup(t, i):
    return t[i]  # expect: NC806


@jax.jit
def lookup_ok(t, i):
    return t[jax.sharding.reshard(i, P())]


bad = lookup(table, ids)
good = lookup_ok(table, ids)  # reveal: f32[(8, 16)]
