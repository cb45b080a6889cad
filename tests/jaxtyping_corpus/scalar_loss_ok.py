"""A mean squared error returning a scalar (`""`), with an anonymous `...` for the target's dimensions."""

import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def mse(pred: Float[Array, "..."], target: Float[Array, "..."]) -> Float[Array, ""]:
    return jnp.mean((pred - target) ** 2)


loss = mse(jnp.ones((4, 3)), jnp.zeros((4, 3)))
total = mse(jnp.ones((7,)), jnp.zeros((7,))) + loss
