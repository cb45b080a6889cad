"""reveal_type: an NC003 note with the inferred type (right: the same program without it is silent)."""

from typing import reveal_type

import jax.numpy as jnp

x = jnp.zeros((3, 4))  # reveal: f32[(3, 4)]
y = reveal_type(x.sum(axis=0))  # expect: NC003
z = y * 2  # reveal: f32[(4,)]
