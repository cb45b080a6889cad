"""equinox's state: `eqx.nn.StateIndex(init)` in a module, the state `eqx.nn.make_with_state` gives, `state.get(index)`
(the index's value: equinox's `set` keeps its shape and dtype) and `state.set(index, value)`. Run under JAX by
tests/test_equinox_under_jax.py."""

import equinox as eqx
import jax
import jax.numpy as jnp


class Counter(eqx.Module):
    index: eqx.nn.StateIndex
    lin: eqx.nn.Linear

    def __init__(self, key):
        self.index = eqx.nn.StateIndex(jnp.zeros((3,)))
        self.lin = eqx.nn.Linear(2, 3, key=key)

    def __call__(self, x, state):
        prev = state.get(self.index)
        y = self.lin(x) + prev
        state = state.set(self.index, y)
        return y, state


model, state = eqx.nn.make_with_state(Counter)(jax.random.key(0))
y, state = model(jnp.ones(2), state)
out = y  # reveal: f32[(3,)]
running = state.get(model.index)  # reveal: f32[(3,)]
again = model(jnp.ones(2), state)[0]  # reveal: f32[(3,)]
