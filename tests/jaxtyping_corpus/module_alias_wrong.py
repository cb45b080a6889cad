"""The same through `import jaxtyping`: a vector of the wrong length for the matrix."""

import jax.numpy as jnp
import jaxtyping
from beartype import beartype


@jaxtyping.jaxtyped(typechecker=beartype)
def quadratic(a: jaxtyping.Float32[jaxtyping.Array, "d d"], x: jaxtyping.Float32[jaxtyping.Array, "d"]) -> jaxtyping.Float32[jaxtyping.Array, ""]:
    return x @ a @ x


q = quadratic(jnp.eye(3), jnp.ones((4,)))  # expect: NC303
