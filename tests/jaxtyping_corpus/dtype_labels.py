"""Integer labels expected, float labels passed."""

import jax
import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Float, Int, jaxtyped


@jaxtyped(typechecker=beartype)
def cross_entropy(logits: Float[Array, "n c"], labels: Int[Array, "n"]) -> Float[Array, ""]:
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))


loss = cross_entropy(jnp.ones((4, 10)), jnp.zeros((4,)))  # expect: NC304
