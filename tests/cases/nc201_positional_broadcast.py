import jax.numpy as jnp
import numpy as np

from namedcheck import f32


def right_tutorial_numpy() -> None:
    x: f32[(2, 3)] = np.ones((2, 3), dtype=np.float32)
    y: f32[(3, 5)] = np.ones((3, 5), dtype=np.float32)
    z: f32[(2, 5)] = x.dot(y)  # reveal: f32[(2, 5)]
    w: f32[(7, 1, 5)] = np.ones((7, 1, 5), dtype=np.float32)
    q: f32[(7, 2, 5)] = z + w  # reveal: f32[(7, 2, 5)]


def right_scalars_and_ones(a: f32[(4, 1)], b: f32[(3,)], s: f32[()]) -> f32[(4, 3)]:
    c = a * b + 2.0  # reveal: f32[(4, 3)]
    d = c - s  # reveal: f32[(4, 3)]
    return jnp.maximum(d, 0.0)


def right_symbolic(a: f32[('B', 10)], b: f32[(10,)], c: f32[('N', 10)]) -> None:
    x = a + b  # reveal: f32[('B', 10)]
    y = a + c  # reveal: f32[(?, 10)]


def wrong_trailing(a: f32[(3, 4)], b: f32[(5,)]) -> None:
    c = a + b  # expect: NC201


def wrong_comparison(a: f32[(3, 4)], b: f32[(3,)]) -> None:
    mask = a < b  # expect: NC201


def wrong_where(a: f32[(3, 4)], b: f32[(4, 3)]) -> None:
    y = jnp.where(a > 0, a, b)  # expect: NC201


def wrong_augmented(a: f32[(8,)], b: f32[(7,)]) -> None:
    a += b  # expect: NC201


def wrong_broadcast_to(a: f32[(3, 2)]) -> None:
    b = jnp.broadcast_to(a, (4, 3, 3))  # expect: NC201
