"""The classifier: encode every token, mean-pool, an MLP head."""

import equinox as eqx
import jax
import jax.numpy as jnp

from .config import Config
from .layers import Encoder


class Model(eqx.Module):
    encoder: Encoder
    head: eqx.nn.MLP

    def __init__(self, cfg: Config, key):
        k1, k2 = jax.random.split(key)
        self.encoder = Encoder(cfg.vocab, cfg.d_model, cfg.width, k1)
        self.head = eqx.nn.MLP(cfg.width, cfg.n_out, cfg.width, depth=2, key=k2)

    def __call__(self, tokens):
        h = jax.vmap(self.encoder)(tokens)
        return self.head(jnp.mean(h, axis=0))
