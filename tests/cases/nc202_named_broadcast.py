import jax.numpy as jnp

from namedcheck import f32


def right_named_broadcasting(
        x: f32[(2, 1, 1), {'a': 2}],
        y: f32[(1, 3, 1), {'b': 3}],
        z: f32[(1, 1, 5), {'c': 5}]) \
        -> f32[(2, 3, 5), {'a': 2, 'b': 3, 'c': 5}]:
    i: f32[(2, 3, 1), {'a': 2, 'b': 3}] = x + y
    j: f32[(1, 3, 5), {'b': 3, 'c': 5}] = y + z
    k: f32[(2, 3, 5), {'a': 2, 'b': 3, 'c': 5}] = i + j
    return k


def right_unary_keeps_names(x: f32[(4,), {'batch': 8}]) -> None:
    y = jnp.exp(x) * 2  # reveal: f32[(4,), {'batch': 8}]


def wrong_named_size(x: f32[(), {'b': 4}], y: f32[(), {'b': 8}]) -> None:
    z = x + y  # expect: NC202


def wrong_no_stretching(x: f32[(3,), {'b': 1}], y: f32[(3,), {'b': 5}]) -> None:
    z = x * y  # expect: NC202


def wrong_in_dot(x: f32[(3, 4), {'h': 2}], w: f32[(4, 5), {'h': 3}]) -> None:
    y = jnp.dot(x, w)  # expect: NC202
