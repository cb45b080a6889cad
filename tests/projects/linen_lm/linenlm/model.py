"""The language model: embedding, one block, a vocabulary head."""

import flax.linen as nn

from .config import LMConfig
from .layers import Block


class LM(nn.Module):
    cfg: LMConfig

    @nn.compact
    def __call__(self, tokens):
        cfg = self.cfg
        x = nn.Embed(cfg.vocab, cfg.d_model)(tokens)
        x = Block(cfg.d_model, cfg.n_heads, cfg.d_ff)(x)
        x = nn.LayerNorm()(x)
        return nn.Dense(cfg.vocab)(x)
