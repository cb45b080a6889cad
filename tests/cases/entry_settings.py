"""A size a config sets, passed through calls and arithmetic: the diagnostic points at the config line."""

import jax
import jax.numpy as jnp
import ml_collections


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


if __name__ == "__main__":
    train(get_config())
