"""A classifier head declares 10 classes but its weight has 12 rows."""

import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped

W = jnp.ones((12, 64))


@jaxtyped(typechecker=beartype)
def head(features: Float[Array, "64"]) -> Float[Array, "10"]:
    return W @ features  # expect: NC301


logits = head(jnp.ones((64,)))
