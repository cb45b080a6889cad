# A pmap training script in the usual style: collectives in helpers bound by the pmaps that run them, a vmap
# without axis_name inside a vmap that binds the name, the module's own statements calling it all. Silent;
# tests/test_map_arguments_under_jax.py runs each `right_*` function.
import functools

import jax
import jax.numpy as jnp
from jax import lax


def loss_fn(params, batch):
    return jnp.mean((batch @ params) ** 2)


def train_step(params, batch, lr):
    grads = jax.grad(loss_fn)(params, batch)
    grads = lax.pmean(grads, axis_name="batch")
    loss = lax.pmean(loss_fn(params, batch), "batch")
    return params - lr * grads, loss


def eval_step(params, batch):
    n = lax.psum(1, "batch")
    return lax.psum(loss_fn(params, batch), "batch") / n


def right_main():
    n = jax.local_device_count()
    p_train = jax.pmap(functools.partial(train_step, lr=0.1), axis_name="batch", donate_argnums=(0,))
    p_eval = jax.pmap(eval_step, axis_name="batch")
    params = jnp.zeros((n, 3))
    for _ in range(2):
        batch = jnp.ones((n, 4, 3))
        params, loss = p_train(params, batch)
    return p_eval(params, jnp.ones((n, 4, 3)))


@functools.partial(jax.pmap, axis_name="i")
def normalize(x):
    return x / lax.psum(x, "i")


def helper_mean(x):
    return jax.vmap(lambda r: r - lax.pmean(r, "rows"))(x)


def uses_helper_in_a_map(x):
    return jax.vmap(helper_mean, axis_name="rows")(x)


def right_normalize():
    return normalize(jnp.ones((8, 2)))


def right_helper_in_a_map():
    return uses_helper_in_a_map(jnp.ones((2, 3, 4)))


if __name__ == "__main__":
    right_main()
    right_normalize()
    right_helper_in_a_map()
