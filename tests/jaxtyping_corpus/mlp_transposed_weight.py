"""The first layer's weight is stored (inp, out) but `dense` takes (out, inp): the transposed weight."""

import jax
import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def dense(w: Float[Array, "out inp"], b: Float[Array, "out"], x: Float[Array, "inp"]) -> Float[Array, "out"]:
    return w @ x + b


w1 = jax.random.normal(jax.random.key(0), (8, 32))  # (inp, out): should be (32, 8)
h = dense(w1, jnp.zeros((32,)), jnp.ones((8,)))  # expect: NC303
