"""flax's TrainState through `create` / `apply_gradients`: the parameters take `params + updates` leaf by leaf as
optax.apply_updates does (a gradient that broadcasts gives its shape; one that does not raises, NC201).
tests/test_flax_under_jax.py runs every statement under JAX and flax."""

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from flax.training import train_state

model = nn.Dense(3)
params = model.init(jax.random.key(0), jnp.ones((2, 4)))["params"]
state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))
grads = jax.tree.map(jnp.zeros_like, state.params)
state = state.apply_gradients(grads=grads)
kernel = state.params["kernel"]  # reveal: f32[(4, 3)]
out = state.apply_fn({"params": state.params}, jnp.ones((5, 4)))  # reveal: f32[(5, 3)]
stacked = jax.tree.map(lambda g: jnp.zeros((1, *g.shape)), grads)
widened = state.apply_gradients(grads=stacked)
wide_kernel = widened.params["kernel"]  # reveal: f32[(1, 4, 3)]
flat = jax.tree.map(lambda g: jnp.ones((5,)), grads)
broken = state.apply_gradients(grads=flat)  # expect: NC201
