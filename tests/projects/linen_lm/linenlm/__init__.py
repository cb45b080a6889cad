"""A tiny flax linen language model (namedcheck test project)."""
