"""The classifier: input projection, one residual block, a head."""

from flax import nnx

from .layers import Head, MLPBlock


class Classifier(nnx.Module):
    def __init__(self, cfg, *, rngs: nnx.Rngs):
        self.embed = nnx.Linear(cfg["d_in"], cfg["d_model"], rngs=rngs)
        self.block = MLPBlock(cfg["d_model"], cfg["d_hidden"], rngs=rngs)
        self.head = Head(cfg["d_model"], cfg["n_out"], rngs=rngs)

    def __call__(self, x):
        h = self.embed(x)
        return self.head(self.block(h))
