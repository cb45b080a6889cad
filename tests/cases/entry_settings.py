"""A size a config sets, passed through calls and arithmetic: the diagnostic points at the config line."""

import dataclasses
import traceback

import jax.numpy as jnp
import ml_collections
from ml_collections import config_dict


def get_config():
    config = ml_collections.ConfigDict()
    config.batch_size = 192
    config.actor_steps = 128
    config.num_agents = 2
    return config


def update(trajectories, batch_size):
    iterations = trajectories.shape[0] // batch_size
    return trajectories.reshape((iterations, batch_size) + trajectories.shape[1:])  # expect: NC203


def train(config):
    traj = jnp.ones((config.actor_steps * config.num_agents, 4))
    return update(traj, config.batch_size)


@dataclasses.dataclass
class ModelConfig:
    D: int
    H: int
    L: int = 2


def get_model_config():
    c = config_dict.ConfigDict()
    c.model = config_dict.create(D=96, H=9, L=2)
    return c


def attention(x, cfg):
    B, T, D = x.shape
    return x.reshape(B, T, cfg.H, D // cfg.H)  # expect: NC203


def build():
    c = get_model_config()
    cfg = ModelConfig(**c.model)
    return attention(jnp.ones((2, 4, cfg.D)), cfg)


if __name__ == "__main__":
    try:
        build()
    except TypeError:
        traceback.print_exc()
    train(get_config())
