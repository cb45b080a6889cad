import flax.linen as nn


class Block(nn.Module):
    features: int

    def setup(self):
        self.proj = nn.Dense(self.features)
        self.norm = nn.LayerNorm()

    def __call__(self, x):
        return self.norm(nn.relu(self.proj(x)))


class Classifier(nn.Module):
    hidden: int
    num_classes: int

    @nn.compact
    def __call__(self, x):
        x = Block(self.hidden)(x)
        x = Block(self.hidden, name="second")(x)
        return nn.Dense(self.num_classes)(x)
