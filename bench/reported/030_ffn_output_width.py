# Reported: https://github.com/jax-ml/jax-ai-stack/pull/260
# The feed-forward block's second Dense outputs ff_dim features, so the residual add fails once ff_dim != embed_dim.
# class: flax_params
import flax.linen as nn
import jax
import jax.numpy as jnp


class TransformerBlock(nn.Module):
    embed_dim: int
    ff_dim: int

    @nn.compact
    def __call__(self, x):
        h = nn.relu(nn.Dense(self.ff_dim)(x))
        h = nn.Dense(self.ff_dim)(h)
        return x + h  # bug: h has ff_dim features, x has embed_dim (second Dense should be embed_dim)


def run():
    block = TransformerBlock(embed_dim=32, ff_dim=64)
    x = jnp.ones((2, 5, 32))
    return block.init(jax.random.key(0), x)


if __name__ == "__main__":
    run()
