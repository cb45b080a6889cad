# Named axes are a dict {'name': size}; a list or tuple of names and sizes is NC101 (the message says so).
import jax.numpy as jnp

from namedcheck import f32


def right_dict(tokens: f32[(16,), {'batch': 8}]) -> f32[(16,), {'batch': 8}]:
    return tokens * 2


def wrong_flat_list(tokens: f32[(16,), ['batch', 8]]) -> None:  # expect: NC101
    pass


def wrong_list_of_pairs(tokens: f32[(16,), [('batch', 8)]]) -> None:  # expect: NC101
    pass


def wrong_tuple(tokens: f32[(16,), ('batch', 8)]) -> None:  # expect: NC101
    pass


def wrong_extra_part(tokens: f32[(16,), {'batch': 8}, 3]) -> None:  # expect: NC101
    pass


def still_checked(h: f32[(128, 512)], b: f32[(256,)]):
    return h + jnp.sum(b)
