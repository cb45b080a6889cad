"""64-bit dtypes: numpy's host defaults (`np.zeros(3)` is float64, `np.arange(3)` int64) and `jax_enable_x64`
(JAX's results are 32-bit without it, its defaults 64-bit with it). The engine's rules give JAX's 32-bit answers;
an op's result is adjusted here by who computes it: a `jax.*` function, a `numpy.*` function, or an operator /
method whose operands decide (a 64-bit operand is a numpy array where x64 is off). A width the checker cannot
tell is an unknown dtype, never a guessed one."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from namedcheck.engine.maps import X64, AxisEnv
from namedcheck.engine.trees import map_leaves, tree_leaves
from namedcheck.engine.values import ArrayType

_WIDE = {"i32": "i64", "u32": "u64", "f32": "f64", "c64": "c128"}
_WEAK_WIDE = {"i*": "i64", "f*": "f64", "c*": "c128"}
_NARROW = {"i64": "i32", "u64": "u32", "f64": "f32", "c128": "c64"}
_64 = frozenset(_NARROW)
# ops whose result is raw PRNG key data: uint32 under x64 too (as an explicit dtype is)
KEY_DATA = frozenset(
    {
        "jax.random.PRNGKey",
        "jax.random.split",
        "jax.random.fold_in",
        "jax.random.key_data",
        "jax.random.clone",
    }
)
BUILTIN_DTYPES = frozenset({"float", "int", "complex"})  # `dtype=float`: numpy's float64, JAX's default float


def _ins(values: list[Any], keys: bool) -> set[str | None]:
    """The dtypes of the array operands (not Python scalars; a PRNG key's uint32 data left out for samplers)."""
    out: set[str | None] = set()
    for v in values:
        for leaf in tree_leaves(v):
            if isinstance(leaf, ArrayType) and not leaf.weak and not (keys and leaf.dtype_code in ("u32", None)):
                out.add(leaf.dtype_code)
    return out


def _host(d: str | None, ins: set[str | None], explicit: bool, builtin: bool, weak_ok: bool = False) -> str | None:
    """The dtype numpy's rules give (or JAX's under x64) where JAX's 32-bit rules give `d`."""
    if d is None:
        return None
    if builtin:
        return _WIDE.get(d, d)
    if explicit or d == "bool_" or d in ins:
        return d
    if d in _WEAK_WIDE:
        return d if weak_ok else _WEAK_WIDE[d]
    if None in ins:
        return None
    if all(i in _64 or i == "bool_" for i in ins):  # creation from sizes, an int array's mean, ...
        return _WIDE.get(d, d)
    return None  # numpy's promotion of narrower inputs is not JAX's


def _with(v: Any, fn: Any) -> Any:
    def leaf(x: Any) -> Any:
        if not isinstance(x, ArrayType):
            return x
        d = fn(x.dtype_code)
        return x if d == x.dtype_code else replace(x, dtype_code=d, weak=x.weak and d is not None and "*" in d)

    if not any(isinstance(x, ArrayType) and fn(x.dtype_code) != x.dtype_code for x in tree_leaves(v)):
        return v
    return map_leaves(v, leaf)


def result(out: Any, origin: str, inputs: list[Any], explicit: bool, builtin: bool, env: AxisEnv, keys: bool) -> Any:
    """An op's result with the widths its computation gives. `origin`: "jax" (a JAX function), "numpy" (a numpy
    function), "value" (an operator or a method: the operands decide); `explicit`: a dtype argument given
    (`builtin`: as Python's `float` / `int`)."""
    if not any(isinstance(x, ArrayType) for x in tree_leaves(out)):
        return out
    ins = _ins(inputs, keys)
    x64 = env.flag(X64)
    if origin == "numpy":
        return _with(out, lambda d: _host(d, ins, explicit, builtin))
    if origin == "jax":
        off = lambda d: _NARROW.get(d, d)  # noqa: E731 - JAX without x64 never makes a 64-bit array
        on = lambda d: _host(d, ins, explicit, builtin, weak_ok=True)  # noqa: E731
        return _with(out, off if x64 is False else on if x64 else lambda d: _same(off(d), on(d)))
    if not ins & _64:  # an operator or method on JAX arrays (or numpy's 32-bit ones): JAX's rules
        return out
    low = any(i not in _64 and i != "bool_" for i in ins)
    off = (lambda d: None) if low else lambda d: _host(d, ins, explicit, builtin)  # mixed: numpy or JAX computes
    on = (lambda d: d) if low else lambda d: _host(d, ins, explicit, builtin, weak_ok=True)
    return _with(out, off if x64 is False else on if x64 else lambda d: _same(off(d), on(d)))


def _same(a: str | None, b: str | None) -> str | None:
    return a if a == b else None


def traced(v: Any, env: AxisEnv) -> Any:
    """An argument as a traced function (`jit`, `vmap`, ...) sees it: without x64, a numpy float64 array is a
    float32 array there."""
    x64 = env.flag(X64)
    if x64 is True or not any(isinstance(x, ArrayType) and x.dtype_code in _64 for x in tree_leaves(v)):
        return v
    return _with(v, lambda d: (_NARROW.get(d, d) if x64 is False else None) if d in _64 else d)


__all__ = ["BUILTIN_DTYPES", "result", "traced"]
