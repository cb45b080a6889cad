"""Test cases run by absltest: `setUp` builds the instance, `parameterized` gives each method its argument sets,
`dataclasses.replace` derives a config."""

import dataclasses

import jax.numpy as jnp
from absl.testing import absltest, parameterized


@dataclasses.dataclass(frozen=True)
class Config:
    embed: int = 64
    heads: int = 4
    layers: int = 2


CFG = Config(embed=512, heads=8)


def attention(x, cfg):
    q = x.reshape(x.shape[0], cfg.heads, -1)
    w = jnp.ones((cfg.embed // cfg.heads, 16))
    return q @ w


class ModelTest(parameterized.TestCase):
    def setUp(self):
        self.small = dataclasses.replace(CFG, embed=96, heads=4)

    @parameterized.product(batch=[1, 2])
    def test_attention(self, batch):
        x = jnp.ones((batch, self.small.embed))
        attention(x, self.small)

    @parameterized.parameters((1, 48), (2, 40))
    def test_widths(self, batch, width):
        x = jnp.ones((batch, width))
        return x @ jnp.ones((self.small.embed // 2, 3))  # expect: NC203


if __name__ == "__main__":
    absltest.main()
