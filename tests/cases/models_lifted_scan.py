"""A linen `__call__` under a lifted scan (`@partial(nn.scan, in_axes=1, ...)`): its body sees one slice of the
sequence per step, so the arguments a call passes are not what the body sees; the module's own layers are
still checked where they are applied outside the scan."""

from functools import partial

import flax.linen as nn
import jax
import jax.numpy as jnp


class StepConcat(nn.Module):
    @partial(nn.scan, variable_broadcast="params", in_axes=1, out_axes=1, split_rngs={"params": False})
    @nn.compact
    def __call__(self, carry, x):
        y = nn.Dense(4)(x)
        return carry, jnp.concatenate([carry, y], axis=-1)  # a slice (1, 15) here: (1, 4) and (1, 4)


class Head(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(3)(x)


x = jnp.ones((1, 7, 15))  # reveal: f32[(1, 7, 15)]
carry = jnp.zeros((1, 4))
params = StepConcat().init(jax.random.PRNGKey(0), carry, x)
_, ys = StepConcat().apply(params, carry, x)
head = Head().init(jax.random.PRNGKey(0), jnp.ones((2, 5)))
good = Head().apply(head, jnp.ones((2, 5)))  # reveal: f32[(2, 3)]
wrong = Head().apply(head, jnp.ones((2, 6)))  # expect: NC305
