"""Keys and values disagree on the sequence length `tk`."""

import jax
import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def attention(q: Float[Array, "tq d"], k: Float[Array, "tk d"], v: Float[Array, "tk dv"]) -> Float[Array, "tq dv"]:
    weights = jax.nn.softmax(q @ k.T / jnp.sqrt(q.shape[-1]), axis=-1)
    return weights @ v


out = attention(jnp.ones((5, 16)), jnp.ones((7, 16)), jnp.ones((6, 32)))  # expect: NC303
