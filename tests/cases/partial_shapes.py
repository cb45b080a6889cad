"""Partial shapes: an int the checker cannot evaluate in a creation op's shape tuple is one dim, a symbol named
after its source; the rank and the known sizes survive, and a mismatch between known sizes is reported
whatever the symbols are."""

import jax
import jax.numpy as jnp


def right(n: int, m: int, key, w, config):
    a = jnp.ones((n, 784))  # reveal: f32[('n', 784)]
    b = jnp.zeros((config.batch_size, 784))  # reveal: f32[('config.batch_size', 784)]
    c = jnp.zeros((w.shape[0], 10))  # reveal: f32[('w.shape[0]', 10)]
    d = jax.random.normal(key, (n, m, 3))  # reveal: f32[('n', 'm', 3)]
    e = a + jnp.ones((784,))  # reveal: f32[('n', 784)]
    f = a @ jnp.ones((784, 10))  # reveal: f32[('n', 10)]
    g = a.reshape(-1, 28, 28)  # reveal: f32[('n', 28, 28)]
    h = a.sum(axis=0)  # reveal: f32[(784,)]
    i = jnp.concatenate([a, b], axis=0)  # reveal: f32[('config.batch_size+n', 784)]
    j = a + jnp.ones((m, 784))  # reveal: f32[(?, 784)]
    k = jnp.ones((n, m)) @ jnp.ones((5, 3))  # reveal: f32[('n', 3)]
    shape = jnp.ones((n, 4)).shape  # the first dim is the symbol
    r = jnp.ones((5, 784)).reshape(n, 784)  # reveal: f32[('n', 784)]
    r2 = jnp.ones((5, 784)).reshape(n, -1, 28)  # reveal: f32[('n', ?, 28)]
    t = jnp.broadcast_to(jnp.ones((784,)), (n, 784))  # reveal: f32[('n', 784)]
    return e, f, g, h, i, j, k, d, c, shape, r, r2, t


def wrong(n: int, w, config):
    a = jnp.ones((n, 784)) + jnp.ones((3,))  # expect: NC201
    b = jnp.ones((config.batch_size, 784)) + jnp.ones((3,))  # expect: NC201
    d = jnp.zeros((w.shape[0], 10)) + jnp.ones((7,))  # expect: NC201
    f = jnp.ones((n, 784)) @ jnp.ones((3, 10))  # expect: NC203
    r = jnp.ones((5, 784)).reshape(n, 783)  # expect: NC203
    t = jnp.broadcast_to(jnp.ones((3,)), (n, 784))  # expect: NC201
    return a, b, d, f, r, t
