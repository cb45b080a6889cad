"""Classes the way model code uses them: classmethod factories (`Weights.init(key, cfg)`, `cls.abstract(cfg)`
resolving to the subclass), staticmethods, methods inherited from a base, class constants."""

import dataclasses

import jax
import jax.numpy as jnp


@dataclasses.dataclass(frozen=True)
class Config:
    embed: int = 16
    ffw: int = 64
    vocab: int = 100


class Init:
    SCALE = 2

    @classmethod
    def init(cls, key, cfg):
        shapes = cls.shapes(cfg)
        keys = jax.random.split(key, len(shapes))
        return [jax.random.normal(k, s) for k, s in zip(keys, shapes)]

    def describe(self):
        return self.SCALE


class Mlp(Init):
    @classmethod
    def shapes(cls, cfg):
        return [(cfg.embed, cfg.ffw), (cfg.ffw, cfg.embed)]

    @staticmethod
    def act(x):
        return jax.nn.gelu(x)


def mlp(x, cfg):
    w_in, w_out = Mlp.init(jax.random.key(0), cfg)
    h = Mlp.act(x @ w_in)  # reveal: f32[(4, 64)]
    return h @ w_out


def mlp_transposed(x, cfg):
    w_in, w_out = Mlp.init(jax.random.key(0), cfg)
    return x @ w_out  # expect: NC203


def scaled(x):
    return x * Mlp().describe() * Mlp.SCALE


def chosen_block(cfg):
    block = Mlp if cfg.embed < 1000 else None  # the config decides: one branch
    out = block.shapes(cfg)  # reveal: Seq(items=(Seq(items=(Const(value=16), Const(value=64)), kind='tuple'), Seq(items=(Const(value=64), Const(value=16)), kind='tuple')), kind='list')
    return out


if __name__ == "__main__":
    mlp(jnp.ones((4, 16)), Config())
    mlp_transposed(jnp.ones((4, 16)), Config())
    scaled(jnp.ones(3))
    chosen_block(Config())
