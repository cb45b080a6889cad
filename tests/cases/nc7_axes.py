import jax
import jax.numpy as jnp
from jax.nn import log_softmax, logsumexp, one_hot, softmax

from namedcheck import f32, i32


def right_named_broadcast_and_reduce(
        x: f32[(), {'x': 2}],
        y: f32[(5,), {'y': 4}]) \
        -> f32[()]:
    z: f32[(5,), {'x': 2, 'y': 4}] = x + y
    w: f32[()] = jnp.sum(z, axis=(0, 'x', 'y'))
    w0: f32[(), {'x': 2, 'y': 4}] = jnp.sum(z, 0)
    w0x: f32[(), {'y': 4}] = jnp.sum(w0, 'x')
    return w


def right_reductions(x: f32[(4, 5, 6)], labels: i32[(4,)]) -> None:
    a = x.mean(axis=(0, 2))  # reveal: f32[(5,)]
    b = jnp.max(x, axis=-1, keepdims=True)  # reveal: f32[(4, 5, 1)]
    c = jnp.argmax(x, axis=1)  # reveal: i32[(4, 6)]
    d = logsumexp(x, axis=1, keepdims=True)  # reveal: f32[(4, 1, 6)]
    e = softmax(x, axis=0)  # reveal: f32[(4, 5, 6)]
    f = one_hot(labels, 10)  # reveal: f32[(4, 10)]
    g = jnp.sum(x)  # reveal: f32[()]
    h = jnp.any(x > 0, axis=2)  # reveal: bool_[(4, 5)]


def right_reduce_missing_name(x: f32[(3,), {'a': 2}], labels: f32[(), {'classes': 4}]) -> None:
    y = jnp.sum(x, axis='classes')  # reveal: f32[(3,), {'a': 2}]


def right_named_einsum(
        x: f32[(5,), {'b': 20, 'k': 7}],
        y: f32[(), {'k': 7, 'm': 11}]) \
        -> f32[(5,), {'b': 20, 'm': 11}]:
    return jnp.einsum('n{b,k},{k,m}->n{b,m}', x, y)


def right_named_einsum_contract(x: f32[(5,), {'k': 7}], y: f32[(), {'k': 7}]) -> f32[(5,)]:
    return jnp.einsum('n{k},{k}->n', x, y)


def wrong_axis(x: f32[(3, 4)]) -> None:
    a = jnp.sum(x, axis=2)  # expect: NC701
    b = x.mean(-3)  # expect: NC701
    c = log_softmax(x, axis=5)  # expect: NC701
    d = jnp.argmax(x, axis=2)  # expect: NC701
    e = jnp.concatenate([x, x], axis=2)  # expect: NC701
    f = jnp.transpose(x, (0, 0))  # expect: NC701
    g = jnp.expand_dims(x, 3)  # expect: NC701


def wrong_einsum_skip(x: f32[(5,), {'b': 2, 'k': 7}], y: f32[(), {'k': 7}]) -> None:
    z = jnp.einsum('n{b},{k}->n', x, y)  # expect: NC702


def wrong_einsum_letters(x: f32[(5, 3)], y: f32[(3,)]) -> None:
    z = jnp.einsum('ijk,j->i', x, y)  # expect: NC702


def wrong_einsum_operands(x: f32[(5, 3)]) -> None:
    z = jnp.einsum('ij,jk->ik', x)  # expect: NC702


def wrong_einsum_mentions_missing(x: f32[(5,)], y: f32[(), {'k': 7}]) -> None:
    z = jnp.einsum('n{k},{k}->n', x, y)  # expect: NC702


def wrong_einsum_output(x: f32[(5, 3)]) -> None:
    z = jnp.einsum('ij->iq', x)  # expect: NC702
