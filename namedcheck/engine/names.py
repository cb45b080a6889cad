"""Canonical public op names: front ends report import paths or defining modules; the engine keys
ops by their public name (`jax.numpy.matmul`, `jax.lax.psum`)."""

from __future__ import annotations

_HAIKU_SRC = (
    "base",
    "basic",
    "transform",
    "multi_transform",
    "module",
    "stateful",
    "conv",
    "layer_norm",
    "rms_norm",
    "embed",
    "attention",
    "reshape",
    "pool",
    "bias",
    "batch_norm",
)
# module prefixes that name the same ops
_MODULE_ALIASES: dict[str, str] = {
    "numpy": "jax.numpy",
    "jax.experimental.numpy": "jax.numpy",
    "jax._src.numpy": "jax.numpy",
    "jax._src.numpy.lax_numpy": "jax.numpy",
    "jax._src.numpy.reductions": "jax.numpy",
    "jax._src.numpy.ufuncs": "jax.numpy",
    "jax._src.numpy.einsum": "jax.numpy",
    "jax._src.lax.lax": "jax.lax",
    "jax._src.lax.parallel": "jax.lax",
    "jax._src.nn.functions": "jax.nn",
    "jax._src.random": "jax.random",
    "numpy.random": "numpy.random",
    # einops' functions where they are defined
    "einops.einops": "einops",
    "einops.packing": "einops",
    # the runtime's named-axis modules publish the same ops
    "namedcheck.numpy": "jax.numpy",
    "namedcheck.nn": "jax.nn",
    "namedcheck.lax": "jax.lax",
    # dm-haiku's defining modules publish its API as `haiku.*` (haiku's own tests import them directly)
    **{f"haiku._src.{m}": "haiku" for m in _HAIKU_SRC},
    "haiku._src.nets.mlp": "haiku.nets",
    "haiku._src.test_utils": "haiku.testing",
    "haiku._src.initializers": "haiku.initializers",
    "haiku._src.data_structures": "haiku.data_structures",
}
# single ops published under several names
_OP_ALIASES: dict[str, str] = {
    "jax.scipy.special.logsumexp": "jax.nn.logsumexp",
    "jax._src.ops.special.logsumexp": "jax.nn.logsumexp",
    "jax.scipy.special.expit": "jax.nn.sigmoid",
    "jax.numpy.concat": "jax.numpy.concatenate",
    "jax.numpy.absolute": "jax.numpy.abs",
    "jax.numpy.pow": "jax.numpy.power",
    "jax.numpy.true_divide": "jax.numpy.divide",
    "jax.numpy.row_stack": "jax.numpy.vstack",
    "jax.numpy.asin": "jax.numpy.arcsin",
    "jax.numpy.acos": "jax.numpy.arccos",
    "jax.numpy.atan": "jax.numpy.arctan",
    "jax.numpy.atan2": "jax.numpy.arctan2",
    "jax.numpy.amax": "jax.numpy.max",
    "jax.numpy.amin": "jax.numpy.min",
    "jax.nn.silu": "jax.nn.swish",
    "namedcheck.lax.pdot": "jax.lax.pdot",
    "jax.sharding.reshard": "jax.reshard",
    "namedcheck.lax.psum": "jax.lax.psum",
    "namedcheck.numpy.einsum": "jax.numpy.einsum",
    "namedcheck.lax.xeinsum": "jax.numpy.einsum",
    "jax.lax.xeinsum": "jax.numpy.einsum",
    "namedcheck.numpy.logsumexp": "jax.nn.logsumexp",
}
# flax re-exports jax's activations (`nn.gelu` is `jax.nn.gelu`)
for _lib in ("flax.linen", "flax.nnx"):
    for _fn in (
        "gelu",
        "relu",
        "silu",
        "swish",
        "sigmoid",
        "softmax",
        "log_softmax",
        "one_hot",
        "elu",
        "leaky_relu",
        "softplus",
        "logsumexp",
        "standardize",
        "celu",
        "selu",
        "glu",
        "log_sigmoid",
    ):
        _OP_ALIASES[f"{_lib}.{_fn}"] = _OP_ALIASES.get(f"jax.nn.{_fn}", f"jax.nn.{_fn}")
    _OP_ALIASES[f"{_lib}.tanh"] = "jax.numpy.tanh"
# flax's pooling functions, where they are defined and as nnx publishes them
for _fn in ("max_pool", "avg_pool", "min_pool"):
    _OP_ALIASES[f"flax.linen.pooling.{_fn}"] = f"flax.linen.{_fn}"
    _OP_ALIASES[f"flax.nnx.{_fn}"] = f"flax.linen.{_fn}"
