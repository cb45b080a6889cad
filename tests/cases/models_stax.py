"""stax networks: `init_fun(rng, input_shape)` makes the parameters, `apply_fun(params, x)` needs inputs of that shape."""
import jax
import jax.numpy as jnp
from jax.example_libraries import stax

init_fun, apply_fun = stax.serial(stax.Dense(32), stax.Relu, stax.Dense(10), stax.LogSoftmax)
out_shape, params = init_fun(jax.random.key(0), (-1, 784))
w = params[0][0]  # reveal: f32[(784, 32)]
logits = apply_fun(params, jnp.ones((8, 784)))  # reveal: f32[(8, 10)]
images = apply_fun(params, jnp.ones((8, 28, 28)))  # expect: NC305
flat_init, flat_apply = stax.serial(stax.Flatten, stax.Dense(10), stax.Softmax)
flat_shape, flat_params = flat_init(jax.random.key(1), (-1, 28, 28))
probs = flat_apply(flat_params, jnp.ones((4, 28, 28)))  # reveal: f32[(4, 10)]
small = flat_apply(flat_params, jnp.ones((4, 14, 14)))  # expect: NC305
other_init, other_apply = stax.serial(stax.Dense(16), stax.Tanh)
_, other_params = other_init(jax.random.key(2), (-1, 5))
swapped = apply_fun(other_params, jnp.ones((8, 784)))  # expect: NC305
