"""The engine's layer rules (engine/ops/layers.py) agree with the real libraries: for tiny sizes the
inferred output type equals `jax.eval_shape` of the layer, and each rejection is one the library makes
at run time."""

from __future__ import annotations

import pytest

from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops import run
from namedcheck.engine.stubs import op_table
from namedcheck.engine.values import ArrayType, const_of

jax = pytest.importorskip("jax")
jnp = jax.numpy

# (op, input shapes and dtypes, constructor arguments (positional, keyword), call keywords)
AGREE = [
    ("flax.linen.Dense", [((2, 3), "f32")], ((5,), {}), {}),
    ("flax.linen.Dense", [((2, 4, 3), "bf16")], ((), {"features": 6}), {}),
    ("flax.linen.Dense", [((2, 3), "bf16")], ((5,), {"dtype": "bf16"}), {}),
    ("flax.linen.DenseGeneral", [((2, 4, 3), "f32")], (((2, 5),), {}), {}),
    ("flax.linen.DenseGeneral", [((2, 4, 3), "f32")], ((7,), {"axis": (-2, -1)}), {}),
    ("flax.linen.Embed", [((2, 4), "i32")], ((10, 6), {}), {}),
    ("flax.linen.LayerNorm", [((2, 3), "f32")], ((), {}), {}),
    ("flax.linen.RMSNorm", [((2, 4, 3), "f32")], ((), {}), {}),
    ("flax.linen.Dropout", [((2, 3), "f32")], ((0.1,), {}), {"deterministic": True}),
    ("flax.linen.MultiHeadDotProductAttention", [((2, 5, 8), "f32")], ((), {"num_heads": 2}), {}),
    (
        "flax.linen.MultiHeadDotProductAttention",
        [((2, 5, 8), "f32"), ((2, 7, 8), "f32")],
        ((), {"num_heads": 2, "qkv_features": 12, "out_features": 6}),
        {},
    ),
    ("flax.linen.Conv", [((2, 9, 3), "f32")], ((4, (3,)), {}), {}),
    ("flax.linen.Conv", [((2, 9, 9, 3), "f32")], ((4, (3, 3)), {}), {}),
    ("flax.nnx.Linear", [((2, 3), "f32")], ((3, 5), {}), {}),
    ("flax.nnx.Embed", [((2, 4), "i32")], ((10, 6), {}), {}),
    ("flax.nnx.LayerNorm", [((2, 3), "f32")], ((3,), {}), {}),
    ("flax.nnx.RMSNorm", [((2, 4, 3), "f32")], ((3,), {}), {}),
    ("flax.nnx.Dropout", [((2, 3), "f32")], ((0.1,), {"deterministic": True}), {}),
    (
        "flax.nnx.MultiHeadAttention",
        [((2, 5, 8), "f32")],
        ((), {"num_heads": 2, "in_features": 8, "decode": False}),
        {},
    ),
    ("flax.nnx.Conv", [((2, 9, 3), "f32")], ((3, 4, (3,)), {}), {}),
    ("equinox.nn.Linear", [((3,), "f32")], ((3, 5), {}), {}),
    ("equinox.nn.Linear", [((3,), "f32")], ((3, "scalar"), {}), {}),
    ("equinox.nn.MLP", [((3,), "f32")], ((3, 2, 8, 2), {}), {}),
    ("equinox.nn.Embedding", [((), "i32")], ((10, 6), {}), {}),
    ("equinox.nn.LayerNorm", [((4,), "f32")], ((4,), {}), {}),
    ("equinox.nn.Conv2d", [((3, 10, 12), "f32")], ((3, 8, 3), {}), {}),
    ("equinox.nn.Conv2d", [((3, 10, 12), "f32")], ((3, 8, 3), {"padding": 1}), {}),
    ("equinox.nn.Conv2d", [((3, 10, 12), "f32")], ((3, 8, (3, 5)), {"stride": 2, "padding": "SAME"}), {}),
    (
        "equinox.nn.Conv2d",
        [((3, 10, 12), "f32")],
        ((3, 8, 3), {"stride": (2, 1), "padding": ((1, 2), (0, 0)), "dilation": 2}),
        {},
    ),
    ("equinox.nn.Conv2d", [((4, 9, 9), "f32")], ((4, 6, 3), {"padding": "VALID", "groups": 2}), {}),
    ("equinox.nn.Conv1d", [((4, 20), "f32")], ((4, 6, 5), {}), {}),
    ("equinox.nn.Conv1d", [((4, 20), "f32")], ((4, 6, 4), {"padding": (2,), "stride": 3}), {}),
    ("equinox.nn.Conv3d", [((2, 5, 6, 7), "f32")], ((2, 3, 3), {"padding": "SAME_LOWER"}), {}),
    ("equinox.nn.Conv", [((4, 20), "f32")], ((1, 4, 6, 5), {}), {}),
    ("equinox.nn.Conv", [((2, 8, 8), "f32")], ((2, 2, 4, (3, 2)), {"padding": ((0, 1), (1, 0))}), {}),
]

