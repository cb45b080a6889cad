"""A size a config sets, passed through calls and arithmetic: the diagnostic points at the config line."""

import dataclasses
import functools

import jax
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


def chunked(config):
    traj = (jnp.ones((config.actor_steps * 2, 4)), jnp.ones((config.actor_steps * 2,)))
    return split_steps(traj, batch_size=config.batch_size)


@functools.partial(jax.jit, static_argnums=(1,))
def split_steps(trajectories, batch_size):
    iterations = trajectories[0].shape[0] // batch_size
    return jax.tree_util.tree_map(
        lambda x: x.reshape((iterations, batch_size) + x.shape[1:]),  # expect: NC203
        trajectories,
    )


if __name__ == "__main__":  # each fails under JAX (tests/test_entry_points.py runs them one by one)
    build()
    chunked(get_config())
    train(get_config())
