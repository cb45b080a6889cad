"""Array creation from literal shapes: zeros/ones/full/empty/arange/eye/linspace, *_like, array,
and jax.random samplers.
Their sharding rules over Explicit mesh axes (`@sharding_rule`) follow the shape rules."""

from __future__ import annotations

from typing import Any

from namedcheck.engine import dtypes, symbolic
from namedcheck.engine.algebra import broadcast_shapes, is_int
from namedcheck.engine.codes import NC203
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Shd, Unprovable, rule, sharding_rule
from namedcheck.engine.ops.elementwise import dtype_from_value
from namedcheck.engine.ops.shaping import shape_arg
from namedcheck.engine.placement import of
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, DimVal, Seq, dim_of, literal


def _dtype(call: Call, default: str | None = "f32", shaped: bool = True) -> str | None:
    """The dtype asked for, else `default`. `shaped`: the shape is the one given whatever the dtype (an
    unknown dtype leaves it); else (`array(obj, dtype=...)`) object / structured dtypes change what it means."""
    v = call.args.get("dtype")
    if v is None or (isinstance(v, Const) and v.value is None):
        return default
    code = dtype_from_value(v)
    if code is None and not shaped:
        raise Unprovable
    return code


@rule("jax.numpy.zeros", "jax.numpy.ones", "jax.numpy.empty")
def zeros_rule(call: Call) -> Any:
    return ArrayType.make(_dtype(call), shape_arg(call.get("shape"), unknown_items=True))


@rule("jax.numpy.full")
def full_rule(call: Call) -> Any:
    fill = as_array(call.get("fill_value"))
    default = dtypes.materialize(fill.dtype_code) if isinstance(fill, ArrayType) else None
    return ArrayType.make(_dtype(call, default), shape_arg(call.get("shape"), unknown_items=True))


@rule("jax.numpy.zeros_like", "jax.numpy.ones_like", "jax.numpy.empty_like", "jax.numpy.full_like")
def like_rule(call: Call) -> Any:
    x = call.array("a")
    shape = (
        shape_arg(call.args["shape"], unknown_items=True)
        if "shape" in call.args and not (isinstance(call.args["shape"], Const) and call.args["shape"].value is None)
        else x.shape
    )
    return ArrayType.make(_dtype(call, dtypes.materialize(x.dtype_code)), shape, x.named_shape)


def _arange_args(call: Call) -> tuple[Any, Any, Any]:
    """start, stop and step as given, numpy's one-argument form (`arange(stop)`) and the default step filled in."""
    start, stop, step = (call.get(n, Const(None)) for n in ("start", "stop", "step"))
    if isinstance(stop, Const) and stop.value is None:
        start, stop = Const(0), start
    return start, stop, Const(1) if isinstance(step, Const) and step.value is None else step


@rule("jax.numpy.arange")
def arange_rule(call: Call) -> Any:
    start_v, stop_v, step_v = _arange_args(call)
    if isinstance(stop_v, DimVal) and isinstance(stop_v.dim, str):  # `arange(T)` of a size T not known statically
        first = start_v.value if isinstance(start_v, Const) and not isinstance(start_v.value, bool) else None
        if first not in (0, 1) or step_v != Const(1):
            raise Unprovable
        return ArrayType.make(_dtype(call, "i32"), (symbolic.arith("-", stop_v.dim, first),))
    if not all(_is_number(v) for v in (start_v, stop_v, step_v)):
        return _arange_of_unknown(call, (start_v, stop_v, step_v))
    start, stop, step = literal(start_v), literal(stop_v), literal(step_v)
    nums = [v for v in (start, stop, step)]
    if any(not isinstance(v, (int, float)) or isinstance(v, bool) for v in nums):
        raise Unprovable
    default = "i32" if all(isinstance(v, int) for v in nums) else "f32"
    if step == 0:
        raise Unprovable
    if all(isinstance(v, int) for v in nums):
        try:
            n = len(range(start, stop, step))
        except OverflowError:  # more elements than an index holds
            raise Unprovable from None
    else:
        import math

        span = (stop - start) / step
        if not math.isfinite(span):  # jnp.arange(1e400), arange(0, inf): JAX itself fails
            raise Unprovable
        n = max(0, math.ceil(span))
    return ArrayType.make(_dtype(call, default), (n,))


def _is_number(v: Any) -> bool:
    return isinstance(v, Const) and isinstance(v.value, int | float) and not isinstance(v.value, bool)


def _arange_of_unknown(call: Call, args: tuple[Any, ...]) -> ArrayType:
    """`arange(n)` of bounds not known statically: one dimension of unknown size; its dtype the one given, else
    an int's where every bound is a size (`x.shape[0]`), else not known (a float bound makes it float)."""
    if any(not (_is_number(v) or isinstance(v, DimVal) or v is UNKNOWN) for v in args):
        raise Unprovable  # arrays, sequences: not a bound this rule reads
    ints = all(isinstance(v, DimVal) or isinstance(v, Const) and isinstance(v.value, int) for v in args)
    return ArrayType.make(_dtype(call, "i32" if ints else None), (None,))


