"""Comparing implementations and gradient trees with allclose (the operands must broadcast)."""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np


def attention_reference(q, k, v):
    scores = q @ k.T / jnp.sqrt(q.shape[-1])
    return jax.nn.softmax(scores, axis=-1) @ v


def attention_online(q, k, v):
    scores = jnp.einsum("qd,kd->qk", q, k) / jnp.sqrt(q.shape[-1])
    m = scores.max(axis=-1, keepdims=True)
    p = jnp.exp(scores - m)
    return (p @ v) / p.sum(axis=-1, keepdims=True)


def init_params(key):
    k1, k2 = jax.random.split(key)
    return [(jax.random.normal(k1, (8, 16)), jnp.zeros(16)), (jax.random.normal(k2, (16, 4)), jnp.zeros(4))]


def right_same_attention():
    q = jnp.ones((6, 32))
    k = jnp.ones((10, 32))
    v = jnp.ones((10, 32))
    ok = jnp.allclose(attention_reference(q, k, v), attention_online(q, k, v), atol=1e-5)  # reveal: bool_[()]
    close = jnp.isclose(attention_reference(q, k, v), 0.0)  # reveal: bool_[(6, 32)]
    return ok, close


def right_broadcast_and_equal():
    x = jnp.ones((4, 3))
    row = x[:1]
    same = jnp.allclose(x, row)
    unequal = jnp.array_equal(x, x.T)  # shapes differ: False, not an error
    np.testing.assert_allclose(np.asarray(x), np.ones((4, 3)))
    return same, unequal


def right_tree_comparison():
    params = init_params(jax.random.PRNGKey(0))
    moved = jax.tree.map(lambda p: p + 1e-7, params)
    flags = jax.tree.map(partial(jnp.allclose, atol=1e-5), params, moved)
    leaves = jax.tree.leaves(flags)
    return all(bool(f) for f in leaves)


def wrong_transposed_reference():
    q = jnp.ones((6, 32))
    k = jnp.ones((10, 32))
    out = attention_reference(q, k, k)
    return jnp.allclose(out, out.T)  # expect: NC201


def wrong_labels_against_logits():
    logits = jnp.zeros((8, 10))
    labels = jnp.zeros((10, 8))
    return jnp.isclose(logits, labels).mean()  # expect: NC201


def wrong_numpy_assert():
    expected = np.ones((3, 4), dtype=np.float32)
    got = jnp.ones((4, 3))
    np.testing.assert_allclose(got, expected, rtol=1e-6)  # expect: NC201


def wrong_tree_of_other_model():
    params = init_params(jax.random.PRNGKey(0))
    other = [(jnp.zeros((8, 16)), jnp.zeros(16)), (jnp.zeros((4, 16)), jnp.zeros(4))]
    return jax.tree.map(partial(jnp.allclose, atol=1e-6), params, other)  # expect: NC201


def wrong_tree_util_lambda():
    params = init_params(jax.random.PRNGKey(1))
    transposed = [(w.T, b) for w, b in params]
    return jax.tree_util.tree_map(lambda a, b: jnp.allclose(a, b), params, transposed)  # expect: NC201
