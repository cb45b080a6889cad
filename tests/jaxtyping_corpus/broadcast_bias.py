"""A bias of the input width added to the output: a broadcasting mismatch inside the body."""

import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def affine(w: Float[Array, "o i"], b: Float[Array, "i"], x: Float[Array, "n i"]) -> Float[Array, "n o"]:
    return x @ w.T + b  # expect: NC201


y = affine(jnp.ones((3, 4)), jnp.ones((4,)), jnp.ones((2, 4)))
