"""A pre-norm transformer block with symbolic sizes: batch B, sequence T, model width D.

Everything below is inferred from the parameter annotations; the assignments annotated inline are
checked against what namedcheck infers.
"""

import jax
import jax.numpy as jnp
from jax import Array

from namedcheck import Dims, f32

HEADS = 4


def layer_norm(x: f32[Array, Dims('B', 'T', 64)], scale: f32[Array, Dims(64)], bias: f32[Array, Dims(64)]) -> f32[Array, Dims('B', 'T', 64)]:
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-6) * scale + bias


def split_heads(x: f32[Array, Dims('B', 'T', 64)]) -> f32[Array, Dims('B', 4, 'T', 16)]:
    b, t, _ = x.shape
    return x.reshape(b, t, HEADS, 16).transpose(0, 2, 1, 3)


def attention(x: f32[Array, Dims('B', 'T', 64)], w_qkv: f32[Array, Dims(64, 192)], w_out: f32[Array, Dims(64, 64)]) -> f32[Array, Dims('B', 'T', 64)]:
    qkv: f32[Array, Dims('B', 'T', 192)] = x @ w_qkv
    q, k, v = jnp.split(qkv, 3, axis=-1)
    q, k, v = split_heads(q), split_heads(k), split_heads(v)
    scores = jnp.einsum('bhtd,bhsd->bhts', q, k) / jnp.sqrt(16.0)
    t = x.shape[1]
    mask = jnp.tril(jnp.ones((t, t), dtype=bool))
    scores = jnp.where(mask, scores, -1e9)
    weights: f32[Array, Dims('B', 4, 'T', 'T')] = jax.nn.softmax(scores, axis=-1)
    out = jnp.einsum('bhts,bhsd->bhtd', weights, v)
    out = out.transpose(0, 2, 1, 3).reshape(x.shape)
    return out @ w_out


def mlp(x: f32[Array, Dims('B', 'T', 64)], w1: f32[Array, Dims(64, 256)], w2: f32[Array, Dims(256, 64)]) -> f32[Array, Dims('B', 'T', 64)]:
    return jax.nn.gelu(x @ w1) @ w2


def block(x: f32[Array, Dims('B', 'T', 64)], p: dict[str, Array]) -> f32[Array, Dims('B', 'T', 64)]:
    h = x + attention(layer_norm(x, p['ln1_s'], p['ln1_b']), p['w_qkv'], p['w_out'])
    return h + mlp(layer_norm(h, p['ln2_s'], p['ln2_b']), p['w1'], p['w2'])


def logits(x: f32[Array, Dims('B', 'T', 64)], embed: f32[Array, Dims(1000, 64)]) -> f32[Array, Dims('B', 'T', 1000)]:
    return jnp.einsum('btd,vd->btv', x, embed)


def loss(tokens_emb: f32[Array, Dims(8, 32, 64)], embed: f32[Array, Dims(1000, 64)], targets: f32[Array, Dims(8, 32)]) -> f32[Array, Dims()]:
    lg = logits(tokens_emb, embed)
    logp = jax.nn.log_softmax(lg, axis=-1)
    picked = jnp.take_along_axis(logp, targets.astype(jnp.int32)[..., None], axis=-1)
    return -jnp.mean(picked)
