"""Precise dtype classes (`Float32`, `Int32`, `Bool`) and families (`Real`, `Num`, `Shaped`) satisfied."""

import jax.numpy as jnp
from beartype import beartype
from jaxtyping import Array, Bool, Float32, Int32, Num, Real, Shaped, jaxtyped


@jaxtyped(typechecker=beartype)
def masked_sum(x: Float32[Array, "n"], mask: Bool[Array, "n"], offset: Int32[Array, ""]) -> Real[Array, ""]:
    return jnp.where(mask, x, 0.0).sum() + offset


@jaxtyped(typechecker=beartype)
def first(x: Shaped[Array, "n ..."]) -> Shaped[Array, "..."]:
    return x[0]


@jaxtyped(typechecker=beartype)
def double(x: Num[Array, "n"]) -> Num[Array, "n"]:
    return 2 * x


s = masked_sum(jnp.ones((5,), jnp.float32), jnp.ones((5,), bool), jnp.array(3, jnp.int32))
f = first(jnp.ones((3, 2, 2), jnp.int32))
d = double(jnp.arange(4))
