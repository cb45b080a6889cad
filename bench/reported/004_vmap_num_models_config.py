# Reported: https://github.com/google-research/discs/issues/63
# Two configs disagree on num_models, so the vmapped sampler gets keys for one count and parameters for another.
# class: vmap
import dataclasses

import jax
import jax.numpy as jnp


@dataclasses.dataclass
class ExperimentConfig:
    num_models: int = 4


@dataclasses.dataclass
class ModelConfig:
    num_models: int = 1
    dim: int = 8


def step(rng, weight, x):
    return x @ weight + jax.random.normal(rng, x.shape[-1:])


def sample(exp_cfg, model_cfg):
    rngs = jax.random.split(jax.random.key(0), exp_cfg.num_models)
    weights = jnp.zeros((model_cfg.num_models, model_cfg.dim, model_cfg.dim))
    xs = jnp.ones((exp_cfg.num_models, model_cfg.dim))
    return jax.vmap(step)(rngs, weights, xs)  # bug: weights use model_cfg.num_models


def run():
    return sample(ExperimentConfig(), ModelConfig())


if __name__ == "__main__":
    run()
