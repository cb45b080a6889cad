"""Hyper-parameters."""

from dataclasses import dataclass


@dataclass(frozen=True)
class MLPConfig:
    d_in: int = 16
    d_hidden: int = 32
    n_classes: int = 8
    batch: int = 8
    eval_batch: int = 16
    learning_rate: float = 1e-2


CONFIG = MLPConfig()
