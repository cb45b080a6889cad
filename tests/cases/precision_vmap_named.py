# vmap(axis_name=...) read the xmap way: the instance type may declare the mapped axis as a named axis.
import jax
import jax.numpy as jnp
from jax import lax

from namedcheck import f32, i32


def center(x: f32[(64,), {"batch": 32}]) -> f32[(64,), {"batch": 32}]:
    mu = lax.pmean(x.mean(), "batch")
    return x - mu


def rank_in_batch(x: f32[(64,), {"batch": 32}], scale: f32[()]) -> f32[(64,), {"batch": 32}]:
    i: i32[(), {"batch": 32}] = lax.axis_index("batch")
    return x * scale + i


def plain(x: f32[(64,)]) -> f32[(64,)]:
    return x - lax.pmean(x.mean(), "batch")


xs = jnp.ones((32, 64))
centered = jax.vmap(center, in_axes=0, axis_name="batch")(xs)  # reveal: f32[(32, 64)]
ranked = jax.vmap(rank_in_batch, in_axes=(0, None), axis_name="batch")(xs, jnp.float32(2.0))
also_plain = jax.vmap(plain, axis_name="batch")(xs)  # reveal: f32[(32, 64)]
transposed = jax.vmap(center, in_axes=1, out_axes=1, axis_name="batch")(jnp.ones((64, 32)))  # reveal: f32[(64, 32)]

# --- wrong: the declared size of 'batch' is not the mapped size
bad_size = jax.vmap(center, axis_name="batch")(jnp.ones((16, 64)))  # expect: NC302


# --- wrong: the declared positional shape is not the instance's
def center_rows(x: f32[(32,), {"batch": 32}]) -> f32[(32,), {"batch": 32}]:
    return x - lax.pmean(x.mean(), "batch")


bad_shape = jax.vmap(center_rows, axis_name="batch")(xs)  # expect: NC302


# --- wrong: an unmapped argument does not carry the axis
def scale_by(x: f32[(64,), {"batch": 32}], s: f32[(64,), {"batch": 32}]) -> f32[(64,), {"batch": 32}]:
    return x * s


bad_unmapped = jax.vmap(scale_by, in_axes=(0, None), axis_name="batch")(xs, jnp.ones((64,)))  # expect: NC302
