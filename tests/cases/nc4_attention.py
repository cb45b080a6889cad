# An attention block with named heads and batch: positional code, named axes lifted through it.
from functools import partial

import jax
import jax.numpy as jnp
from jax.experimental.maps import xmap

from namedcheck import f32


def attention(q: f32[('T', 16), {'heads': 4}], k: f32[('S', 16), {'heads': 4}],
              v: f32[('S', 16), {'heads': 4}]) -> f32[('T', 16), {'heads': 4}]:
    # analysed on its own (T, S symbolic) and under block's per-instance types; the latter is shown:
    scores = q @ k.T / jnp.sqrt(16.0)  # reveal: f32[(10, 12), {'batch': 2, 'heads': 4}]
    weights = jax.nn.softmax(scores, axis=-1)
    return weights @ v


def merge_heads(o: f32[('T', 16), {'heads': 4}], w_o: f32[(), {'heads': 4}]) -> f32[('T', 16)]:
    return jnp.sum(o * w_o, axis='heads')


@partial(xmap, in_axes=(['batch', 'heads', ...], ['batch', 'heads', ...], ['batch', 'heads', ...], ['heads', ...]),
         out_axes=['batch', ...])
def block(q: f32[(10, 16), {'batch': 2, 'heads': 4}], k: f32[(12, 16), {'batch': 2, 'heads': 4}],
          v: f32[(12, 16), {'batch': 2, 'heads': 4}], w_o: f32[(), {'heads': 4}]) -> f32[(10, 16), {'batch': 2}]:
    o = attention(q, k, v)  # reveal: f32[(10, 16), {'batch': 2, 'heads': 4}]
    return merge_heads(o, w_o)


def run() -> None:
    q = jnp.ones((2, 4, 10, 16))
    kv = jnp.ones((2, 4, 12, 16))
    out = block(q, kv, kv, jnp.ones((4,)))  # reveal: f32[(2, 10, 16)]


def wrong_head_dim(q: f32[('T', 16), {'heads': 4}], k: f32[('S', 8), {'heads': 4}]) -> None:
    s = q @ k.T  # expect: NC203


def wrong_heads(q: f32[('T', 16), {'heads': 4}], k: f32[('S', 16), {'heads': 8}]) -> None:
    s = q @ k.T  # expect: NC202
