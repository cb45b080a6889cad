"""flax linen parameters: `init` makes them for its inputs; `apply` on inputs (or a model) of other sizes is NC305."""
import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from flax.training import train_state


class MLP(nn.Module):
    hidden: int

    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(self.hidden)(x))
        return nn.Dense(2)(x)


model = MLP(hidden=16)
variables = model.init(jax.random.key(0), jnp.ones((4, 8)))
params = variables["params"]
k = params["Dense_1"]["kernel"]  # reveal: f32[(16, 2)]
state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))


def loss_fn(p, x):
    return jnp.mean(state.apply_fn({"params": p}, x) ** 2)


grads = jax.grad(loss_fn)(state.params, jnp.ones((4, 8)))
state = state.apply_gradients(grads=grads)
ok = state.apply_fn({"params": state.params}, jnp.ones((3, 8)))  # reveal: f32[(3, 2)]
bad = state.apply_fn({"params": state.params}, jnp.ones((3, 7)))  # expect: NC305
new_params = optax.apply_updates(params, grads)
bad2 = model.apply({"params": new_params}, jnp.ones((3, 7)))  # expect: NC305
bad3 = MLP(hidden=32).apply(variables, jnp.ones((4, 8)))  # expect: NC305
layer = nn.Dense(3)
lv = layer.init(jax.random.key(0), jnp.ones((2, 5)))
lk = lv["params"]["kernel"]  # reveal: f32[(5, 3)]
bad4 = layer.apply(lv, jnp.ones((2, 4)))  # expect: NC305
