"""A `chex.dataclass` state is a pytree like a flax struct dataclass: mapped field by field (not run under JAX
by the tests: chex is not a test dependency)."""

import chex
import jax
import jax.numpy as jnp


@chex.dataclass
class Params:
    embed: jax.Array
    head: jax.Array

    @property
    def width(self):
        return self.embed.shape[1]


def right_chex_params():
    params = Params(embed=jnp.ones((100, 16)), head=jnp.ones((16, 4)))
    grads = jax.tree.map(jnp.ones_like, params)
    new = jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)
    head = new.head  # reveal: f32[(16, 4)]
    width = params.width  # reveal: Const(value=16)
    logits = new.embed[jnp.zeros((3,), jnp.int32)] @ head  # reveal: f32[(3, 4)]
    return logits, width


def wrong_chex_params():
    params = Params(embed=jnp.ones((100, 16)), head=jnp.ones((16, 4)))
    doubled = jax.tree.map(lambda a: jnp.concatenate([a, a]), params)
    return params.embed @ doubled.head  # expect: NC203