# the libraries' filtered transforms act as jax's on the arrays of their arguments
_OP_ALIASES.update(
    {
        "flax.nnx.jit": "jax.jit",
        "equinox.filter_jit": "jax.jit",
    }
)

# Array methods and attributes -> (op, how the receiver is passed).
METHODS: dict[str, str] = {
    "sum": "jax.numpy.sum",
    "mean": "jax.numpy.mean",
    "max": "jax.numpy.max",
    "min": "jax.numpy.min",
    "prod": "jax.numpy.prod",
    "any": "jax.numpy.any",
    "all": "jax.numpy.all",
    "std": "jax.numpy.std",
    "var": "jax.numpy.var",
    "argmax": "jax.numpy.argmax",
    "argmin": "jax.numpy.argmin",
    "reshape": "jax.numpy.reshape",
    "transpose": "jax.numpy.transpose",
    "swapaxes": "jax.numpy.swapaxes",
    "squeeze": "jax.numpy.squeeze",
    "ravel": "jax.numpy.ravel",
    "flatten": "jax.numpy.ravel",
    "dot": "jax.numpy.dot",
    "astype": "jax.numpy.astype",
    "clip": "jax.numpy.clip",
    "round": "jax.numpy.round",
    "conj": "jax.numpy.conj",
    "cumsum": "jax.numpy.cumsum",
    # numpy's and JAX's array methods alike (`x.copy()`, `x.diagonal()`, `x.argsort()`)
    "copy": "jax.numpy.copy",
    "diagonal": "jax.numpy.diagonal",
    "argsort": "jax.numpy.argsort",
    "cumprod": "jax.numpy.cumprod",
    "trace": "jax.numpy.trace",
    "take": "jax.numpy.take",
    "repeat": "jax.numpy.repeat",
}
# methods taking their shape / axes as *args (`x.reshape(3, 4)`, `x.transpose(1, 0)`)
VARARG_METHODS = {"reshape", "transpose"}
# `x.at[idx].<method>(...)`: the op `jax.numpy.ndarray.at.<method>` of (x, idx, ...) (stubs/jax.numpy.ndarray.at.pyi)
AT_METHODS = {"get", "apply", "set", "add", "subtract", "multiply", "mul", "divide", "div", "power", "min", "max"}
AT_OPS = "jax.numpy.ndarray.at."

OPERATORS: dict[str, str] = {
    "Add": "jax.numpy.add",
    "Subtract": "jax.numpy.subtract",
    "Multiply": "jax.numpy.multiply",
    "Divide": "jax.numpy.divide",
    "FloorDivide": "jax.numpy.floor_divide",
    "Modulo": "jax.numpy.mod",
    "Power": "jax.numpy.power",
    "MatrixMultiply": "jax.numpy.matmul",
    "BitAnd": "jax.numpy.bitwise_and",
    "BitOr": "jax.numpy.bitwise_or",
    "BitXor": "jax.numpy.bitwise_xor",
    "LeftShift": "jax.numpy.left_shift",
    "RightShift": "jax.numpy.right_shift",
    "LessThan": "jax.numpy.less",
    "LessThanEqual": "jax.numpy.less_equal",
    "GreaterThan": "jax.numpy.greater",
    "GreaterThanEqual": "jax.numpy.greater_equal",
    "Equal": "jax.numpy.equal",
    "NotEqual": "jax.numpy.not_equal",
    "Minus": "jax.numpy.negative",
    "Plus": "jax.numpy.positive",
    "BitInvert": "jax.numpy.invert",
}


def canonical_name(name: str) -> str:
    """The public name an op is registered under."""
    if name in _OP_ALIASES:
        return _OP_ALIASES[name]
    mod, _, attr = name.rpartition(".")
    if mod in _MODULE_ALIASES:
        name = f"{_MODULE_ALIASES[mod]}.{attr}"
    return _OP_ALIASES.get(name, name)


def short_name(op: str) -> str:
    """An op as users write it: `jnp.sum`, `lax.psum`, `nn.Dense`, `nnx.Linear`, `eqx.nn.MLP`."""
    for long, short in (
        ("jax.numpy.", "jnp."),
        ("jax.lax.", "lax."),
        ("flax.linen.", "nn."),
        ("flax.nnx.", "nnx."),
        ("equinox.", "eqx."),
        ("haiku.", "hk."),
    ):
        if op.startswith(long):
            return short + op[len(long) :]
    return op
