"""An equinox layer whose fields jaxtyping checks when it is built: the weight is passed transposed."""

import equinox as eqx
import jax
import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
class Linear(eqx.Module):
    weight: Float[Array, "out inp"]
    bias: Float[Array, "out"]

    def __call__(self, x: Float[Array, "inp"]) -> Float[Array, "out"]:
        return self.weight @ x + self.bias


w = jax.random.normal(jax.random.key(0), (16, 64))  # (inp, out)
layer = Linear(w, jnp.zeros((64,)))  # expect: NC303
