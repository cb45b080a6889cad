"""`@namedcheck.checked`: check a function's array annotations when it is called (traced).

Dtypes, positional shapes and symbols are matched by the engine's `signature.apply` (the rule the
checker uses at calls of annotated functions); named shapes are read from the vmap tracers when the
function runs inside `namedcheck.xmap`. A call with concrete arrays whose shapes and dtypes already
passed is not checked again, so an eager call costs a dictionary lookup; under `jax.jit` the check
runs at trace time only.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from namedcheck.engine import jaxtyping, spelling
from namedcheck.engine.codes import NC302
from namedcheck.engine.errors import RuleError
from namedcheck.engine.signature import (
    KWONLY,
    NORMAL,
    POSONLY,
    VARARGS,
    VARKW,
    Param,
    Signature,
    apply,
    compare_declared,
)
from namedcheck.engine.values import ArrayType, Const, Dim, Seq
from namedcheck.errors import ShapeError
from namedcheck.runtime.context import engine_type, named_shape_of, sharding_of

F = TypeVar("F", bound=Callable[..., Any])
_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: POSONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: NORMAL,
    inspect.Parameter.KEYWORD_ONLY: KWONLY,
    inspect.Parameter.VAR_POSITIONAL: VARARGS,
    inspect.Parameter.VAR_KEYWORD: VARKW,
}


def array_annotation(ann: Any, globalns: dict[str, Any]) -> Any:
    """An annotation as an engine type: ArrayType, Seq of them (tuple[...] returns), or None."""
    if isinstance(ann, str):
        try:
            ann = eval(ann, globalns)  # noqa: S307 - the function's own annotation text
        except Exception:
            return None
    if isinstance(ann, ArrayType):
        return ann
    if _is_jaxtyping(ann):  # `Float[Array, "b d"]`: jaxtyping's dtypes and dimension string, its meaning
        try:
            return jaxtyping.from_dtypes(ann.dtypes, ann.dim_str)
        except RuleError:
            return None  # jaxtyping itself rejected the string when the annotation was made
    for meta in getattr(ann, "__metadata__", ()):  # Annotated[jax.Array, f32[...]]
        if isinstance(meta, ArrayType):
            return meta
    if typing.get_origin(ann) is tuple:
        items = [array_annotation(a, globalns) for a in typing.get_args(ann)]
        if items and all(isinstance(i, ArrayType) for i in items):
            return Seq(tuple(items))
    return None


def _is_jaxtyping(ann: Any) -> bool:
    """A jaxtyping array annotation (a class jaxtyping made: `dtypes`, `dim_str`), recognised without importing
    jaxtyping."""
    return (
        isinstance(ann, type)
        and any(c.__module__.startswith("jaxtyping") and c.__name__ == "AbstractArray" for c in ann.__mro__)
        and isinstance(getattr(ann, "dim_str", None), str)
    )


def signature_of(fn: Callable[..., Any]) -> Signature:
    """The engine signature of a Python function from its annotations."""
    target = inspect.unwrap(fn)
    globalns = getattr(target, "__globals__", {})
    sig = inspect.signature(target)
    params = tuple(
        Param(
            p.name,
            _KINDS[p.kind],
            p.default is not inspect.Parameter.empty,
            array_annotation(p.annotation, globalns) if p.annotation is not inspect.Parameter.empty else None,
        )
        for p in sig.parameters.values()
    )
    returns = (
        None if sig.return_annotation is inspect.Signature.empty else array_annotation(sig.return_annotation, globalns)
    )
    return Signature(getattr(target, "__qualname__", repr(target)), params, returns)


def value_type(x: Any, declared: Any = None) -> Any:
    """The engine type of a runtime value (arrays and tracers; Python scalars are weak constants)."""
    if isinstance(x, (bool, int, float, complex)):
        return Const(x)
    if isinstance(x, (tuple, list)):
        items = declared.items if isinstance(declared, Seq) and len(declared.items) == len(x) else (None,) * len(x)
        return Seq(tuple(value_type(i, d) for i, d in zip(x, items)))
    if getattr(x, "shape", None) is None or getattr(x, "dtype", None) is None:
        return None
    named: Mapping[str, Dim] | None = named_shape_of(x) if type(x).__module__.startswith("jax") else {}
    if named is None:  # not observable here: take the declared named shape as given
        named = dict(declared.named) if isinstance(declared, ArrayType) else {}
    out = engine_type(x, named)
    if isinstance(declared, ArrayType) and declared.sharding is not None:  # the sharding of jax.typeof(x)
        out = out.with_sharding(sharding_of(x))
    return out


def checked(fn: F) -> F:
    """Check `fn`'s array annotations at each call (at trace time under jit); raise ShapeError."""
    sig = signature_of(fn)
    annotated = {p.name: p.annotation for p in sig.params if p.annotation is not None}
    if not annotated and sig.returns is None:
        return fn
    passed: dict[Any, Any] = {}  # argument key -> result types seen to pass (the result is checked on every call)
    # a stated sharding is not part of the (type, shape, dtype) key: such functions are checked on every call
    sharded = any(_states_sharding(t) for t in [*annotated.values(), sig.returns])
    py_sig = inspect.signature(fn)

    def check_result(out: Any, expected: Any, seen: set[Any] | None) -> None:
        if sig.returns is None:
            return
        rkey = _key(out)
        if seen is not None and rkey is not None and rkey in seen:
            return
        actual = value_type(out, expected)
        if actual is not None:
            try:
                compare_declared(expected if expected is not None else sig.returns, actual, "the result")
            except RuleError as e:
                raise ShapeError(e.code, f"{sig.name}: {e.message}", e.hint) from None
        if seen is not None and rkey is not None:
            seen.add(rkey)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        key: Any = None
        if not kwargs and not sharded:
            try:
                key = tuple([(type(a), a.shape, a.dtype) for a in args])
            except AttributeError:
                key = None
            if key is not None and key in passed:
                expected, seen = passed[key]
                out = fn(*args)
                check_result(out, expected, seen)
                return out
        try:
            bound = py_sig.bind(*args, **kwargs)
        except TypeError:
            return fn(*args, **kwargs)  # Python reports arity errors itself
        for name, v in bound.arguments.items():
            if isinstance(annotated.get(name), ArrayType):
                _check_array_kind(sig, name, annotated[name], v)
        values = {name: value_type(v, annotated.get(name)) for name, v in bound.arguments.items() if name in annotated}
        values = {k: v for k, v in values.items() if v is not None}
        try:
            expected = apply(sig, values, code=NC302)
        except RuleError as e:
            raise _shape_error(sig, values, e) from None
        out = fn(*args, **kwargs)
        cacheable = (
            key is not None
            and not sharded
            and all(t.__module__ != "jax._src.core" and "Tracer" not in t.__name__ for t, _, _ in key)
        )
        seen = set()
        check_result(out, expected, seen if cacheable else None)
        if cacheable:
            passed[key] = (expected, seen)
        return out

    return typing.cast(F, wrapper)


