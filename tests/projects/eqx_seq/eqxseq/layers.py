"""A token encoder: embedding, layer norm, projection (one token per call, as equinox layers are)."""

import equinox as eqx
import jax


class Encoder(eqx.Module):
    embed: eqx.nn.Embedding
    norm: eqx.nn.LayerNorm
    proj: eqx.nn.Linear

    def __init__(self, vocab, d_model, width, key):
        k1, k2 = jax.random.split(key)
        self.embed = eqx.nn.Embedding(vocab, d_model, key=k1)
        self.norm = eqx.nn.LayerNorm(d_model)
        self.proj = eqx.nn.Linear(d_model, width, key=k2)

    def __call__(self, token):
        e = self.embed(token)
        return jax.nn.relu(self.proj(self.norm(e)))
