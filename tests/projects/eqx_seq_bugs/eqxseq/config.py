"""Sizes, as a NamedTuple with defaults."""

from typing import NamedTuple


class Config(NamedTuple):
    vocab: int = 32
    d_model: int = 8
    width: int = 16
    n_out: int = 4
    seq: int = 6
    batch: int = 4


CONFIG = Config()