@rule("jax.numpy.eye")
def eye_rule(call: Call) -> Any:
    n = dim_of(call.get("N"))
    m = call.get("M", Const(None))
    mm = n if isinstance(m, Const) and m.value is None else dim_of(m)
    return ArrayType.make(_dtype(call), (n, mm))


@rule("jax.numpy.identity")
def identity_rule(call: Call) -> Any:
    n = dim_of(call.get("n"))
    return ArrayType.make(_dtype(call), (n, n))


@rule("jax.numpy.linspace")
def linspace_rule(call: Call) -> Any:
    """`(num,)` between two numbers; between arrays, `num` inserted at `axis` of their broadcast shape (numpy's
    and JAX's `linspace(np.zeros(3), np.ones(3), 10)` is (10, 3))."""
    if literal(call.get("retstep", Const(False))) is not False:
        raise Unprovable  # (samples, step): a tuple
    num = dim_of(call.get("num", Const(50)))
    ends = [as_array(call.get(k)) for k in ("start", "stop")]
    if not all(isinstance(e, ArrayType) and not e.has_ellipsis for e in ends):
        raise Unprovable
    start, stop = ends
    if not start.shape and not stop.shape:
        return ArrayType.make(_dtype(call), (num,))
    axis = literal(call.get("axis", Const(0)))
    rest = broadcast_shapes(start.shape, stop.shape, "start", "stop")
    if not isinstance(axis, int) or not -len(rest) - 1 <= axis <= len(rest):
        raise Unprovable
    at = axis if axis >= 0 else len(rest) + 1 + axis
    return ArrayType.make(_dtype(call, None), (*rest[:at], num, *rest[at:]))


@rule("jax.numpy.array", "jax.numpy.asarray")
def array_rule(call: Call) -> Any:
    obj = call.get("object")
    t = as_array(obj)
    if not isinstance(t, ArrayType):
        raise Unprovable
    # an array or a number keeps its shape whatever the dtype (an unknown dtype leaves the shape); a list's
    # shape depends on it (numpy's structured and object dtypes read nested sequences otherwise)
    dt = _dtype(call, dtypes.materialize(t.dtype_code), shaped=not isinstance(obj, Seq))
    ndmin = literal(call.get("ndmin", Const(0)))
    if not isinstance(ndmin, int):
        raise Unprovable
    shape = (1,) * max(0, ndmin - len(t.shape)) + t.shape
    return ArrayType.make(dt, shape, t.named_shape)


def check_key(call: Call) -> None:
    """A sampler's or split's `key` must be a typed key or raw uint32 key data (every PRNG implementation): a
    Python number, a dict, or an array of another known dtype makes JAX raise (often two swapped arguments)."""
    v = call.args.get("key")
    what = None
    if isinstance(v, Const) and isinstance(v.value, int | float) and not isinstance(v.value, bool):
        what = f"the Python {type(v.value).__name__} {v.value!r}"
    elif isinstance(v, Seq) and v.kind == "dict":
        what = "a dict"
    elif isinstance(v, ArrayType) and v.dtype_code is not None and v.dtype_code != "u32":
        what = f"an array {v}"
    if what is not None:
        raise RuleError(
            NC203,
            f"{call.op} takes a PRNG key as `key` (a typed key or uint32 key data), but {call.label('key')} is {what}",
            hint="pass a key from jax.random.key(seed) or jax.random.split(key): check the order of the arguments",
        )


@rule("jax.random.normal", "jax.random.uniform", "jax.random.truncated_normal")
def random_float_rule(call: Call) -> Any:
    check_key(call)
    shape = shape_arg(call.args["shape"], unknown_items=True) if "shape" in call.args else ()
    return ArrayType.make(_dtype(call), shape)


# numpy's host-side generators (`np.random.normal(size=...)`, `np.random.default_rng(0).standard_normal(...)`),
# common in data pipelines: the array's shape is `size`; without `size` numpy returns a Python scalar (Unknown)
def _samplers(*names: str) -> tuple[str, ...]:
    """`numpy.random.<name>` and the same method of a `numpy.random.Generator` (`default_rng(...)`)."""
    return tuple(f"{where}.{n}" for n in names for where in ("numpy.random", "numpy.random.Generator"))


@rule(
    *_samplers(
        "normal",
        "uniform",
        "standard_normal",
        "random",
        "exponential",
        "standard_exponential",
        "beta",
        "gamma",
        "standard_gamma",
        "laplace",
        "logistic",
        "lognormal",
        "gumbel",
        "chisquare",
        "standard_t",
        "standard_cauchy",
        "rayleigh",
        "weibull",
        "pareto",
        "triangular",
    ),
    "numpy.random.random_sample",  # (legacy names, not a Generator's)
    "numpy.random.ranf",
    "numpy.random.sample",
)
def numpy_random_float_rule(call: Call) -> Any:
    return ArrayType.make(_dtype(call), _numpy_size(call))


