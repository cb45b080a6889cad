"""Scaled dot-product attention over a batch of heads, dimensions named as research code names them."""

import jax
import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def attention(
    q: Float[Array, "*batch tq d"], k: Float[Array, "*batch tk d"], v: Float[Array, "*batch tk dv"]
) -> Float[Array, "*batch tq dv"]:
    scores = q @ jnp.swapaxes(k, -1, -2) / jnp.sqrt(q.shape[-1])
    return jax.nn.softmax(scores, axis=-1) @ v


q = jnp.ones((2, 4, 5, 16))
k = jnp.ones((2, 4, 7, 16))
v = jnp.ones((2, 4, 7, 32))
out = attention(q, k, v)
single = attention(jnp.ones((5, 16)), jnp.ones((7, 16)), jnp.ones((7, 32)))