DISAGREE = [
    ("flax.nnx.Linear", [((2, 4), "f32")], ((3, 5), {}), {}),
    ("flax.nnx.LayerNorm", [((2, 4), "f32")], ((3,), {}), {}),
    (
        "flax.nnx.MultiHeadAttention",
        [((2, 5, 6), "f32")],
        ((), {"num_heads": 4, "in_features": 6, "decode": False}),
        {},
    ),
    ("flax.linen.MultiHeadDotProductAttention", [((2, 5, 6), "f32")], ((), {"num_heads": 4}), {}),
    ("equinox.nn.Linear", [((2, 3), "f32")], ((3, 5), {}), {}),
    ("equinox.nn.MLP", [((4,), "f32")], ((3, 2, 8, 2), {}), {}),
    ("equinox.nn.Embedding", [((3,), "i32")], ((10, 6), {}), {}),
    ("equinox.nn.LayerNorm", [((5,), "f32")], ((4,), {}), {}),
    ("equinox.nn.Conv1d", [((5, 20), "f32")], ((4, 6, 5), {}), {}),
    ("equinox.nn.Conv1d", [((2, 4, 20), "f32")], ((4, 6, 5), {}), {}),
    ("equinox.nn.Conv2d", [((3, 10, 12), "f32")], ((4, 8, 3), {}), {}),
    ("equinox.nn.Conv", [((4, 9, 9), "f32")], ((2, 3, 6, 3), {}), {}),
    ("equinox.nn.Conv2d", [((12, 12), "f32")], ((3, 8, 3), {}), {}),
]

_DTYPES = {"f32": "float32", "bf16": "bfloat16", "i32": "int32"}


def _engine(op: str, inputs: list, ctor: tuple, call_kw: dict):
    """The front end's binding: inputs positionally, then the constructor's arguments by name."""
    table = op_table()
    sig = table[op].signature
    names = [p.name for p in sig.params if p.kind not in ("posonly", "varkw")]
    pos_ctor, kw_ctor = ctor
    kw = {**dict(zip(names, pos_ctor)), **kw_ctor, **call_kw}
    kw = {k: const_of(v) for k, v in kw.items()}
    return run(table[op], [ArrayType.make(dt, shape) for shape, dt in inputs], kw)


def _library(op: str, inputs: list, ctor: tuple, call_kw: dict):
    pos_ctor, kw_ctor = ctor
    kw_ctor = {k: (jnp.dtype(_DTYPES[v]) if k in ("dtype", "param_dtype") else v) for k, v in kw_ctor.items()}
    args = [jax.ShapeDtypeStruct(shape, _DTYPES[dt]) for shape, dt in inputs]
    lib, _, cls = op.rpartition(".")
    if lib == "flax.linen":
        import flax.linen as nn

        layer = getattr(nn, cls)(*pos_ctor, **kw_ctor)

        def apply(*xs):
            variables = layer.init(jax.random.PRNGKey(0), *xs, **call_kw)
            return layer.apply(variables, *xs, **call_kw)

        return jax.eval_shape(apply, *args)
    if lib == "flax.nnx":
        from flax import nnx

        layer = getattr(nnx, cls)(*pos_ctor, **kw_ctor, rngs=nnx.Rngs(0))
        return jax.eval_shape(lambda *xs: layer(*xs, **call_kw), *args)
    import equinox as eqx

    layer = getattr(eqx.nn, cls)(*pos_ctor, **kw_ctor, **({} if cls == "LayerNorm" else {"key": jax.random.PRNGKey(0)}))
    return jax.eval_shape(lambda *xs: layer(*xs, **call_kw), *args)


def _needs(op: str) -> None:
    pytest.importorskip("equinox" if op.startswith("equinox") else "flax")


@pytest.mark.parametrize("op,inputs,ctor,call_kw", AGREE, ids=[f"{c[0]}-{i}" for i, c in enumerate(AGREE)])
def test_layer_rule_agrees_with_library(op, inputs, ctor, call_kw):
    _needs(op)
    got = _engine(op, inputs, ctor, call_kw)
    want = _library(op, inputs, ctor, call_kw)
    assert isinstance(got, ArrayType), got
    assert tuple(got.shape) == tuple(want.shape), (got, want)
    assert got.dtype == str(want.dtype), (got, want)


@pytest.mark.parametrize("op,inputs,ctor,call_kw", DISAGREE, ids=[f"{c[0]}-{i}" for i, c in enumerate(DISAGREE)])
def test_layer_rejection_fails_in_library(op, inputs, ctor, call_kw):
    _needs(op)
    with pytest.raises(RuleError) as e:
        _engine(op, inputs, ctor, call_kw)
    assert e.value.code == "NC203"
    with pytest.raises(Exception):  # noqa: B017 - the libraries raise assorted errors
        _library(op, inputs, ctor, call_kw)
