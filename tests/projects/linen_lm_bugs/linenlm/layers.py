"""Transformer block parts."""

import flax.linen as nn
import jax.numpy as jnp


class FeedForward(nn.Module):
    d_model: int
    d_ff: int

    @nn.compact
    def __call__(self, x):
        w_in = self.param("w_in", nn.initializers.lecun_normal(), (self.d_model, self.d_ff))
        w_out = self.param("w_out", nn.initializers.lecun_normal(), (self.d_ff, self.d_model))
        h = nn.gelu(jnp.einsum("bsd,df->bsf", x, w_in))  # expect: NC203
        return jnp.einsum("bsf,fd->bsd", h, w_out)


class Block(nn.Module):
    d_model: int
    n_heads: int
    d_ff: int

    def setup(self):
        self.norm1 = nn.LayerNorm()
        self.attn = nn.MultiHeadDotProductAttention(num_heads=self.n_heads)
        self.norm2 = nn.RMSNorm()
        self.ff = FeedForward(self.d_model, self.d_ff)

    def __call__(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h)  # expect: NC203
        return x + self.ff(self.norm2(x))
