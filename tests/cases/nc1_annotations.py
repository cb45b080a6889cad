# Malformed annotations are diagnostics (NC1xx), never crashes.
from typing import Annotated

import jax
import jax.numpy as jnp

from namedcheck import Array, f32, i32


def right_forms(
    a: f32[(5, 7)],
    b: f32[(5, 7), {'batch': 20, 'seq': 30}],
    c: f32[()],
    d: f32[(), {'x': 2}],
    e: f32[('B', 784)],
    f: f32[(..., 3)],
    g: f32[(), {'batch': 'B'}],
    h: Annotated[jax.Array, f32[(5, 7), {'b': 2}]],
    i: Array[(3,)],
    j: "f32[(4,)]",
) -> i32[(2,)]:
    k: f32[(5, 7)] = a  # reveal: f32[(5, 7)]
    m = h  # reveal: f32[(5, 7), {'b': 2}]
    n = j  # reveal: f32[(4,)]
    return jnp.zeros((2,), dtype=jnp.int32)


def wrong_not_a_tuple(x: f32[5]) -> None:  # expect: NC101
    pass


def wrong_named_not_a_dict(x: f32[(5,), ['b']]) -> None:  # expect: NC101
    pass


def wrong_negative(x: f32[(-1, 7)]) -> None:  # expect: NC102
    pass


def wrong_bad_symbol(x: f32[('not a name', 7)]) -> None:  # expect: NC102
    pass


def wrong_duplicate_name(x: f32[(), {'b': 2, 'b': 3}]) -> None:  # expect: NC103
    pass


def wrong_two_ellipses(x: f32[(..., 3, ...)]) -> None:  # expect: NC104
    pass


N = 5


def wrong_not_literal(x: f32[(N, 7)]) -> None:  # expect: NC105
    pass


bad_var: f32[(3,), {'x': -2}]  # expect: NC102


Row = f32[(3,), {'b': 2}]
BadAlias = f32[(-3,)]  # expect: NC102


def right_alias(x: Row) -> Row:
    y = x  # reveal: f32[(3,), {'b': 2}]
    return x


def wrong_alias(x: Row) -> f32[(4,), {'b': 2}]:
    return x  # expect: NC301


def right_runtime_construction(item) -> None:
    t = f32[item]  # built at run time from a variable: not an annotation, nothing to check
