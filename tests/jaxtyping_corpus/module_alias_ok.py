"""jaxtyping imported as a module (`import jaxtyping as jt`), annotations through type aliases."""

import jax.numpy as jnp
import jaxtyping as jt
from beartype import beartype

Vector = jt.Float[jt.Array, "d"]
Matrix = jt.Float[jt.Array, "d d"]


@jt.jaxtyped(typechecker=beartype)
def quadratic(a: Matrix, x: Vector) -> jt.Float[jt.Array, ""]:
    return x @ a @ x


q = quadratic(jnp.eye(3), jnp.ones((3,)))
