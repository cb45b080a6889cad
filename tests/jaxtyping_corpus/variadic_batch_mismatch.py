"""Two inputs that share `*batch` are given different batch shapes."""

import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def gated(x: Float[Array, "*batch d"], gate: Float[Array, "*batch d"]) -> Float[Array, "*batch d"]:
    return x * jnp.tanh(gate)


y = gated(jnp.ones((2, 3, 8)), jnp.ones((2, 4, 8)))  # expect: NC303
