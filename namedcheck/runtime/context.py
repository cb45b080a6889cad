"""What the runtime knows while tracing: named axes bound by enclosing `namedcheck.xmap` calls, and
the named axes a traced value carries (read from JAX's vmap tracers)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import jax
from jax._src import core
from jax._src.interpreters import batching, partial_eval
from jax._src.mesh import AxisType

from namedcheck.engine.dtypes import canonical_dtype
from namedcheck.engine.values import ArrayType, Dim

_state = threading.local()


def bound_axes() -> dict[str, int]:
    """Named axes bound by the xmaps whose bodies are being traced (outermost first)."""
    return dict(getattr(_state, "bound", {}))


def bound_resources() -> dict[str, tuple[str, ...]]:
    """The resources (mesh axes, loops) of the names enclosing xmaps bind, as the engine labels them."""
    return dict(getattr(_state, "resources", {}))


@contextmanager
def binding(sizes: dict[str, int], resources: dict[str, tuple[str, ...]] | None = None) -> Iterator[None]:
    """Mark `sizes` (with their `resources`) as bound while an xmap body is traced."""
    prev, prev_res = bound_axes(), bound_resources()
    _state.bound = {**prev, **sizes}
    _state.resources = {**prev_res, **(resources or {})}
    try:
        yield
    finally:
        _state.bound = prev
        _state.resources = prev_res


@contextmanager
def names_unobservable() -> Iterator[None]:
    """While the named-shape pass traces a body per instance, tracers do not show named axes."""
    prev = getattr(_state, "blind", False)
    _state.blind = True
    try:
        yield
    finally:
        _state.blind = prev


def named_shape_of(x: Any) -> dict[str, int] | None:
    """The named axes a value carries inside xmap / vmap(axis_name=...), or None when not observable."""
    if getattr(_state, "blind", False):
        return None
    names: dict[str, int] = {}
    t = x
    while True:
        if isinstance(t, batching.BatchTracer):
            data = t._trace.axis_data
            if t.batch_dim is not None and isinstance(data.name, str):
                names[data.name] = int(data.size)
            t = t.val
        elif hasattr(t, "primal") and hasattr(t, "tangent"):  # JVPTracer under grad
            t = t.primal
        elif isinstance(t, core.Tracer) and not isinstance(t, partial_eval.DynamicJaxprTracer):
            return None  # a tracer we cannot see through
        else:
            return names


def engine_type(x: Any, named: Mapping[str, Dim] | None = None) -> ArrayType:
    """An array or tracer as an engine type: its dtype, positional shape and the given named shape."""
    dtype = getattr(x, "dtype", None)
    code = canonical_dtype(str(dtype)) if dtype is not None else None
    return ArrayType.make(code, tuple(int(d) for d in x.shape), named or {})


def sharding_of(x: Any) -> tuple[tuple[str, ...], ...] | None:
    """The sharding in `jax.typeof(x)` (per dim the mesh axes splitting it) when every axis of its mesh is
    Explicit; None otherwise (no mesh, Auto or Manual axes: the type does not state it)."""
    try:
        t = jax.typeof(x)
        s = t.sharding
        mesh, spec = s.mesh, s.spec
        if mesh.empty or not all(a == AxisType.Explicit for a in mesh.axis_types):
            return None
        entries = tuple(spec) + (None,) * (len(t.shape) - len(spec))
    except Exception:
        return None
    return tuple(() if e is None else (e,) if isinstance(e, str) else tuple(e) for e in entries)
