"""flax linen's `nn.scan` of a module class: its call `(carry, *xs)` is the class's on the carry and one slice of
each input (`in_axes`), the outputs stacked along `out_axes`, named `Scan<Class>` by flax; the parameters are shared
(`variable_broadcast`) or stacked (`variable_axes`, `length`). tests/test_flax_under_jax.py runs every statement
under JAX and flax."""

import flax.linen as nn
import jax
import jax.numpy as jnp


class Cell(nn.Module):
    @nn.compact
    def __call__(self, c, x):
        h = nn.tanh(nn.Dense(4)(x) + c)
        return h, nn.Dense(2)(h)


ScanCell = nn.scan(Cell, variable_broadcast="params", split_rngs={"params": False}, in_axes=1, out_axes=1)
variables = ScanCell().init(jax.random.key(0), jnp.zeros((3, 4)), jnp.ones((3, 7, 5)))
kernel = variables["params"]["Dense_0"]["kernel"]  # reveal: f32[(5, 4)]
carry, ys = ScanCell().apply(variables, jnp.zeros((3, 4)), jnp.ones((3, 7, 5)))
last = carry  # reveal: f32[(3, 4)]
outputs = ys  # reveal: f32[(3, 7, 2)]
Stacked = nn.scan(Cell, variable_axes={"params": 0}, split_rngs={"params": True}, length=6)
stacked = Stacked().init(jax.random.key(0), jnp.zeros((3, 4)), jnp.ones((6, 3, 5)))
layer_kernels = stacked["params"]["Dense_1"]["kernel"]  # reveal: f32[(6, 4, 2)]
layer_bias = stacked["params"]["Dense_0"]["bias"]  # reveal: f32[(6, 4)]


class Top(nn.Module):
    @nn.compact
    def __call__(self, x):
        _, ys = nn.scan(Cell, variable_broadcast="params", split_rngs={"params": False})()(jnp.zeros((3, 4)), x)
        return ys


top = Top().init(jax.random.key(0), jnp.ones((6, 3, 5)))
top_kernel = top["params"]["ScanCell_0"]["Dense_1"]["kernel"]  # reveal: f32[(4, 2)]
top_out = Top().apply(top, jnp.ones((6, 3, 5)))  # reveal: f32[(6, 3, 2)]
wrong = Top().apply(top, jnp.ones((6, 3, 8)))  # expect: NC305
