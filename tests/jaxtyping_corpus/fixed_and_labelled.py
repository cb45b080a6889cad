"""Fixed sizes, written bare and as `name=size` (a label): an RGB image must have 3 channels."""

import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def to_gray(img: Float[Array, "h w channels=3"]) -> Float[Array, "h w"]:
    return img @ jnp.array([0.299, 0.587, 0.114])


gray = to_gray(jnp.ones((4, 4, 3)))
bad = to_gray(jnp.ones((4, 4, 4)))  # expect: NC302