def _states_sharding(t: Any) -> bool:
    if isinstance(t, Seq):
        return any(_states_sharding(i) for i in t.items)
    return isinstance(t, ArrayType) and t.sharding is not None


def _key(out: Any) -> Any:
    """A result's (type, shape, dtype), per item for a tuple; None when it has none."""
    try:
        if isinstance(out, tuple):
            return tuple([(type(o), o.shape, o.dtype) for o in out])
        return (type(out), out.shape, out.dtype)
    except AttributeError:
        return None


def _check_array_kind(sig: Signature, name: str, declared: ArrayType, v: Any) -> None:
    """A parameter annotated with an array type takes an array, a tracer or a Python number: never None,
    a list or a string (JAX would turn some of them into arrays, the annotation says otherwise)."""
    if isinstance(v, (bool, int, float, complex)) or (
        getattr(v, "shape", None) is not None and getattr(v, "dtype", None) is not None
    ):
        return
    found = f"{type(v).__name__} {v!r}" if len(repr(v)) <= 40 else type(v).__name__
    raise ShapeError(
        NC302,
        f"{sig.name}: parameter {name!r} expects an array {spelling.shown(declared)}, got {found}",
        "pass a jax or numpy array",
    )


def _shown(v: Any, how: str | None) -> str:
    """A runtime value's type in a message: in the spelling of the annotation it is checked against."""
    if isinstance(v, ArrayType):
        return spelling.shown(v, how)
    if isinstance(v, Const):
        return repr(v.value)
    return repr(v)


def _shape_error(sig: Signature, values: dict[str, Any], err: RuleError) -> ShapeError:
    """Name the parameter, the expected and the actual type where one parameter alone fails."""
    for p in sig.params:
        if p.name in values and isinstance(p.annotation, ArrayType):
            try:
                apply(Signature(sig.name, (p,), None), {p.name: values[p.name]})
            except RuleError:
                return ShapeError(
                    err.code,
                    f"{sig.name}: parameter {p.name!r} expects {spelling.shown(p.annotation)}, got "
                    f"{_shown(values[p.name], p.annotation.spelling)}: {err.message}",
                    err.hint,
                )
    return ShapeError(err.code, f"{sig.name}: {err.message}", err.hint)
