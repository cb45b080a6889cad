"""The contraction rewrite: vectorised named contractions become one dot_general, same values."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax._src import core

import namedcheck.lax as nlax
from namedcheck import xmap
from namedcheck.runtime.contract import fuse_contractions


def primitives(closed) -> list[str]:
    return [e.primitive.name for e in closed.jaxpr.eqns]


def test_psum_of_batched_dot_becomes_a_contraction():
    x, y = jax.random.normal(jax.random.PRNGKey(0), (6, 4)), jax.random.normal(jax.random.PRNGKey(1), (6, 5))
    f = jax.vmap(lambda a, b: lax.psum(a[:, None] * b[None, :], "k"), axis_name="k", out_axes=None)
    g = jax.vmap(lambda a, b: nlax.pdot(a, b, "k"), axis_name="k", out_axes=None)
    closed = jax.make_jaxpr(g)(x, y)
    assert "psum" in primitives(closed)
    fused = fuse_contractions(closed)
    assert "psum" not in primitives(fused)
    np.testing.assert_allclose(core.jaxpr_as_fun(fused)(x, y)[0], x.T @ y, rtol=1e-5)
    np.testing.assert_allclose(f(x, y), x.T @ y, rtol=1e-5)


def test_psum_through_a_transpose():
    x, w = jax.random.normal(jax.random.PRNGKey(2), (3, 4, 8)), jax.random.normal(jax.random.PRNGKey(3), (4, 8, 5))

    def body(a, b):  # a: (8,) {b, h}, b: (8, 5) {h}
        return lax.psum(a @ b, "h")

    f = xmap(body, in_axes=(["b", "h", ...], ["h", ...]), out_axes=["b", ...])
    np.testing.assert_allclose(f(x, w), jnp.einsum("bhd,hde->be", x, w), rtol=1e-5, atol=1e-5)


def test_other_uses_of_the_product_are_left_alone():
    x = jax.random.normal(jax.random.PRNGKey(4), (6, 4))

    def body(a):
        p = jnp.outer(a, a)
        return lax.psum(p, "k"), p

    closed = jax.make_jaxpr(jax.vmap(body, axis_name="k", out_axes=(None, 0)))(x)
    fused = fuse_contractions(closed)
    assert primitives(fused) == primitives(closed)
