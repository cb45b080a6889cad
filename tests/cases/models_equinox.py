"""equinox modules hold their parameters: one built for one input width and called on another fails in the call."""
import equinox as eqx
import jax
import jax.numpy as jnp


class Head(eqx.Module):
    hidden: eqx.nn.Linear
    out: eqx.nn.Linear

    def __init__(self, in_features, width, key):
        k1, k2 = jax.random.split(key)
        self.hidden = eqx.nn.Linear(in_features, width, key=k1)
        self.out = eqx.nn.Linear(width, 1, key=k2)

    def __call__(self, x):
        return self.out(jax.nn.relu(self.hidden(x)))  # expect: NC203


head = Head(5, 16, jax.random.key(0))
y = head(jnp.ones(5))  # reveal: f32[(1,)]
batch = jax.vmap(head)(jnp.ones((8, 5)))  # reveal: f32[(8, 1)]
narrow = head(jnp.ones(3))  # JAX raises in the call (reported in __call__, "called here")
linear = eqx.nn.Linear(5, 2, key=jax.random.key(1))
z = linear(jnp.ones(5))  # reveal: f32[(2,)]
wrong = linear(jnp.ones(4))  # expect: NC203
