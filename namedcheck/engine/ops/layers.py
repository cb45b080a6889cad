"""Neural-network layers as op rules: a layer built with its sizes maps an input shape to an output shape.

Each op is named by the layer's public class (`flax.linen.Dense`); its stub signature is the input(s)
first, then the constructor's parameters, so the front end binds `nn.Dense(64)(x)` as
`flax.linen.Dense(x, 64)`. A layer that states its input size (nnx / equinox `Linear(in, out)`,
`LayerNorm(n)`) rejects an input whose feature dimension differs (NC203), as the library does at run
time. Which layers come first was measured on the installed flax, equinox, maxtext and easydel sources
(grep counts of constructions): linen Dense / DenseGeneral / Dropout / Conv, nnx Linear / LayerNorm /
Conv / RMSNorm / Embed, equinox Linear / MLP / Embedding / LayerNorm / Conv (Conv1d-3d). dm-haiku's layers (by calls
over the oracle corpus: Linear, MLP, Conv2D, Flatten, LayerNorm, MultiHeadAttention, RMSNorm, Embed, Conv1D) take
their input size from the input, so a mismatch shows at `apply` (analyzer/haiku.py), not here.
"""

from __future__ import annotations

from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.algebra import differ, fmt_shape, norm_axis
from namedcheck.engine.codes import NC203
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Unprovable, rule
from namedcheck.engine.ops.elementwise import dtype_from_value
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, NotLiteral, Seq, dim_of, literal

LAYERS: set[str] = set()  # op names that are layers: calling the name builds a layer, calling that applies it


def layer(*names: str) -> Any:
    """Register a layer rule (also an ordinary procedural rule of the op table)."""
    LAYERS.update(names)
    return rule(*names)


def _size(call: Call, name: str) -> Any:
    """A size argument as an int (Unprovable when not static)."""
    d = dim_of(call.get(name))
    if not isinstance(d, int) or isinstance(d, bool):
        raise Unprovable
    return d


def _dim(call: Call, name: str) -> Any:
    """A size argument that only becomes a dimension (or is compared with one): an int or a symbol."""
    d = dim_of(call.get(name))
    if isinstance(d, str):
        return d
    return _size(call, name)


def _optional_size(call: Call, name: str) -> Any:
    v = call.args.get(name)
    if v is None or (isinstance(v, Const) and v.value is None):
        return None
    return _size(call, name)


def _out_dtype(call: Call, x: ArrayType, param: str = "f32") -> str | None:
    """flax's promote_dtype: the `dtype=` argument, else the inputs' and parameters' common dtype."""
    given = call.args.get("dtype")
    if given is not None and not (isinstance(given, Const) and given.value is None):
        return dtype_from_value(given)
    pd = call.args.get("param_dtype")
    if pd is not None and not (isinstance(pd, Const) and pd.value is None):
        param = dtype_from_value(pd) or ""
        if not param:
            return None
    return dtypes.materialize(dtypes.promote(x.dtype_code, param))


def _features_in(call: Call, x: ArrayType, expected: int | str, what: str, label: str = "inputs") -> None:
    """The input's last dimension must be the layer's stated input size."""
    if not x.shape or x.shape[-1] is ...:
        return
    if differ(x.shape[-1], expected):
        raise RuleError(
            NC203,
            f"{_short(call.op)} built for {what}={expected} gets {call.label(label)} with "
            f"last dimension {x.shape[-1]} (shape {fmt_shape(x.shape)})",
            f"build the layer with {what}={x.shape[-1]}, or check which array is passed",
        )


def _short(op: str) -> str:
    return op.replace("flax.linen.", "nn.").replace("flax.nnx.", "nnx.").replace("equinox.nn.", "eqx.nn.")


def _array(call: Call, name: str) -> ArrayType:
    x = call.array(name)
    if x.has_ellipsis or x.named:
        raise Unprovable
    return x


def _batched(call: Call, name: str) -> ArrayType:
    """An input of a layer that maps the last dimension (or each element) whatever the leading ones are: its
    rank may be unknown (`(..., C)`), its last dimension must not be."""
    x = call.array(name)
    if x.named or (x.has_ellipsis and (x.shape[-1] is ... or x.shape.index(...) != 0)):
        raise Unprovable
    return x


# ---- flax linen ---------------------------------------------------------------------------------------
@layer("flax.linen.Dense")
def linen_dense(call: Call) -> Any:
    x = _batched(call, "inputs")
    if not x.shape:
        raise Unprovable
    return ArrayType.make(_out_dtype(call, x), (*x.shape[:-1], _dim(call, "features")))


@layer("flax.linen.DenseGeneral")
def linen_dense_general(call: Call) -> Any:
    x = _array(call, "inputs")
    feats = literal(call.get("features"))
    axis = literal(call.get("axis", Const(-1)))
    feats = feats if isinstance(feats, tuple) else (feats,)
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not all(isinstance(f, int) for f in feats) or not all(isinstance(a, int) for a in axes):
        raise Unprovable
    if call.args.get("batch_dims") not in (None, Const(())):
        raise Unprovable
    contracted = {norm_axis(a, len(x.shape), call.op) for a in axes}
    kept = tuple(d for i, d in enumerate(x.shape) if i not in contracted)
    return ArrayType.make(_out_dtype(call, x), (*kept, *feats))


@layer("flax.linen.Embed")
def linen_embed(call: Call) -> Any:
    x = _array(call, "inputs")
    _dim(call, "num_embeddings")
    return ArrayType.make(_out_dtype(call, ArrayType.make("f32", ())), (*x.shape, _dim(call, "features")))


@layer(
    "flax.linen.LayerNorm", "flax.linen.RMSNorm", "flax.linen.Dropout", "flax.linen.BatchNorm", "flax.linen.GroupNorm"
)
def linen_same_shape(call: Call) -> Any:
    x = _batched(call, "x" if "x" in call.args else "inputs")
    if call.op.endswith("Dropout"):
        return x
    if call.op.endswith("BatchNorm") and literal(call.get("axis", Const(-1))) != -1:
        raise Unprovable
    return ArrayType.make(_out_dtype(call, x), x.shape)


