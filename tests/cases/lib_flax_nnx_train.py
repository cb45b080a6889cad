"""flax nnx training: `nnx.grad` / `value_and_grad` of a module give its `nnx.Param` state's cotangents (a State by
path), and `nnx.Optimizer(model, tx, wrt=nnx.Param)` updates the parameters with them: a gradient that does not
broadcast to its parameter raises (NC201). tests/test_flax_under_jax.py runs every statement under JAX and flax."""

import jax
import jax.numpy as jnp
import optax
from flax import nnx


class Regressor(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.hidden = nnx.Linear(3, 8, rngs=rngs)
        self.norm = nnx.BatchNorm(8, rngs=rngs)
        self.out = nnx.Linear(8, 2, rngs=rngs)

    def __call__(self, x):
        return self.out(nnx.relu(self.norm(self.hidden(x))))


def loss_fn(model, x, y):
    return jnp.mean((model(x) - y) ** 2)


model = Regressor(nnx.Rngs(0))
optimizer = nnx.Optimizer(model, optax.adam(1e-3), wrt=nnx.Param)
x = jnp.ones((16, 3))
y = jnp.zeros((16, 2))
grads = nnx.grad(loss_fn)(model, x, y)
kernel_grad = grads["hidden"]["kernel"][...]  # reveal: f32[(3, 8)]
scale_grad = grads["norm"]["scale"][...]  # reveal: f32[(8,)]
loss, grads2 = nnx.value_and_grad(loss_fn)(model, x, y)
loss_now = loss  # reveal: f32[()]
out_bias_grad = grads2["out"]["bias"][...]  # reveal: f32[(2,)]
(loss3, preds), grads3 = nnx.value_and_grad(lambda m: (loss_fn(m, x, y), m(x)), has_aux=True)(model)
preds_now = preds  # reveal: f32[(16, 2)]
out_kernel_grad = grads3["out"]["kernel"][...]  # reveal: f32[(8, 2)]
input_grad = nnx.grad(loss_fn, argnums=1)(model, x, y)  # reveal: f32[(16, 3)]
optimizer.update(model, grads)
step = optimizer.step.value  # reveal: u32[()]
after = model(x)  # reveal: f32[(16, 2)]
flat_grads = jax.tree.map(lambda g: jnp.ones((5,)), grads)
optimizer.update(model, flat_grads)  # expect: NC201
sgd = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
sgd.update(model, grads2)
