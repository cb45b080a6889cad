"""chex's test variants: `self.variant(fn)` under `@chex.all_variants` (jitted, without jit, on a device, pmapped)
runs `fn` with the arguments it is given, so `fn`'s shapes are the call's."""

import chex
import jax.numpy as jnp
from absl.testing import absltest


class VariantTest(chex.TestCase):
    @chex.variants(with_jit=True, without_jit=True)
    def test_right(self):
        project = self.variant(lambda x: x @ jnp.ones((3, 2)))
        y = project(jnp.ones((4, 3)))  # reveal: f32[(4, 2)]
        self.assertEqual(y.shape, (4, 2))

    @chex.variants(with_jit=True, without_jit=True)
    def test_wrong(self):
        project = self.variant(lambda x: x @ jnp.ones((3, 2)))  # expect: NC203
        project(jnp.ones((4, 5)))


if __name__ == "__main__":
    absltest.main()
