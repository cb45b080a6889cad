"""Explicit-axis sharding in types: a small data- and model-parallel decoder step written as real code
is (attention with batched matmuls, layer norm, causal mask, cumulative positions, top-k sampling, a cache
update); every value's sharding equals jax.typeof's, and the three mistakes are where JAX raises."""

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

B, T, D, H, V = 8, 16, 32, 4, 64
tokens = jax.device_put(jnp.zeros((B, T), jnp.int32), P('data', None))
embed = jax.device_put(jnp.ones((V, D)), P(None, 'model'))
w_qkv = jax.device_put(jnp.ones((D, 3 * D)), P(None, 'model'))
w_out = jax.device_put(jnp.ones((D, D)), P('model', None))
w_vocab = jax.device_put(jnp.ones((D, V)), P(None, 'model'))

h_bad = jnp.take(embed, tokens, axis=0)  # expect: NC806
h = embed.at[tokens].get(out_sharding=P('data', None, 'model'))  # reveal: f32[(8@data, 16, 32@model)]
mu = jnp.mean(h, axis=-1, keepdims=True)  # reveal: f32[(8@data, 16, 1)]
var = jnp.var(h, axis=-1, keepdims=True)  # reveal: f32[(8@data, 16, 1)]
normed = (h - mu) * lax.rsqrt(var + 1e-6)  # reveal: f32[(8@data, 16, 32@model)]
qkv = jnp.einsum('btd,de->bte', normed, w_qkv, out_sharding=P('data', None, 'model'))  # reveal: f32[(8@data, 16, 96@model)]
q, k, v = jnp.split(qkv, 3, axis=-1)
heads_q = q.reshape(B, T, H, D // H)  # reveal: f32[(8@data, 16, 4@model, 8)]
heads_k = k.reshape(B, T, H, D // H)  # reveal: f32[(8@data, 16, 4@model, 8)]
heads_v = v.reshape(B, T, H, D // H)  # reveal: f32[(8@data, 16, 4@model, 8)]
scores = jnp.einsum('bqhd,bkhd->bhqk', heads_q, heads_k)  # reveal: f32[(8@data, 4@model, 16, 16)]
causal = jnp.tril(jnp.ones((T, T), bool))  # reveal: bool_[(16, 16)]
masked = jnp.where(causal, scores, -1e9)  # reveal: f32[(8@data, 4@model, 16, 16)]
probs = jax.nn.softmax(masked, axis=-1)  # reveal: f32[(8@data, 4@model, 16, 16)]
mixed = jnp.einsum('bhqk,bkhd->bqhd', probs, heads_v)  # reveal: f32[(8@data, 16, 4@model, 8)]
merged = mixed.reshape(B, T, D)  # reveal: f32[(8@data, 16, 32@model)]
attn = jnp.matmul(merged, w_out, out_sharding=P('data', None, None))  # reveal: f32[(8@data, 16, 32)]
attn_bad = merged @ w_out  # expect: NC802
logits = attn @ w_vocab  # reveal: f32[(8@data, 16, 64@model)]
last = logits[:, -1]  # reveal: f32[(8@data, 64@model)]
last_rep = jax.sharding.reshard(last, P('data', None))  # reveal: f32[(8@data, 64)]
top_vals = lax.top_k(last_rep, 5)[0]  # reveal: f32[(8@data, 5)]
top_bad = lax.top_k(last, 5)  # expect: NC821
positions = jnp.cumsum(jnp.ones_like(tokens), axis=1)  # reveal: i32[(8@data, 16)]
cache = jax.device_put(jnp.zeros((B, 2 * T, D)), P('data', None, 'model'))  # reveal: f32[(8@data, 32, 32@model)]
cache_new = lax.dynamic_update_slice(cache, h, (0, 0, 0))  # reveal: f32[(8@data, 32, 32@model)]
step_cache = cache.at[:, 3].set(h[:, 0])  # reveal: f32[(8@data, 32, 32@model)]
