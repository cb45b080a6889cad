"""Run legacy named-axis programs (written for jax 0.4.30) on today's JAX without edits.

`namedcheck.compat.install()` puts back what today's JAX lacks: `jax.experimental.maps` (`xmap`,
`SerialLoop`, `serial_loop`, `Mesh`), `jax.lax.pdot` / `xeinsum` / `pvary`, `{}` specs in
`jnp.einsum`, named axes in `jnp` reductions (sum, max, min, mean, var, std) and in
`jax.nn.one_hot` / `logsumexp`. Anything today's JAX already has is left alone; each wrapper defers to
the original unless named axes are involved.

    python -m namedcheck.compat script.py [args ...]

runs a legacy script with these installed.
"""

from __future__ import annotations

import functools
import runpy
import sys
import types
from collections.abc import Callable
from typing import Any

_installed = False


def _wrap_reduction(original: Callable[..., Any], named: Callable[..., Any]) -> Callable[..., Any]:
    from namedcheck.runtime.named_ops import has_names

    @functools.wraps(original)
    def reduction(a: Any, axis: Any = None, *args: Any, **kwargs: Any) -> Any:
        if has_names(axis):
            return named(a, axis, *args, **kwargs)
        return original(a, axis, *args, **kwargs)

    return reduction


def _wrap_einsum(original: Callable[..., Any]) -> Callable[..., Any]:
    from namedcheck.runtime.named_ops import einsum

    @functools.wraps(original)
    def wrapped(spec: Any, *operands: Any, **kwargs: Any) -> Any:
        if isinstance(spec, str) and "{" in spec:
            return einsum(spec, *operands, **kwargs)
        return original(spec, *operands, **kwargs)

    return wrapped


def _wrap_axis_kw(original: Callable[..., Any], named: Callable[..., Any], axis_pos: int) -> Callable[..., Any]:
    from namedcheck.runtime.named_ops import has_names

    @functools.wraps(original)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        axis = kwargs.get("axis", args[axis_pos] if len(args) > axis_pos else None)
        if has_names(axis):
            return named(*args, **kwargs)
        return original(*args, **kwargs)

    return wrapped


def install() -> None:
    """Install the legacy spellings into the imported jax modules (idempotent)."""
    global _installed
    if _installed:
        return
    import jax
    import jax.experimental
    import jax.nn
    import jax.numpy as jnp
    import jax.scipy.special
    from jax import lax

    from namedcheck.runtime import named_ops
    from namedcheck.runtime.xmap import SerialLoop, serial_loop, xmap

    maps = sys.modules.get("jax.experimental.maps")
    if maps is None or not hasattr(maps, "xmap"):
        maps = types.ModuleType("jax.experimental.maps", "xmap and serial loops (installed by namedcheck.compat)")
        sys.modules["jax.experimental.maps"] = maps
        jax.experimental.maps = maps  # type: ignore[attr-defined]
        maps.xmap = xmap  # type: ignore[attr-defined]
        maps.SerialLoop = SerialLoop  # type: ignore[attr-defined]
        maps.serial_loop = serial_loop  # type: ignore[attr-defined]
        maps.Mesh = jax.sharding.Mesh  # type: ignore[attr-defined]
    for name, fn in (("pdot", named_ops.pdot), ("xeinsum", named_ops.einsum), ("pvary", named_ops.pvary)):
        if not hasattr(lax, name):
            setattr(lax, name, fn)
    jnp.einsum = _wrap_einsum(jnp.einsum)
    for name in ("sum", "max", "min", "mean"):
        original = getattr(jnp, name)
        setattr(jnp, name, _wrap_reduction(original, functools.partial(named_ops.reduce, name)))
    jnp.var = _wrap_reduction(jnp.var, named_ops.var)
    jnp.std = _wrap_reduction(jnp.std, named_ops.std)
    jax.nn.one_hot = _wrap_axis_kw(jax.nn.one_hot, named_ops.one_hot, 3)
    jax.nn.logsumexp = _wrap_axis_kw(jax.nn.logsumexp, named_ops.logsumexp, 1)
    jax.scipy.special.logsumexp = _wrap_axis_kw(jax.scipy.special.logsumexp, named_ops.logsumexp, 1)
    _installed = True


def main(argv: list[str] | None = None) -> int:
    """`python -m namedcheck.compat script.py [args]`: run a legacy script with the shims installed."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m namedcheck.compat script.py [args ...]", file=sys.stderr)
        return 2
    install()
    sys.argv = argv
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
