"""jax.nn functions that accept a named axis: `one_hot`, `logsumexp` (imports jax)."""

from __future__ import annotations

from jax.nn import relu, softmax

from namedcheck.runtime.named_ops import logsumexp, one_hot

__all__ = ["logsumexp", "one_hot", "relu", "softmax"]
