"""Equinox layers built with fields of the declared shapes, and a block that chains them."""

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


@jaxtyped(typechecker=beartype)
class Block(eqx.Module):
    up: Linear
    down: Linear

    def __call__(self, x: Float[Array, "d"]) -> Float[Array, "d"]:
        return x + self.down(jax.nn.gelu(self.up(x)))


k1, k2 = jax.random.split(jax.random.key(0))
up = Linear(jax.random.normal(k1, (64, 16)), jnp.zeros((64,)))
down = Linear(jax.random.normal(k2, (16, 64)), jnp.zeros((16,)))
block = Block(up, down)
y = block(jnp.ones((16,)))
