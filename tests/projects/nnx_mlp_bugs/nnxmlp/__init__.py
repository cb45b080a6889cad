"""A small flax nnx classifier (namedcheck test project)."""
