"""A two-layer MLP in the equinox style: parameters in a module, the forward pass annotated with jaxtyping."""

import equinox as eqx
import jax
import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, jaxtyped


@jaxtyped(typechecker=beartype)
def dense(w: Float[Array, "out inp"], b: Float[Array, "out"], x: Float[Array, "inp"]) -> Float[Array, "out"]:
    return w @ x + b


class MLP(eqx.Module):
    w1: Float[Array, "hidden d"]
    b1: Float[Array, "hidden"]
    w2: Float[Array, "c hidden"]
    b2: Float[Array, "c"]

    def __call__(self, x: Float[Array, "d"]) -> Float[Array, "c"]:
        h = jax.nn.relu(dense(self.w1, self.b1, x))
        return dense(self.w2, self.b2, h)


k1, k2 = jax.random.split(jax.random.key(0))
w1 = jax.random.normal(k1, (32, 8))
w2 = jax.random.normal(k2, (10, 32))
h = jax.nn.relu(dense(w1, jnp.zeros((32,)), jnp.ones((8,))))
logits = dense(w2, jnp.zeros((10,)), h)
mlp = MLP(w1, jnp.zeros((32,)), w2, jnp.zeros((10,)))
out = mlp(jnp.ones((8,)))
