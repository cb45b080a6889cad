"""A function promises one padding step (`n+1`) but pads two."""

import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def pad_end(x: Float[Array, "n"]) -> Float[Array, "n+1"]:
    return jnp.pad(x, (0, 2))  # expect: NC301


d = pad_end(jnp.arange(6.0))
