"""Test cases as entry points: `absltest.main()` runs each test method; a block under `assertRaises` is
meant to fail and reports nothing."""


import jax.numpy as jnp
import ml_collections
from absl.testing import absltest


def get_config():
    config = ml_collections.ConfigDict()
    config.width = 8
    return config


def model(x, config):
    return x @ jnp.ones((config.width, 2))  # expect: NC203


class ModelTest(absltest.TestCase):
    def test_forward(self):
        config = get_config()
        config.width = 6
        model(jnp.ones((3, 8)), config)

    def test_raises(self):
        with self.assertRaises(TypeError):
            model(jnp.ones((3, 5)), get_config())


if __name__ == "__main__":
    absltest.main()
