"""optax: an optimizer's state mirrors the parameters, its updates are shaped like the gradients, and
`apply_updates` adds them leaf by leaf (NC201 where a pair does not broadcast); a schedule gives a scalar.
tests/test_optax_under_jax.py runs every function under JAX and optax: the ones with an `expect` raise, the
others run, and every `reveal` is the value bound there."""

import jax
import jax.numpy as jnp
import optax


def _loss(params, x):
    return jnp.sum(x @ params["w"] + params["b"])


def adam_step():
    params = {"w": jnp.zeros((4, 3)), "b": jnp.zeros(3)}
    tx = optax.adam(1e-3)
    state = tx.init(params)
    grads = jax.grad(_loss)(params, jnp.ones((2, 4)))
    updates, state = tx.update(grads, state, params)
    u = updates["w"]  # reveal: f32[(4, 3)]
    new = optax.apply_updates(params, updates)
    b = new["b"]  # reveal: f32[(3,)]
    return u, b


def chained_with_schedule():
    params = {"w": jnp.zeros((4, 3)), "b": jnp.zeros(3)}
    schedule = optax.warmup_cosine_decay_schedule(0.0, 1e-3, 10, 100)
    tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adamw(schedule, weight_decay=1e-4))
    state = tx.init(params)

    @jax.jit
    def step(params, state, x):
        grads = jax.grad(_loss)(params, x)
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    params, state = step(params, state, jnp.ones((2, 4)))
    p = params["w"]  # reveal: f32[(4, 3)]
    lr = schedule(5)  # reveal: Array[()]
    return p, lr


def accumulated():
    params = [jnp.zeros((5,)), jnp.zeros((2, 5))]
    tx = optax.MultiSteps(optax.sgd(0.1, momentum=0.9), every_k_schedule=2)
    state = tx.init(params)
    updates, state = tx.update(params, state, params)
    u = updates[1]  # reveal: f32[(2, 5)]
    inner = tx.gradient_transformation()
    return u, inner


def injected():
    params = {"w": jnp.zeros((3,))}
    tx = optax.inject_hyperparams(optax.rmsprop)(learning_rate=0.1)
    state = tx.init(params)
    updates, state = tx.update(params, state)
    u = updates["w"]  # reveal: f32[(3,)]
    return u


def low_precision():
    params = {"w": jnp.zeros((4, 3), dtype=jnp.bfloat16)}
    tx = optax.adam(optax.linear_schedule(1e-3, 0.0, 10))
    state = tx.init(params)
    updates, state = tx.update(params, state)
    u = updates["w"]  # reveal: Array[(4, 3)]
    new = optax.apply_updates(params, updates)
    w = new["w"]  # reveal: bf16[(4, 3)]
    return u, w


def either(flag):
    params = {"w": jnp.zeros((2, 3))}
    tx = optax.adam(1e-3) if flag else optax.sgd(0.1)
    state = tx.init(params)
    updates, state = tx.update(params, state)
    u = updates["w"]  # reveal: f32[(2, 3)]
    return u


def constant():
    c = optax.constant_schedule(0.5)(3)  # reveal: Const(value=0.5)
    return c


def broadcast_update():
    params = {"w": jnp.zeros((4, 3))}
    new = optax.apply_updates(params, {"w": jnp.ones(3)})
    w = new["w"]  # reveal: f32[(4, 3)]
    return w


def updates_of_another_model():
    params = {"w": jnp.zeros((4, 3))}
    other = {"w": jnp.zeros((3, 4))}
    tx = optax.sgd(0.1)
    state = tx.init(other)
    updates, state = tx.update(other, state)
    return optax.apply_updates(params, updates)  # expect: NC201


def transposed_update():
    params = [jnp.zeros((2, 8)), jnp.zeros(8)]
    return optax.apply_updates(params, [jnp.zeros((8, 2)), jnp.zeros(8)])  # expect: NC201


adam_step()
chained_with_schedule()
accumulated()
injected()
low_precision()
constant()
broadcast_update()


def schedule_over_steps():
    """optax's schedules are elementwise in the step: an array of steps gives an array of values."""
    schedule = optax.cosine_decay_schedule(0.1, decay_steps=100)
    values = schedule(jnp.array([0, 10, 50, 75]))  # reveal: Array[(4,)]
    return values


schedule_over_steps()
