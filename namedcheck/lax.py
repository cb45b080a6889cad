"""Named-axis lax functions removed from JAX: `pdot`, `xeinsum`, `pvary` (imports jax)."""

from __future__ import annotations

from jax.lax import all_gather, axis_index, pmax, pmean, pmin, ppermute, pshuffle, psum

from namedcheck.runtime.named_ops import einsum as xeinsum
from namedcheck.runtime.named_ops import pdot, pvary

__all__ = [
    "all_gather",
    "axis_index",
    "pdot",
    "pmax",
    "pmean",
    "pmin",
    "ppermute",
    "pshuffle",
    "psum",
    "pvary",
    "xeinsum",
]
