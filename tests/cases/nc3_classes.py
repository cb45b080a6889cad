# Annotated fields type `self.<field>` in methods (dataclasses, equinox and flax modules).
import dataclasses

import jax
import jax.numpy as jnp

from namedcheck import f32

w = jnp.zeros((2, 2))  # a module-level name the class body's `w` does not shadow inside methods


@dataclasses.dataclass
class MLP:
    w1: f32[(784, 512)]
    w2: f32[(512, 10)]
    b1: f32[(512,)]

    def hidden(self, x: f32[('B', 784)]) -> f32[('B', 512)]:
        return jax.nn.relu(x @ self.w1 + self.b1)

    def __call__(self, x: f32[('B', 784)]) -> f32[('B', 10)]:
        h = self.hidden(x)  # reveal: f32[('B', 512)]
        return h @ self.w2

    def scores(self, x: f32[('B', 784)]) -> None:
        s = (x @ self.w1) @ self.w2  # reveal: f32[('B', 10)]
        g = w  # reveal: f32[(2, 2)]

    def wrong_bias(self, x: f32[('B', 784)]) -> None:
        h = x @ self.w1 + self.w2  # expect: NC201

    def wrong_order(self, x: f32[('B', 784)]) -> f32[('B', 10)]:
        return x @ self.w2  # expect: NC203

    @staticmethod
    def helper(v):
        return v
