# lax.axis_index(n) under a named-axis map is an int32 scalar per instance, carrying n.
import jax.numpy as jnp
from jax import lax

from namedcheck import f32, i32, xmap


def shift_by_rank(x: f32[(4,), {"dev": 8}]) -> f32[(4,), {"dev": 8}]:
    i: i32[(), {"dev": 8}] = lax.axis_index("dev")
    return x + i


def rank_offsets(x: f32[(4,), {"dev": 8}]) -> f32[(4,), {"dev": 8}]:
    i = lax.axis_index("dev")  # reveal: i32[(), {'dev': 8}]
    return x * i


shifted = xmap(shift_by_rank, in_axes=["dev", ...], out_axes=["dev", ...])(jnp.ones((8, 4)))  # reveal: f32[(8, 4)]
offsets = xmap(rank_offsets, in_axes=["dev", ...], out_axes=["dev", ...])(jnp.ones((8, 4)))


# --- wrong: the declared size of 'dev' is not the size the map binds
def wrong_rank(x: f32[(4,), {"dev": 8}]) -> f32[(4,), {"dev": 8}]:
    i: i32[(), {"dev": 4}] = lax.axis_index("dev")  # expect: NC301
    return x


bad = xmap(wrong_rank, in_axes=["dev", ...], out_axes=["dev", ...])(jnp.ones((8, 4)))


# --- wrong: the index carries 'dev', the annotation says it does not
def unnamed_rank(x: f32[(4,), {"dev": 8}]) -> f32[(4,), {"dev": 8}]:
    i: i32[()] = lax.axis_index("dev")  # expect: NC301
    return x + i
