"""A pooling function declares per-example features but reduces them away: the return has the wrong rank."""

import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def pool(x: Float[Array, "batch seq d"]) -> Float[Array, "batch d"]:
    return x.mean(axis=(1, 2))  # expect: NC301


pooled = pool(jnp.ones((4, 10, 8)))