@rule("numpy.random.rand", "numpy.random.randn")
def numpy_random_dims_rule(call: Call) -> Any:
    """`np.random.randn(m, n)` (numpy's legacy samplers, a `RandomState`'s too): the sizes as arguments; none:
    a Python float (Unknown)."""
    if not call.extra:
        raise Unprovable
    return ArrayType.make("f32", shape_arg(Seq(tuple(call.extra)), unknown_items=True))


@rule(
    "numpy.random.randint",
    "numpy.random.Generator.integers",
    *_samplers("binomial", "poisson", "geometric", "negative_binomial"),
)
def numpy_random_int_rule(call: Call) -> Any:
    return ArrayType.make(_dtype(call, "i32"), _numpy_size(call))


@rule(*_samplers("choice"))
def numpy_random_choice_rule(call: Call) -> Any:
    """`np.random.choice(n, size=b)` (indices of a batch) or `np.random.choice(xs, size=b)` (xs is 1-d): the
    shape is `size`, the dtype an int's or xs's."""
    a = call.args.get("a")
    if _count(a) is not None:
        return ArrayType.make("i32", _numpy_size(call))
    if isinstance(a, ArrayType) and not a.has_ellipsis and len(a.shape) == 1 and not a.named_shape:
        return ArrayType.make(a.dtype_code, _numpy_size(call))
    raise Unprovable


@rule(*_samplers("permutation"))
def numpy_random_permutation_rule(call: Call) -> Any:
    """`np.random.permutation(n)`: the ints below n shuffled; of an array: a copy shuffled along its first axis."""
    x = call.args.get("x")
    n = _count(x)
    if n is not None:
        return ArrayType.make("i32", (n,))
    if isinstance(x, ArrayType) and not x.has_ellipsis and x.shape and not x.named_shape:
        return ArrayType.make(x.dtype_code, x.shape)
    raise Unprovable


def _count(v: Any) -> int | str | None:
    """An int argument's value (a symbol where not known statically); None for other values."""
    if isinstance(v, Const) and is_int(v.value):
        return v.value
    if isinstance(v, DimVal) and isinstance(v.dim, int | str) and not isinstance(v.dim, bool):
        return v.dim
    return None


def _numpy_size(call: Call) -> tuple[Any, ...]:
    v = call.args.get("size")
    if v is None or (isinstance(v, Const) and v.value is None):
        raise Unprovable
    return shape_arg(v, unknown_items=True)


@rule("jax.random.randint")
def randint_rule(call: Call) -> Any:
    check_key(call)
    return ArrayType.make(_dtype(call, "i32"), shape_arg(call.get("shape"), unknown_items=True))


# raw key words per PRNG implementation (the default is threefry2x32)
_KEY_WORDS = {"threefry2x32": 2, "rbg": 4, "unsafe_rbg": 4}


@rule("jax.random.PRNGKey")
def prng_key_rule(call: Call) -> Any:
    """A raw uint32 key whose size depends on the implementation (`impl=`, or the default threefry2x32).
    Front ends give Unknown where the program configures the PRNG (`jax_enable_custom_prng` makes it a
    typed key of shape (), `jax_default_prng_impl` changes its size)."""
    impl = literal(call.get("impl", Const(None)))
    if impl is not None and not isinstance(impl, str):
        raise Unprovable  # an implementation object
    words = _KEY_WORDS.get(impl or "threefry2x32")
    if words is None:
        raise Unprovable
    return ArrayType.make("u32", (words,))


@rule("jax.random.key")
def key_rule(call: Call) -> Any:
    """A typed key: a scalar of a key dtype (the checker leaves the dtype unknown)."""
    return ArrayType.make(None, ())


@rule("jax.random.split")
def split_rule(call: Call) -> Any:
    check_key(call)
    key = call.array("key")
    num = call.get("num", Const(2))
    n = dim_of(num) if isinstance(num, Const) and is_int(num.value) else None
    return key.with_shape((n,) + key.shape)


@rule("jax.random.fold_in")
def fold_in_rule(call: Call) -> Any:
    """A key folded with data: a key of the same shape."""
    check_key(call)
    return call.array("key")


# ---- sharding over Explicit mesh axes (JAX's sharding rules: the result's sharding, NC8xx) ----------------


@sharding_rule(*[f"jax.numpy.{n}_like" for n in ("zeros", "ones", "empty", "full")])
def like_sharding(call: Call, result: ArrayType) -> Shd | None:
    """`zeros_like(x)` takes x's sharding (its shape and out_sharding= left out)."""
    if any(k in call.args for k in ("shape", "device", "out_sharding")):
        return None
    return of(call.array("a"))