@layer("flax.linen.MultiHeadDotProductAttention")
def linen_attention(call: Call) -> Any:
    q = _array(call, "inputs_q")
    if not q.shape:
        raise Unprovable
    heads = _size(call, "num_heads")
    if heads <= 0:
        raise Unprovable  # flax fails on it
    qkv = _optional_size(call, "qkv_features")
    features = qkv if qkv is not None else q.shape[-1]
    if isinstance(features, int) and features % heads:
        raise RuleError(
            NC203,
            f"{_short(call.op)}: {features} qkv features do not split into {heads} heads",
            "make qkv_features (or the input's last dimension) a multiple of num_heads",
        )
    out = _optional_size(call, "out_features")
    return ArrayType.make(_out_dtype(call, q), (*q.shape[:-1], out if out is not None else q.shape[-1]))


@layer("flax.linen.Conv")
def linen_conv(call: Call) -> Any:
    x = _array(call, "inputs")
    return _conv(call, x, _size(call, "features"), None)


def _conv(call: Call, x: ArrayType, features: int, in_features: int | None) -> ArrayType:
    """Spatial sizes from the window, strides and padding (`window_out`); a size they do not decide is unknown."""
    kernel = literal(call.get("kernel_size"))
    kernel = kernel if isinstance(kernel, tuple) else (kernel,)
    if not all(isinstance(k, int) for k in kernel) or len(x.shape) < len(kernel) + 1:
        raise Unprovable
    if in_features is not None:
        _features_in(call, x, in_features, "in_features")
    n = len(kernel)
    padding = _pads(_literal_or_none(call.args.get("padding", Const("SAME"))), n)
    strides = _per_axis(call.args.get("strides", Const(1)), n)
    dilation = _per_axis(call.args.get("kernel_dilation", Const(1)), n)
    plain = _per_axis(call.args.get("input_dilation", Const(1)), n) == (1,) * n
    spatial = tuple(
        window_out(d, (k - 1) * r + 1, s, p) if plain and s and r else None
        for d, k, s, r, p in zip(x.shape[-n - 1 : -1], kernel, strides or (None,) * n, dilation or (None,) * n, padding)
    )
    return ArrayType.make(_out_dtype(call, x), (*x.shape[: -n - 1], *spatial, features))


def _literal_or_none(v: Any) -> Any:
    try:
        return literal(v) if v is not None else None
    except NotLiteral:
        return None


def _pads(padding: Any, n: int) -> tuple[Any, ...]:
    """Per spatial axis: 'SAME', 'VALID' or a (low, high) pair (an int: both sides); None where not known."""
    if isinstance(padding, str):
        return (padding,) * n
    if isinstance(padding, int) and not isinstance(padding, bool):
        return ((padding, padding),) * n
    if isinstance(padding, tuple) and len(padding) == n:
        pairs = tuple((p, p) if isinstance(p, int) else p for p in padding)
        if all(isinstance(p, tuple) and len(p) == 2 and all(isinstance(i, int) for i in p) for p in pairs):
            return pairs
    return (None,) * n


def _per_axis(v: Any, n: int) -> tuple[int, ...] | None:
    """An int or n ints (None: one for each axis) -> n positive ints; None when not known."""
    got = _literal_or_none(v)
    got = (1,) * n if got is None and isinstance(v, Const) else got
    got = (got,) * n if isinstance(got, int) and not isinstance(got, bool) else got
    if not isinstance(got, tuple) or len(got) != n or not all(isinstance(i, int) and i > 0 for i in got):
        return None
    return got


