"""A decoding step appends one key to the cache; the new key has the wrong head size."""

import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def append(cache: Float[Array, "t h d"], new: Float[Array, "h d"]) -> Float[Array, "t+1 h d"]:
    return jnp.concatenate([cache, new[None]], axis=0)


cache = jnp.zeros((5, 4, 8))
cache = append(cache, jnp.ones((4, 8)))
cache = append(cache, jnp.ones((4, 16)))  # expect: NC303
