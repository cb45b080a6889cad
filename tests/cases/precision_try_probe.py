"""A `try` whose handler catches what JAX raises is a probe or a fallback: its body reports nothing, and the
handler's own return is one of the function's results (praxis' `is_running_under_pmap`)."""

import jax
import jax.numpy as jnp
from absl.testing import absltest

from namedcheck import f32


def under_pmap() -> bool:
    try:
        _ = jax.lax.axis_index("batch")
        return True
    except NameError:
        return False


def moments(x):
    total = jnp.sum(x, axis=0)
    if under_pmap():
        total = jax.lax.psum(total, axis_name="batch")
    return total


def moments_typed(x: f32[(4, 3)]) -> f32[(3,)]:
    total = jnp.sum(x, axis=0)
    if under_pmap():  # a guard: the collective runs only under a pmap that binds the name
        total = jax.lax.psum(total, axis_name="batch")
    return total


def fallback(x):
    try:
        return x @ jnp.ones((5, 2))
    except TypeError:
        return x


def unprotected(x):
    try:
        return x @ jnp.ones((5, 2))  # expect: NC203
    except KeyError:
        return x


class MomentsTest(absltest.TestCase):
    def test_moments(self):
        moments(jnp.ones((4, 3)))
        fallback(jnp.ones((4, 3)))


if __name__ == "__main__":
    unprotected(jnp.ones((4, 3)))
