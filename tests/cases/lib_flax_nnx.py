"""flax nnx: modules built in `__init__` and called in `__call__`, variables, `Rngs`, `split` / `state` / `merge`,
`Sequential`, `BatchNorm`, and the transforms (`jit`, `vmap` with the module broadcast, `remat`, `value_and_grad`).
tests/test_flax_under_jax.py runs every statement under JAX and flax: it raises exactly on the lines with an
`expect`, and every `reveal` is the shape it computes."""

import jax
import jax.numpy as jnp
from flax import nnx


class Classifier(nnx.Module):
    def __init__(self, din, hidden, classes, *, rngs: nnx.Rngs):
        self.proj = nnx.Linear(din, hidden, rngs=rngs)
        self.norm = nnx.BatchNorm(hidden, rngs=rngs)
        self.drop = nnx.Dropout(0.2, rngs=rngs)
        self.head = nnx.Param(jax.random.normal(rngs.params(), (hidden, classes)))
        self.bias = nnx.Param(jnp.zeros((classes,)))

    def __call__(self, x):
        h = nnx.relu(self.norm(self.proj(x)))  # expect: NC203
        return self.drop(h) @ self.head[...] + self.bias.value


rngs = nnx.Rngs(0)
key = rngs.params()
noise = jax.random.normal(rngs(), (3, 2))  # reveal: f32[(3, 2)]
model = Classifier(12, 32, 5, rngs=rngs)
batch = jnp.ones((16, 12))
logits = model(batch)  # reveal: f32[(16, 5)]
narrow = model(jnp.ones((16, 10)))  # (raises in __call__)

graphdef, state = nnx.split(model)
kernel = state["proj"]["kernel"].value  # reveal: f32[(12, 32)]
running_mean = state["norm"]["mean"][...]  # reveal: f32[(32,)]
head = state["head"][...]  # reveal: f32[(32, 5)]
_, params, rest = nnx.split(model, nnx.Param, ...)
norm_scale = params["norm"]["scale"][...]  # reveal: f32[(32,)]
running_var = rest["norm"]["var"][...]  # reveal: f32[(32,)]
only_params = nnx.state(model, nnx.Param)
proj_bias = only_params["proj"]["bias"][...]  # reveal: f32[(32,)]
rebuilt = nnx.merge(graphdef, state)
again = rebuilt(batch)  # reveal: f32[(16, 5)]
rebuilt_bad = rebuilt(jnp.ones((4, 6)))  # (raises in __call__)


@nnx.jit
def predict(model, x):
    return model(x)


jitted = predict(model, jnp.ones((3, 12)))  # reveal: f32[(3, 5)]


def loss_fn(model, x, y):
    return jnp.mean((model(x) - y) ** 2)  # expect: NC201


loss, grads = nnx.value_and_grad(loss_fn)(model, batch, jnp.zeros((16, 5)))
loss_value = loss  # reveal: f32[()]
bad_targets = nnx.value_and_grad(loss_fn)(model, batch, jnp.zeros((16, 4)))  # (raises in loss_fn)
checkpointed = nnx.remat(loss_fn)(model, batch, jnp.zeros((16, 5)))  # reveal: f32[()]

mlp = nnx.Sequential(nnx.Linear(6, 16, rngs=rngs), nnx.gelu, nnx.Linear(16, 3, rngs=rngs))
mlp_out = mlp(jnp.ones((2, 6)))  # reveal: f32[(2, 3)]
mlp_bad = mlp(jnp.ones((2, 5)))  # expect: NC203
second = nnx.state(mlp)["layers"][2]["kernel"][...]  # reveal: f32[(16, 3)]
per_example = nnx.vmap(lambda m, x: m(x), in_axes=(None, 0))(mlp, jnp.ones((7, 4, 6)))  # reveal: f32[(7, 4, 3)]


class Stack(nnx.Module):
    def __init__(self, width, depth, rngs):
        self.embed = nnx.Embed(100, width, rngs=rngs)
        self.blocks = nnx.List([nnx.Linear(width, width, rngs=rngs) for _ in range(depth)])
        self.out = nnx.LayerNorm(width, rngs=rngs)

    def __call__(self, tokens):
        h = self.embed(tokens)
        for block in self.blocks:
            h = h + nnx.tanh(block(h))
        return self.out(h)


stack = Stack(8, 2, nnx.Rngs(params=1))
tokens = jnp.zeros((2, 9), jnp.int32)
hidden = stack(tokens)  # reveal: f32[(2, 9, 8)]
table = nnx.state(stack, nnx.Param)["embed"]["embedding"][...]  # reveal: f32[(100, 8)]
norm_bias = nnx.state(stack)["out"]["bias"][...]  # reveal: f32[(8,)]
norm8 = nnx.BatchNorm(8, rngs=rngs)
normalised = norm8(jnp.ones((4, 8)))  # reveal: f32[(4, 8)]
wrong_features = norm8(jnp.ones((4, 6)))  # expect: NC203
lstm = nnx.LSTMCell(3, 10, rngs=rngs)
state0 = lstm.initialize_carry((4, 3), rngs)
h0 = state0[1]  # reveal: f32[(4, 10)]
(c_next, h_next), lstm_out = lstm(state0, jnp.ones((4, 3)))
lstm_y = lstm_out  # reveal: f32[(4, 10)]
lstm_bad = lstm(state0, jnp.ones((4, 5)))  # expect: NC203
causal_nnx = nnx.make_causal_mask(jnp.ones((3, 6)))  # reveal: f32[(3, 1, 6, 6)]
dense = nnx.Linear(3, 7, rngs=rngs)
dense_kernel = dense.kernel[...]  # reveal: f32[(3, 7)]
dense_bias = model.proj.bias.value  # reveal: f32[(32,)]
widened = jnp.zeros((2, dense.out_features))  # reveal: f32[(2, 7)]
sampled = rngs.normal((2, 5))  # reveal: f32[(2, 5)]
abstract = nnx.eval_shape(lambda: Classifier(12, 32, 5, rngs=nnx.Rngs(0)))
abstract_kernel = nnx.state(abstract, nnx.Param)["proj"]["kernel"].value  # (a ShapeDtypeStruct: no reveal here)
abstract_out = jax.eval_shape(lambda m, x: m(x), abstract, jnp.ones((3, 12)))
group = nnx.GroupNorm(8, num_groups=4, rngs=rngs)
grouped = group(jnp.ones((2, 5, 8)))  # reveal: f32[(2, 5, 8)]
group_scale = nnx.state(group)["scale"][...]  # reveal: f32[(8,)]
