"""A method that assigns one attribute path of an instance (`self.config.block_size = n`) makes only that
path unknown in built instances: the other fields, and linen `init` / `apply`, still carry the built values."""

from dataclasses import dataclass

import flax.linen as nn
import jax
import jax.numpy as jnp


@dataclass
class Config:
    block_size: int = 16
    n_embd: int = 8


class Model(nn.Module):
    config: Config

    @nn.compact
    def __call__(self, x):
        h = nn.Dense(self.config.n_embd)(x)
        return h @ jnp.ones((5, 2))  # expect: NC203

    def crop(self, block_size: int):
        self.config.block_size = block_size  # only `config.block_size` of a built Model is unknown after this
        return self.config.block_size


def entry():
    model = Model(Config(n_embd=4))
    x = jnp.ones((2, 3))
    params = model.init(jax.random.PRNGKey(0), x)
    size = model.config.block_size  # reveal: Unknown
    width = model.config.n_embd  # reveal: Const(value=4)
    return params, size, width
