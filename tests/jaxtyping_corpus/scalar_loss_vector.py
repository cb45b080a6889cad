"""A loss declared scalar returns per-example values."""

import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def mse(pred: Float[Array, "n k"], target: Float[Array, "n k"]) -> Float[Array, ""]:
    return jnp.mean((pred - target) ** 2, axis=-1)  # expect: NC301


loss = mse(jnp.ones((4, 3)), jnp.zeros((4, 3)))
