"""Model and run sizes."""

from dataclasses import dataclass


@dataclass(frozen=True)
class LMConfig:
    vocab: int = 64
    d_model: int = 32
    n_heads: int = 4
    d_ff: int = 64
    seq: int = 8
    batch: int = 2


CFG = LMConfig()
PROBE_CFG = LMConfig(n_heads=5)
