"""Image patches flattened to tokens: the return size is an expression of the argument's sizes (`h*w`)."""

import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def to_tokens(x: Float[Array, "b h w c"]) -> Float[Array, "b h*w c"]:
    b, h, w, c = x.shape
    return x.reshape(b, h * w, c)


@jaxtyped(typechecker=beartype)
def embed(tokens: Float[Array, "b n c"], proj: Float[Array, "c e"]) -> Float[Array, "b n e"]:
    return tokens @ proj


t = to_tokens(jnp.ones((2, 4, 4, 3)))
e = embed(t, jnp.ones((3, 16)))
