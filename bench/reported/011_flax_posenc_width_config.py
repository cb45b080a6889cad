# Reported: https://github.com/google/hypernerf/issues/28
# The positional encoding width depends on a config value that changed between training and evaluation.
# class: flax_params
import dataclasses

import flax.linen as nn
import jax
import jax.numpy as jnp


@dataclasses.dataclass
class Config:
    num_freqs: int


def posenc(x, num_freqs):
    scales = 2.0 ** jnp.arange(num_freqs)
    xb = (x[..., None, :] * scales[:, None]).reshape(*x.shape[:-1], -1)
    return jnp.concatenate([x, jnp.sin(xb), jnp.cos(xb)], axis=-1)


class Trunk(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(128)(x)


def evaluate(train_cfg, eval_cfg):
    pts = jnp.ones((4, 3))
    params = Trunk().init(jax.random.key(0), posenc(pts, train_cfg.num_freqs))
    return Trunk().apply(params, posenc(pts, eval_cfg.num_freqs))  # bug: encoding width differs from training


def run():
    return evaluate(Config(num_freqs=5), Config(num_freqs=7))


if __name__ == "__main__":
    run()