def window_out(d: Any, window: int, stride: int, padding: Any) -> Any:
    """The output size of a window slid over a dimension of size `d`: `SAME` ceil(d / stride), `VALID`
    (d - window) // stride + 1, a (low, high) pair (d + low + high - window) // stride + 1; None where not known (a
    symbol that does not stay)."""
    if padding == "SAME":
        if stride == 1:
            return d
        return -(-d // stride) if isinstance(d, int) else None
    if padding == "VALID":
        if window == 1 and stride == 1:
            return d
        if isinstance(d, int) and d >= window:
            return (d - window) // stride + 1
    if isinstance(padding, tuple) and isinstance(d, int) and d + sum(padding) >= window:
        return (d + sum(padding) - window) // stride + 1
    return None


@rule("flax.linen.max_pool", "flax.linen.avg_pool", "flax.linen.min_pool")
def linen_pool(call: Call) -> Any:
    """(*batch, *spatial, features) pooled over `window_shape`: the spatial sizes by `window_out`."""
    x = _array(call, "inputs")
    window = _literal_or_none(call.get("window_shape"))
    if not isinstance(window, tuple) or not all(isinstance(w, int) and w > 0 for w in window):
        raise Unprovable
    n = len(window)
    if len(x.shape) < n + 1:
        raise Unprovable
    strides = _per_axis(call.args.get("strides", Const(None)), n)
    padding = _literal_or_none(call.args.get("padding", Const("VALID")))
    if strides is None or padding not in ("SAME", "VALID"):
        raise Unprovable
    spatial = tuple(window_out(d, w, s, padding) for d, w, s in zip(x.shape[-n - 1 : -1], window, strides))
    if padding == "VALID" and any(isinstance(d, int) and d < w for d, w in zip(x.shape[-n - 1 : -1], window)):
        raise Unprovable  # a window larger than the input: not modelled
    return ArrayType.make(x.dtype_code, (*x.shape[: -n - 1], *spatial, x.shape[-1]))


@rule("flax.linen.make_attention_mask", "flax.nnx.make_attention_mask")
def attention_mask(call: Call) -> Any:
    """(..., q) and (..., k) -> (..., 1, q, k), with `extra_batch_dims` leading ones (float32 unless `dtype=`)."""
    q, k = _array(call, "query_input"), _array(call, "key_input")
    if not q.shape or not k.shape or len(q.shape) != len(k.shape):
        raise Unprovable
    if any(differ(a, b) or a is None for a, b in zip(q.shape[:-1], k.shape[:-1])):
        raise Unprovable  # batch dimensions that broadcast (or fail to): not modelled
    return _mask(call, (*q.shape[:-1], 1, q.shape[-1], k.shape[-1]))


@rule("flax.linen.make_causal_mask", "flax.nnx.make_causal_mask")
def causal_mask(call: Call) -> Any:
    """(..., n) -> (..., 1, n, n)."""
    x = _array(call, "x")
    if not x.shape:
        raise Unprovable
    return _mask(call, (*x.shape[:-1], 1, x.shape[-1], x.shape[-1]))


def _mask(call: Call, shape: tuple[Any, ...]) -> ArrayType:
    extra = literal(call.get("extra_batch_dims", Const(0)))
    if not isinstance(extra, int) or isinstance(extra, bool) or extra < 0:
        raise Unprovable
    given = call.args.get("dtype")
    dt = "f32" if given is None else dtype_from_value(given)
    if not dt:
        raise Unprovable
    return ArrayType.make(dt, (*(1,) * extra, *shape))


@layer("flax.linen.LSTMCell", "flax.nnx.LSTMCell")
def lstm_cell(call: Call) -> Any:
    """`cell((c, h), x)` -> ((c', h'), h'), each (*batch, hidden): linen's hidden size is h's last dimension; nnx's
    cell states its sizes (NC203 where `x` or `h` has another last dimension, as its Linear layers raise)."""
    carry = call.get("carry")
    x = _array(call, "inputs")
    if not (isinstance(carry, Seq) and len(carry.items) == 2) or not x.shape:
        raise Unprovable
    c, h = carry.items
    if not all(isinstance(p, ArrayType) and p.shape and not p.has_ellipsis and not p.named for p in (c, h)):
        raise Unprovable
    if call.op.startswith("flax.nnx."):
        _features_in(call, x, _dim(call, "in_features"), "in_features")
        hidden = _dim(call, "hidden_features")
        _features_in(call, h, hidden, "hidden_features", "carry")
    else:
        hidden = h.shape[-1]
    batch = x.shape[:-1]
    if (
        len(c.shape) != len(x.shape)
        or len(h.shape) != len(x.shape)
        or any(differ(a, b) or a is None for a, b in zip(c.shape, (*batch, hidden)))
        or any(differ(a, b) or a is None for a, b in zip(h.shape[:-1], batch))
    ):
        raise Unprovable  # broadcasting batches, a cell state of another size: not modelled
    dt = _out_dtype(call, x) if x.dtype_code == c.dtype_code == h.dtype_code else None
    out = ArrayType.make(dt, (*batch, hidden))
    return Seq((Seq((out, out)), out))


# ---- flax nnx -----------------------------------------------------------------------------------------
@layer("flax.nnx.Linear")
def nnx_linear(call: Call) -> Any:
    x = _batched(call, "inputs")
    if not x.shape:
        raise Unprovable
    _features_in(call, x, _dim(call, "in_features"), "in_features")
    return ArrayType.make(_out_dtype(call, x), (*x.shape[:-1], _dim(call, "out_features")))


@layer("flax.nnx.Embed")
def nnx_embed(call: Call) -> Any:
    x = _array(call, "inputs")
    _dim(call, "num_embeddings")
    return ArrayType.make(_out_dtype(call, ArrayType.make("f32", ())), (*x.shape, _dim(call, "features")))


@layer("flax.nnx.LayerNorm", "flax.nnx.RMSNorm", "flax.nnx.GroupNorm")
def nnx_norm(call: Call) -> Any:
    x = _batched(call, "x")
    _features_in(call, x, _dim(call, "num_features"), "num_features", "x")
    return ArrayType.make(_out_dtype(call, x), x.shape)


@layer("flax.nnx.BatchNorm")
def nnx_batch_norm(call: Call) -> Any:
    """Normalised over the batch, per feature of `axis` (the last one modelled): the input's shape."""
    x = _batched(call, "x")
    if literal(call.get("axis", Const(-1))) != -1:
        raise Unprovable
    _features_in(call, x, _dim(call, "num_features"), "num_features", "x")
    return ArrayType.make(_out_dtype(call, x), x.shape)


@layer("flax.nnx.Dropout")
def nnx_dropout(call: Call) -> Any:
    return _batched(call, "inputs")


@layer("flax.nnx.MultiHeadAttention")
def nnx_attention(call: Call) -> Any:
    q = _array(call, "inputs_q")
    if not q.shape:
        raise Unprovable
    heads = _size(call, "num_heads")
    d_in = _size(call, "in_features")
    _features_in(call, q, d_in, "in_features", "inputs_q")
    qkv = _optional_size(call, "qkv_features") or d_in
    if qkv % heads:
        raise RuleError(
            NC203,
            f"{_short(call.op)}: {qkv} qkv features do not split into {heads} heads",
            "make qkv_features (or in_features) a multiple of num_heads",
        )
    out = _optional_size(call, "out_features") or d_in
    return ArrayType.make(_out_dtype(call, q), (*q.shape[:-1], out))


@layer("flax.nnx.Conv")
def nnx_conv(call: Call) -> Any:
    x = _array(call, "inputs")
    return _conv(call, x, _size(call, "out_features"), _size(call, "in_features"))


# ---- equinox (unbatched: one example per call, vmap for a batch) --------------------------------------
def _eqx_size(call: Call, name: str) -> int | str:
    v = call.get(name)
    if isinstance(v, Const) and v.value == "scalar":
        return "scalar"
    return _dim(call, name)


def _eqx_features(call: Call, x: ArrayType, n: int | str, what: str, arg: str = "x") -> None:
    want: tuple[Any, ...] = () if n == "scalar" else (n,)
    if len(x.shape) != len(want) or any(differ(a, b) for a, b in zip(x.shape, want)):
        hint = (
            "equinox layers are unbatched: map them over the batch with jax.vmap"
            if len(x.shape) > len(want)
            else f"build the layer with {what}={x.shape[-1] if x.shape else 'scalar'!r}, or check which array is passed"
        )
        raise RuleError(
            NC203,
            f"{_short(call.op)} built for {what}={n!r} takes one example of shape "
            f"{fmt_shape(want)}; {call.label(arg)} has shape {fmt_shape(x.shape)}",
            hint,
        )


def _eqx_dense(call: Call, in_key: str, out_key: str) -> ArrayType:
    """An equinox layer mapping one example of size `in_key` (or 'scalar') to one of size `out_key`."""
    x = _array(call, "x")
    n_in, n_out = _eqx_size(call, in_key), _eqx_size(call, out_key)
    _eqx_features(call, x, n_in, in_key)
    return ArrayType.make(
        dtypes.materialize(dtypes.promote(x.dtype_code, "f32")), () if n_out == "scalar" else (n_out,)
    )


@layer("equinox.nn.Linear")
def eqx_linear(call: Call) -> Any:
    return _eqx_dense(call, "in_features", "out_features")


@layer("equinox.nn.MLP")
def eqx_mlp(call: Call) -> Any:
    return _eqx_dense(call, "in_size", "out_size")


@layer("equinox.nn.Embedding")
def eqx_embedding(call: Call) -> Any:
    x = _array(call, "x")
    if x.shape:
        raise RuleError(
            NC203,
            f"eqx.nn.Embedding looks up one index; {call.label('x')} has shape {fmt_shape(x.shape)}",
            "map the lookup over the indices with jax.vmap",
        )
    _dim(call, "num_embeddings")
    return ArrayType.make("f32", (_size(call, "embedding_size"),))


@layer("equinox.nn.LayerNorm", "equinox.nn.RMSNorm")
def eqx_layer_norm(call: Call) -> Any:
    x = _array(call, "x")
    shape = literal(call.get("shape"))
    shape = shape if isinstance(shape, tuple) else (shape,)
    if not all(isinstance(s, int) for s in shape):
        raise Unprovable
    if len(x.shape) != len(shape) or any(differ(a, b) for a, b in zip(x.shape, shape)):
        raise RuleError(
            NC203,
            f"{_short(call.op)} built for shape {fmt_shape(shape)} gets {call.label('x')} of shape {fmt_shape(x.shape)}",
            "equinox layers are unbatched: map them with jax.vmap",
        )
    return x


@layer("equinox.nn.Conv", "equinox.nn.Conv1d", "equinox.nn.Conv2d", "equinox.nn.Conv3d")
def eqx_conv(call: Call) -> Any:
    """One example of shape (in_channels, *spatial) -> (out_channels, *spatial'); equinox's padding (an int, one
    per dim, (low, high) pairs, 'VALID', 'SAME', 'SAME_LOWER'), stride and dilation give the spatial sizes."""
    x = _array(call, "x")
    n = int(call.op[-2]) if call.op[-1] == "d" else _size(call, "num_spatial_dims")
    c_in, c_out = _size(call, "in_channels"), _size(call, "out_channels")
    if len(x.shape) != n + 1:
        hint = (
            "equinox layers are unbatched: map them over the batch with jax.vmap"
            if len(x.shape) == n + 2
            else "pass one example of shape (channels, *spatial)"
        )
        raise RuleError(
            NC203,
            f"{_short(call.op)} with {n} spatial dimension{'s' if n != 1 else ''} takes one "
            f"example of rank {n + 1}; {call.label('x')} has shape {fmt_shape(x.shape)}",
            hint,
        )
    if differ(x.shape[0], c_in):
        raise RuleError(
            NC203,
            f"{_short(call.op)} built for in_channels={c_in} gets {call.label('x')} with "
            f"{x.shape[0]} channels (shape {fmt_shape(x.shape)}; channels come first)",
            f"build the layer with in_channels={x.shape[0]}, or check which array is passed",
        )
    kernel, stride, dilation = (
        _per_dim(call, k, n, d) for k, d in (("kernel_size", None), ("stride", 1), ("dilation", 1))
    )
    padding = literal(call.get("padding", Const(0)))
    spatial = tuple(_conv_out(x.shape[1 + i], kernel[i], stride[i], dilation[i], _pad(padding, i, n)) for i in range(n))
    return ArrayType.make(dtypes.materialize(dtypes.promote(x.dtype_code, "f32")), (c_out, *spatial))


@layer(
    "equinox.nn.ConvTranspose", "equinox.nn.ConvTranspose1d", "equinox.nn.ConvTranspose2d", "equinox.nn.ConvTranspose3d"
)
def eqx_conv_transpose(call: Call) -> Any:
    """One example (in_channels, *spatial) -> (out_channels, *spatial'): with int padding, each spatial size is
    (size - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1."""
    x = _array(call, "x")
    n = int(call.op[-2]) if call.op[-1] == "d" else _size(call, "num_spatial_dims")
    c_in, c_out = _size(call, "in_channels"), _size(call, "out_channels")
    if len(x.shape) != n + 1:
        raise RuleError(
            NC203,
            f"{_short(call.op)} with {n} spatial dimension{'s' if n != 1 else ''} takes one example of rank {n + 1}; "
            f"{call.label('x')} has shape {fmt_shape(x.shape)}",
            "equinox layers are unbatched: map them over the batch with jax.vmap"
            if len(x.shape) == n + 2
            else "pass one example of shape (channels, *spatial)",
        )
    if literal(call.get("groups", Const(1))) == 1 and differ(x.shape[0], c_in):
        raise RuleError(
            NC203,
            f"{_short(call.op)} built for in_channels={c_in} gets {call.label('x')} with {x.shape[0]} channels "
            f"(shape {fmt_shape(x.shape)}; channels come first)",
            f"build the layer with in_channels={x.shape[0]}, or check which array is passed",
        )
    kernel, stride, dilation = (
        _per_dim(call, k, n, d) for k, d in (("kernel_size", None), ("stride", 1), ("dilation", 1))
    )
    extra = literal(call.get("output_padding", Const(0)))
    extra = extra if isinstance(extra, tuple) else (extra,) * n
    if len(extra) != n or not all(isinstance(e, int) and not isinstance(e, bool) and e >= 0 for e in extra):
        raise Unprovable
    padding = literal(call.get("padding", Const(0)))
    spatial: list[int | None] = []
    for i in range(n):
        size = x.shape[1 + i]
        pad = padding if isinstance(padding, int) and not isinstance(padding, bool) else None
        if isinstance(padding, tuple) and len(padding) == n and isinstance(padding[i], int):
            pad = padding[i]
        if not isinstance(size, int) or pad is None:
            spatial.append(None)
            continue
        spatial.append((size - 1) * stride[i] - 2 * pad + dilation[i] * (kernel[i] - 1) + extra[i] + 1)
    return ArrayType.make(dtypes.materialize(dtypes.promote(x.dtype_code, "f32")), (c_out, *spatial))


@layer("equinox.nn.Dropout", "equinox.nn.PReLU")
def eqx_same_shape(call: Call) -> Any:
    """Elementwise layers: the input's shape (PReLU promotes to its float parameter's dtype)."""
    x = _array(call, "x")
    if call.op.endswith("Dropout"):
        return x
    return ArrayType.make(dtypes.materialize(dtypes.promote(x.dtype_code, "f32")), x.shape)


@layer("equinox.nn.GroupNorm")
def eqx_group_norm(call: Call) -> Any:
    """(channels, *spatial) -> the same shape; a channel count other than the one built for fails (equinox
    broadcasts its per-channel weight against the input)."""
    x = _array(call, "x")
    if not x.shape:
        raise Unprovable
    channels = _optional_size(call, "channels")
    affine = literal(call.get("channelwise_affine", Const(True)))
    if channels is not None and affine is True and differ(x.shape[0], channels):
        raise RuleError(
            NC203,
            f"eqx.nn.GroupNorm built for channels={channels} gets {call.label('x')} with {x.shape[0]} channels "
            f"(shape {fmt_shape(x.shape)}; channels come first)",
            "equinox layers are unbatched: map them with jax.vmap, or build the layer for these channels",
        )
    if call.args.get("state") is not None:
        raise Unprovable  # `norm(x, state)`: (output, state)
    return ArrayType.make(dtypes.materialize(dtypes.promote(x.dtype_code, "f32")), x.shape)


@layer("equinox.nn.MultiheadAttention")
def eqx_attention(call: Call) -> Any:
    """query (q_len, query_size), key (kv_len, key_size), value (kv_len, value_size) -> (q_len, output_size):
    each input's last dimension is the size the layer was built for, key and value one length."""
    q, k, v = _array(call, "query"), _array(call, "key_"), _array(call, "value")
    q_size = _size(call, "query_size")
    sizes = {"query": q_size}
    for name, default in (("key_size", q_size), ("value_size", q_size), ("output_size", q_size)):
        got = _optional_size(call, name)
        sizes[name] = default if got is None else got
    for arr, what, label in ((q, "query_size", "query"), (k, "key_size", "key_"), (v, "value_size", "value")):
        want = sizes["query" if what == "query_size" else what]
        if len(arr.shape) != 2:
            raise RuleError(
                NC203,
                f"eqx.nn.MultiheadAttention takes one sequence of shape (length, {what}); {call.label(label)} has "
                f"shape {fmt_shape(arr.shape)}",
                "equinox layers are unbatched: map them over the batch with jax.vmap",
            )
        if differ(arr.shape[1], want):
            raise RuleError(
                NC203,
                f"eqx.nn.MultiheadAttention built for {what}={want} gets {call.label(label)} with last dimension "
                f"{arr.shape[1]} (shape {fmt_shape(arr.shape)})",
                f"build the layer with {what}={arr.shape[1]}, or check which array is passed",
            )
    if differ(k.shape[0], v.shape[0]):
        raise RuleError(
            NC203,
            f"eqx.nn.MultiheadAttention: {call.label('key_')} has length {k.shape[0]} but {call.label('value')} "
            f"length {v.shape[0]} (equinox raises ValueError)",
            "pass keys and values of one sequence",
        )
    return ArrayType.make(dtypes.materialize(dtypes.promote(q.dtype_code, "f32")), (q.shape[0], sizes["output_size"]))


@layer("equinox.nn.BatchNorm")
def eqx_batch_norm(call: Call) -> Any:
    """`bn(x, state)` under a vmap naming `axis_name`: (the normalised x, the next state); the state's entries are
    not modelled."""
    x = _array(call, "x")
    if not x.shape:
        raise Unprovable
    return Seq((ArrayType.make(dtypes.materialize(dtypes.promote(x.dtype_code, "f32")), x.shape), UNKNOWN), "tuple")


@layer("equinox.nn.GRUCell", "equinox.nn.LSTMCell")
def eqx_rnn_cell(call: Call) -> Any:
    """`cell(input (input_size,), hidden)`: GRU's hidden (hidden_size,) in and out, LSTM's (h, c) pair."""
    x = _array(call, "input")
    n_in, n_hidden = _dim(call, "input_size"), _dim(call, "hidden_size")
    _eqx_features(call, x, n_in, "input_size", "input")
    dt = dtypes.materialize(dtypes.promote(x.dtype_code, "f32"))
    out = ArrayType.make(dt, (n_hidden,))
    return out if call.op.endswith("GRUCell") else Seq((out, out), "tuple")


def _per_dim(call: Call, name: str, n: int, default: int | None) -> tuple[Any, ...]:
    v = literal(call.get(name)) if name in call.args or default is None else default
    v = v if isinstance(v, tuple) else (v,) * n
    if len(v) != n or not all(isinstance(k, int) and not isinstance(k, bool) and k > 0 for k in v):
        raise Unprovable
    return v


def _pad(padding: Any, i: int, n: int) -> Any:
    """(low, high) padding of spatial dim i, or 'SAME' (None: not static)."""
    if padding in ("SAME", "SAME_LOWER"):
        return "SAME"
    if padding == "VALID":
        return (0, 0)
    if isinstance(padding, int) and not isinstance(padding, bool):
        return (padding, padding)
    if isinstance(padding, tuple) and len(padding) == n:
        p = padding[i]
        if isinstance(p, int) and not isinstance(p, bool):
            return (p, p)
        if isinstance(p, tuple) and len(p) == 2 and all(isinstance(q, int) for q in p):
            return p
    return None


def _conv_out(size: Any, kernel: int, stride: int, dilation: int, pad: Any) -> Any:
    if not isinstance(size, int) or pad is None:
        return None
    if pad == "SAME":
        return -(-size // stride)
    span = size + pad[0] + pad[1] - dilation * (kernel - 1) - 1
    return span // stride + 1 if span >= 0 else None


# ---- dm-haiku (batched: a layer maps the last dimension, whatever the leading ones are) --------------------
HAIKU_INPUTS = {  # each haiku layer's call parameters, in order (keywords given at the call become positions)
    "haiku.Linear": ("inputs",),
    "haiku.nets.MLP": ("inputs",),
    "haiku.Conv1D": ("inputs",),
    "haiku.Conv2D": ("inputs",),
    "haiku.Conv3D": ("inputs",),
    "haiku.LayerNorm": ("inputs",),
    "haiku.RMSNorm": ("inputs",),
    "haiku.Embed": ("ids",),
    "haiku.MultiHeadAttention": ("query", "key", "value"),
    "haiku.Flatten": ("inputs",),
    "haiku.Bias": ("inputs",),
    "haiku.BatchNorm": ("inputs", "is_training"),
}
_HK_CHANNELS_LAST = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


def _hk_dtype(x: ArrayType) -> str | None:
    """haiku's parameters take the input's dtype (`get_parameter(..., inputs.dtype)`): a float input's."""
    code = x.dtype_code
    return code if code is not None and code.startswith(("f", "bf")) else None


def _hk_sizes(call: Call, name: str) -> tuple[Any, ...]:
    """A sequence of sizes (`hk.nets.MLP([300, 100, 10])`): ints or symbols."""
    v = call.get(name)
    items = v.items if isinstance(v, Seq) else None
    if not items:
        raise Unprovable
    out = tuple(dim_of(i) for i in items)
    if not all(isinstance(d, str) or (isinstance(d, int) and not isinstance(d, bool) and d > 0) for d in out):
        raise Unprovable
    return out


@layer("haiku.Linear")
def hk_linear(call: Call) -> Any:
    x = _batched(call, "inputs")
    if not x.shape:
        raise RuleError(NC203, f"hk.Linear gets {call.label('inputs')}, a scalar", "pass an array of rank >= 1")
    return ArrayType.make(_hk_dtype(x), (*x.shape[:-1], _dim(call, "output_size")))


@layer("haiku.nets.MLP")
def hk_mlp(call: Call) -> Any:
    x = _batched(call, "inputs")
    sizes = _hk_sizes(call, "output_sizes")
    if not x.shape:
        raise Unprovable
    return ArrayType.make(_hk_dtype(x), (*x.shape[:-1], sizes[-1]))


@layer("haiku.LayerNorm", "haiku.RMSNorm")
def hk_norm(call: Call) -> Any:
    x = _batched(call, "inputs")
    return ArrayType.make(x.dtype_code, x.shape)


@layer("haiku.Embed")
def hk_embed(call: Call) -> Any:
    ids = _array(call, "ids")
    if call.args.get("embedding_matrix") not in (None, Const(None)):
        raise Unprovable
    if ids.dtype_code is not None and not ids.dtype_code.startswith(("i", "u")):
        raise RuleError(
            NC203,
            f"hk.Embed looks up integer ids; {call.label('ids')} has dtype {ids.dtype_code} (haiku raises ValueError)",
            "pass the token ids (an integer array), or cast them with .astype(jnp.int32)",
        )
    _dim(call, "vocab_size")
    return ArrayType.make("f32", (*ids.shape, _dim(call, "embed_dim")))


@layer("haiku.MultiHeadAttention")
def hk_attention(call: Call) -> Any:
    q = _batched(call, "query")
    if not q.shape:
        raise Unprovable
    heads, key_size = _dim(call, "num_heads"), _dim(call, "key_size")
    model = call.args.get("model_size")
    if model is None or model == Const(None):
        out = heads * key_size if isinstance(heads, int) and isinstance(key_size, int) else None
    else:
        out = _dim(call, "model_size")
    return ArrayType.make(_hk_dtype(q), (*q.shape[:-1], out))


@layer("haiku.Bias", "haiku.BatchNorm")
def hk_same_shape(call: Call) -> Any:
    """`hk.Bias()` (a bias over every dim but the batch one) and `hk.BatchNorm(...)`: the input's shape and dtype."""
    x = _array(call, "inputs")
    if call.op.endswith("Bias") and len(x.shape) < 2:
        raise Unprovable
    return ArrayType.make(_hk_dtype(x), x.shape)


@layer("haiku.Flatten")
def hk_flatten(call: Call) -> Any:
    """`hk.Flatten(preserve_dims=1)`: the first `preserve_dims` dims kept, the rest multiplied into one (an input of
    rank <= preserve_dims is returned as it is)."""
    x = _array(call, "inputs")
    keep = literal(call.get("preserve_dims", Const(1)))
    if not isinstance(keep, int) or isinstance(keep, bool) or keep < 1:
        raise Unprovable
    if len(x.shape) <= keep:
        return x
    n: Any = 1
    for d in x.shape[keep:]:
        n = n * d if isinstance(n, int) and isinstance(d, int) else None
    return ArrayType.make(x.dtype_code, (*x.shape[:keep], n))


@layer("haiku.Conv1D", "haiku.Conv2D", "haiku.Conv3D")
def hk_conv(call: Call) -> Any:
    """Channels last (the default `data_format`), batched (rank N+2) or one example (rank N+1): SAME padding
    gives ceil(size / stride) per spatial dim, VALID ceil((size - (kernel - 1) * rate) / stride)."""
    n = int(call.op[-2])
    x = _array(call, "inputs")
    if literal(call.get("data_format", Const(_HK_CHANNELS_LAST[n]))) != _HK_CHANNELS_LAST[n]:
        raise Unprovable
    if len(x.shape) not in (n + 1, n + 2):
        raise RuleError(
            NC203,
            f"{_short_hk(call.op)} takes inputs of rank {n + 1} (one example) or {n + 2} (a batch); "
            f"{call.label('inputs')} has shape {fmt_shape(x.shape)} (haiku raises ValueError)",
            "pass inputs of shape (batch, *spatial, channels)",
        )
    groups = literal(call.get("feature_group_count", Const(1)))
    c = x.shape[-1]
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        raise Unprovable
    if isinstance(c, int) and c % groups:
        raise RuleError(
            NC203,
            f"{_short_hk(call.op)}: {c} input channels do not split into {groups} feature groups",
            "make the input channels a multiple of feature_group_count",
        )
    kernel, stride, rate = (_per_dim(call, k, n, d) for k, d in (("kernel_shape", None), ("stride", 1), ("rate", 1)))
    padding = literal(call.get("padding", Const("SAME")))
    padding = padding.upper() if isinstance(padding, str) else padding
    spatial = tuple(
        _conv_out(x.shape[-n - 1 + i], kernel[i], stride[i], rate[i], "SAME" if padding == "SAME" else (0, 0))
        if padding in ("SAME", "VALID")
        else None
        for i in range(n)
    )
    return ArrayType.make(_hk_dtype(x), (*x.shape[: -n - 1], *spatial, _dim(call, "output_channels")))


def _short_hk(op: str) -> str:
    return op.replace("haiku.", "hk.")


def haiku_params(op: str, args: dict[str, Any], inputs: list[Any]) -> dict[str, dict[str, ArrayType]] | None:
    """The parameters haiku's layer `op`, built with `args`, makes for its inputs, as `init` makes them: by the
    module path under the layer's own (`""`, MLP's `"/~/linear_0"`, attention's `"/query"`), then by name; a dim
    the inputs do not give is unknown. None when not modelled (its parameters are then not known)."""
    x = inputs[0] if inputs else None
    if op == "haiku.Flatten":
        return {}
    if not isinstance(x, ArrayType) or x.named or not x.shape or x.shape[-1] is ...:
        return None
    dt = "f32" if op == "haiku.Embed" else _hk_dtype(x)
    c = x.shape[-1]
    out: dict[str, dict[str, tuple[Any, ...]]] = {}

    def linear(path: str, d_in: Any, d_out: Any, bias: bool | None) -> bool:
        if d_out is None or bias is None:
            return False
        out[path] = {"w": (d_in, d_out), **({"b": (d_out,)} if bias else {})}
        return True

    if op == "haiku.Linear":
        if not linear("", c, _dim_arg(args, "output_size"), _flag(args, "with_bias", True)):
            return None
    elif op == "haiku.nets.MLP":
        sizes = args.get("output_sizes")
        dims = [_dim_arg({"d": i}, "d") for i in sizes.items] if isinstance(sizes, Seq) and sizes.items else None
        if dims is None or None in dims:
            return None
        d_in = c
        for i, d in enumerate(dims):
            if not linear(f"/~/linear_{i}", d_in, d, _flag(args, "with_bias", True)):
                return None
            d_in = d
    elif op in ("haiku.LayerNorm", "haiku.RMSNorm"):
        if args.get("param_axis") not in (None, Const(None), Const(-1)):
            return None
        scale = _flag(args, "create_scale", op.endswith("RMSNorm"))
        offset = _flag(args, "create_offset", False) if op.endswith("LayerNorm") else False
        if scale is None or offset is None:
            return None
        out[""] = {**({"scale": (c,)} if scale else {}), **({"offset": (c,)} if offset else {})}
    elif op == "haiku.Bias":
        if any(args.get(k) not in (None, Const(None)) for k in ("output_size", "bias_dims")) or len(x.shape) < 2:
            return None
        out[""] = {"b": x.shape[1:]}
    elif op == "haiku.BatchNorm":
        scale, offset = _flag(args, "create_scale", False), _flag(args, "create_offset", False)
        if scale is None or offset is None or args.get("axis") not in (None, Const(None)):
            return None
        if args.get("data_format", Const("channels_last")) not in (Const("channels_last"), Const("NHWC")):
            return None
        shape = (*(1,) * (len(x.shape) - 1), c)
        out[""] = {**({"scale": shape} if scale else {}), **({"offset": shape} if offset else {})}
    elif op == "haiku.Embed":
        vocab, dim = _dim_arg(args, "vocab_size"), _dim_arg(args, "embed_dim")
        if vocab is None or dim is None:
            return None
        out[""] = {"embeddings": (vocab, dim)}
    elif op == "haiku.MultiHeadAttention":
        heads, key_size = _dim_arg(args, "num_heads"), _dim_arg(args, "key_size")
        bias = _flag(args, "with_bias", True)
        if not (isinstance(heads, int) and isinstance(key_size, int)) or len(inputs) < 3:
            return None
        value_size = _dim_arg(args, "value_size") if args.get("value_size") not in (None, Const(None)) else key_size
        model = _dim_arg(args, "model_size") if args.get("model_size") not in (None, Const(None)) else heads * key_size
        if not isinstance(value_size, int) or model is None:
            return None
        widths = []
        for v in inputs[:3]:
            if not isinstance(v, ArrayType) or v.named or not v.shape or v.shape[-1] is ...:
                return None
            widths.append(v.shape[-1])
        for name, d_in, d_out in (
            ("query", widths[0], heads * key_size),
            ("key", widths[1], heads * key_size),
            ("value", widths[2], heads * value_size),
            ("linear", heads * value_size, model),
        ):
            linear(f"/{name}", d_in, d_out, bias)
    elif op in ("haiku.Conv1D", "haiku.Conv2D", "haiku.Conv3D"):
        n = int(op[-2])
        try:
            kernel = literal(args.get("kernel_shape"))
            groups = literal(args.get("feature_group_count", Const(1)))
            fmt = literal(args.get("data_format", Const(_HK_CHANNELS_LAST[n])))
        except NotLiteral:
            return None
        kernel = (kernel,) * n if isinstance(kernel, int) else kernel
        if not (isinstance(kernel, tuple) and len(kernel) == n and all(isinstance(k, int) for k in kernel)):
            return None
        if (
            fmt != _HK_CHANNELS_LAST[n]
            or not isinstance(groups, int)
            or groups < 1
            or len(x.shape) not in (n + 1, n + 2)
        ):
            return None
        d_in = c // groups if isinstance(c, int) else (c if groups == 1 else None)
        out_ch, bias = _dim_arg(args, "output_channels"), _flag(args, "with_bias", True)
        if out_ch is None or bias is None:
            return None
        out[""] = {"w": (*kernel, d_in, out_ch), **({"b": (out_ch,)} if bias else {})}
    else:
        return None
    return {path: {k: ArrayType.make(dt, v) for k, v in ps.items()} for path, ps in out.items()}


# ---- parameters a linen layer makes for its input (`model.init` builds the tree, `model.apply` checks it) ----
def _flag(args: dict[str, Any], name: str, default: bool) -> bool | None:
    v = args.get(name)
    if v is None:
        return default
    b = literal(v) if isinstance(v, Const) else None
    return b if isinstance(b, bool) else None


def _dim_arg(args: dict[str, Any], name: str) -> Any:
    """A size argument as an int or a symbol; None when not known."""
    try:
        d = dim_of(args.get(name))
    except NotLiteral:
        return None
    return d if isinstance(d, str) or (isinstance(d, int) and not isinstance(d, bool) and d > 0) else None


def layer_params(op: str, args: dict[str, Any], x: Any) -> dict[str, ArrayType] | None:
    """The parameters (name -> array) flax's linen layer `op`, built with `args`, makes for the input `x`, as
    flax's `init` makes them (a dim the input does not give is unknown); None when not modelled. Dense: kernel
    (in, features) and bias; Conv: kernel (*kernel_size, in // groups, features) and bias; Embed: embedding;
    LayerNorm / RMSNorm / BatchNorm: scale (and bias) over the last dimension; Dropout: none."""
    if op == "flax.linen.Dropout":
        return {}
    if not isinstance(x, ArrayType) or x.named or not x.shape or x.shape[-1] is ...:
        return None
    pd = args.get("param_dtype")
    dt = "f32" if pd is None or (isinstance(pd, Const) and pd.value is None) else dtype_from_value(pd)
    if dt is None:
        return None
    c = x.shape[-1]
    out: dict[str, tuple[Any, ...]] = {}
    feats = _dim_arg(args, "features")
    if op == "flax.linen.Dense":
        use_bias = _flag(args, "use_bias", True)
        if feats is None or use_bias is None:
            return None
        out["kernel"] = (c, feats)
        if use_bias:
            out["bias"] = (feats,)
    elif op == "flax.linen.Conv":
        try:
            kernel = literal(args.get("kernel_size"))
        except NotLiteral:
            return None
        groups = args.get("feature_group_count", Const(1))
        groups = groups.value if isinstance(groups, Const) else None
        use_bias = _flag(args, "use_bias", True)
        if not (isinstance(kernel, tuple) and all(isinstance(k, int) for k in kernel)) or feats is None:
            return None
        if not (isinstance(groups, int) and groups > 0) or use_bias is None:
            return None
        out["kernel"] = (*kernel, c // groups if isinstance(c, int) else (c if groups == 1 else None), feats)
        if use_bias:
            out["bias"] = (feats,)
    elif op == "flax.linen.Embed":
        n = _dim_arg(args, "num_embeddings")
        if n is None or feats is None:
            return None
        out["embedding"] = (n, feats)
    elif op in ("flax.linen.LayerNorm", "flax.linen.RMSNorm", "flax.linen.BatchNorm", "flax.linen.GroupNorm"):
        if any(k in args for k in ("reduction_axes", "feature_axes")) or args.get("axis", Const(-1)) != Const(-1):
            return None
        use_scale, use_bias = _flag(args, "use_scale", True), _flag(args, "use_bias", not op.endswith("RMSNorm"))
        if use_scale is None or use_bias is None:
            return None
        if use_scale:
            out["scale"] = (c,)
        if use_bias and not op.endswith("RMSNorm"):
            out["bias"] = (c,)
    else:
        return None
    return {k: ArrayType.make(dt, v) for k, v in out.items()}


def layer_stats(op: str, args: dict[str, Any], x: Any) -> dict[str, ArrayType] | None:
    """The `batch_stats` a linen layer keeps for the input `x` (BatchNorm: mean and var over the last dimension,
    float32); None for a layer that keeps none or is not modelled."""
    if op != "flax.linen.BatchNorm" or args.get("axis", Const(-1)) != Const(-1):
        return None
    if not isinstance(x, ArrayType) or x.named or not x.shape or x.shape[-1] is ...:
        return None
    return {k: ArrayType.make("f32", (x.shape[-1],)) for k in ("mean", "var")}


def is_layer(name: str) -> bool:
    return name in LAYERS


__all__ = ["LAYERS", "is_layer", "Seq"]


# ---- jax.example_libraries.stax: (init_fun, apply_fun) pairs ------------------------------------------------
# A layer is a spec: ("dense", out_dim), ("same",) for the elementwise layers, ("flatten",), ("serial", specs).
STAX_SAME = {"Relu", "Tanh", "Sigmoid", "Softplus", "LogSoftmax", "Softmax", "Gelu", "Elu", "LeakyRelu", "Exp"}
STAX_SAME |= {"Identity", "Selu"}


def stax_init(spec: tuple[Any, ...], shape: tuple[Any, ...]) -> tuple[tuple[Any, ...], Any] | None:
    """`init_fun(rng, input_shape)` of a stax layer: its output shape (stax keeps a -1 batch size as given) and
    its parameters (Dense: (W (in, out), b (out,)); serial: a list, one entry per layer); None when not modelled."""
    kind = spec[0]
    if kind == "same":
        return shape, Seq((), "tuple")
    if kind == "dense":
        if not shape:
            return None
        d_in = shape[-1] if (isinstance(shape[-1], int) and shape[-1] > 0) or isinstance(shape[-1], str) else None
        w, b = ArrayType.make("f32", (d_in, spec[1])), ArrayType.make("f32", (spec[1],))
        return (*shape[:-1], spec[1]), Seq((w, b), "tuple")
    if kind == "flatten":
        rest = shape[1:]
        if not shape or not all(isinstance(d, int) and d > 0 for d in rest):
            return None
        n = 1
        for d in rest:
            n *= d
        return (shape[0], n), Seq((), "tuple")
    if kind == "serial":
        params = []
        for s in spec[1]:
            got = stax_init(s, shape)
            if got is None:
                return None
            shape, p = got
            params.append(p)
        return shape, Seq(tuple(params), "list")
    return None


def stax_apply(spec: tuple[Any, ...], params: Any, x: Any) -> tuple[Any, tuple[Any, ...] | None]:
    """`apply_fun(params, x)` of a stax layer: (output or None, and the first Dense whose kernel `W` was made for
    another input width: (W's shape, x's shape)). A parameter not known leaves the layer's output to its spec."""
    if not isinstance(x, ArrayType) or x.named or x.has_ellipsis:
        return None, None
    kind = spec[0]
    if kind == "same":
        return x, None
    if kind == "dense":
        if not x.shape:
            return None, None
        w = params.items[0] if isinstance(params, Seq) and len(params.items) == 2 else None
        out = spec[1]
        if isinstance(w, ArrayType) and len(w.shape) == 2 and not w.has_ellipsis:
            if differ(w.shape[0], x.shape[-1]):
                return None, (w.shape, x.shape)
            out = w.shape[1]
        return ArrayType.make(dtypes.materialize(dtypes.promote(x.dtype_code, "f32")), (*x.shape[:-1], out)), None
    if kind == "flatten":
        rest = x.shape[1:]
        if not x.shape:
            return None, None
        n: Any = 1
        for d in rest:
            n = n * d if isinstance(n, int) and isinstance(d, int) else None
        return ArrayType.make(x.dtype_code, (x.shape[0], n)), None
    if kind == "serial":
        # stax zips the layers with the parameters: a shorter list applies only the first layers
        pairs = list(zip(spec[1], params.items)) if isinstance(params, Seq) else [(s, None) for s in spec[1]]
        h: Any = x
        for s, p in pairs:
            h, bad = stax_apply(s, p, h)
            if bad is not None or h is None:
                return None, bad
        return h, None
    return None, None
