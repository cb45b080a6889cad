"""Broadcastable (`#n`) and anonymous (`_`) dimensions accept what jaxtyping accepts."""

import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def scale(x: Float[Array, "n d"], s: Float[Array, "#n d"]) -> Float[Array, "n d"]:
    return x * s


@jaxtyped(typechecker=beartype)
def rows(x: Float[Array, "_ d"]) -> Float[Array, "d"]:
    return x.sum(axis=0)


a = scale(jnp.ones((4, 3)), jnp.ones((1, 3)))
b = scale(jnp.ones((4, 3)), jnp.ones((4, 3)))
r = rows(jnp.ones((9, 3))) + rows(jnp.ones((2, 3)))
