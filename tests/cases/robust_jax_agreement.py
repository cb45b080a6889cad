"""Shapes JAX rejects that the engine once accepted (issue 10): tril / triu need 2 dimensions, vmap needs a
mapped size, out_axes=None needs an unmapped output, pad_width has one of five shapes."""
import jax
import jax.numpy as jnp

from namedcheck import f32


def right(m: f32[(3, 4)], v: f32[(4,)], batch: f32[(8, 4)]) -> None:
    lower = jnp.tril(m)  # reveal: f32[(3, 4)]
    upper = jnp.triu(m, k=1)  # reveal: f32[(3, 4)]
    tiled = jax.vmap(lambda a: a * 2, in_axes=None, axis_size=5)(v)  # reveal: f32[(5, 4)]
    shared = jax.vmap(lambda a, b: b + 1, in_axes=(0, None), out_axes=None)(batch, v)  # reveal: f32[(4,)]
    padded = jnp.pad(m, ((1, 1), (0, 2)))  # reveal: f32[(5, 6)]
    same = jnp.pad(m, (1, 2))  # reveal: f32[(6, 7)]
    once = jnp.pad(m, ((2, 0),))  # reveal: f32[(5, 6)]


def wrong(m: f32[(3, 4)], v: f32[(4,)], batch: f32[(8, 4)]) -> None:
    a = jnp.tril(v)  # expect: NC203
    b = jnp.triu(jnp.ones(()))  # expect: NC203
    c = jax.vmap(lambda x: x * 2, in_axes=None)(v)  # expect: NC402
    d = jax.vmap(lambda x: x, out_axes=None)(batch)  # expect: NC402
    e = jnp.pad(m, ((1, 1), (0, 2), (3, 3)))  # expect: NC203
