"""Size expressions: a padded sequence is `n+2` long, a pair of halves `2*h`."""

import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def pad_ends(x: Float[Array, "n d"]) -> Float[Array, "n+2 d"]:
    return jnp.pad(x, ((1, 1), (0, 0)))


@jaxtyped(typechecker=beartype)
def join_halves(a: Float[Array, "h"], b: Float[Array, "h"]) -> Float[Array, "2*h"]:
    return jnp.concatenate([a, b])


p = pad_ends(jnp.ones((5, 3)))
j = join_halves(jnp.ones((4,)), jnp.ones((4,)))
