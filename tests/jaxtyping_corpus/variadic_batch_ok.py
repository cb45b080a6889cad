"""A layer norm over any leading batch dimensions (`*batch`), called with several batch shapes."""

import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def layer_norm(
    x: Float[Array, "*batch d"], scale: Float[Array, "d"], eps: float = 1e-5
) -> Float[Array, "*batch d"]:
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + eps) * scale


a = layer_norm(jnp.ones((8,)), jnp.ones((8,)))
b = layer_norm(jnp.ones((2, 8)), jnp.ones((8,)))
c = layer_norm(jnp.ones((2, 3, 8)), jnp.ones((8,)))
