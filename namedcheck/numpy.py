"""jax.numpy functions that accept named axes: reductions with names, einsum with `{}` (imports jax)."""

from __future__ import annotations

from typing import Any

from namedcheck.runtime import named_ops
from namedcheck.runtime.named_ops import einsum, logsumexp, std, var

__all__ = ["einsum", "logsumexp", "max", "mean", "min", "std", "sum", "var"]


def sum(a: Any, axis: Any = None, **kwargs: Any) -> Any:  # noqa: A001
    """`jnp.sum`, where `axis` may also name named axes (`'batch'`, `(0, 'batch')`)."""
    return named_ops.reduce("sum", a, axis, **kwargs)


def max(a: Any, axis: Any = None, **kwargs: Any) -> Any:  # noqa: A001
    """`jnp.max`, where `axis` may also name named axes."""
    return named_ops.reduce("max", a, axis, **kwargs)


def min(a: Any, axis: Any = None, **kwargs: Any) -> Any:  # noqa: A001
    """`jnp.min`, where `axis` may also name named axes."""
    return named_ops.reduce("min", a, axis, **kwargs)


def mean(a: Any, axis: Any = None, **kwargs: Any) -> Any:
    """`jnp.mean`, where `axis` may also name named axes."""
    return named_ops.reduce("mean", a, axis, **kwargs)
