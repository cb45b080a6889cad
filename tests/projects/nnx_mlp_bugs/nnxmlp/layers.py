"""A residual MLP block and a linear head."""

import jax
from flax import nnx


class MLPBlock(nnx.Module):
    def __init__(self, d_model: int, d_hidden: int, *, rngs: nnx.Rngs):
        self.norm = nnx.LayerNorm(d_model, rngs=rngs)
        self.up = nnx.Linear(d_model, d_hidden, rngs=rngs)
        self.down = nnx.Linear(d_hidden, d_model, rngs=rngs)

    def __call__(self, x):
        h = self.norm(x)  # expect: NC203
        return x + self.down(nnx.gelu(self.up(h)))


class Head(nnx.Module):
    def __init__(self, d_model: int, n_out: int, *, rngs: nnx.Rngs):
        self.w = nnx.Param(jax.random.normal(rngs.params(), (d_model, n_out)) * 0.02)

    def __call__(self, x):
        return x @ self.w.value  # expect: NC203
