"""`lax.conv_general_dilated` and `lax.conv`: the layouts their dimension numbers name (the default, `None`, is
NCHW images with OIHW kernels), the feature count the kernel expects (the input's feature dimension divided
by `feature_group_count`), and the output's spatial sizes from padding, strides and dilations. Channels-last
images given to the default layout are the usual mistake (JAX: "lhs feature dimension size divided by
feature_group_count must equal the rhs input feature dimension size")."""

from __future__ import annotations

from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.algebra import differ, fmt_shape, is_int
from namedcheck.engine.codes import NC203
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Unprovable, rule
from namedcheck.engine.ops.elementwise import dtype_from_value
from namedcheck.engine.ops.shaping import positional
from namedcheck.engine.values import ArrayType, Const, literal


def _layouts(dn: Any, rank: int) -> tuple[str, str, str]:
    """The lhs, rhs and output layouts as strings of one letter per dimension ('N', 'C' / 'I', 'O', spatial
    letters), in the order they name the operand's dimensions."""
    if dn is None:
        spatial = "".join(chr(ord("a") + i) for i in range(rank - 2))
        return "NC" + spatial, "OI" + spatial, "NC" + spatial
    if isinstance(dn, tuple) and len(dn) == 3 and all(isinstance(s, str) and len(s) == rank for s in dn):
        lhs, rhs, out = dn
        distinct = all(len(set(s)) == len(s) for s in dn)
        same = set(lhs) - {"N", "C"} == set(rhs) - {"O", "I"} == set(out) - {"N", "C"}
        if distinct and same and {"N", "C"} <= set(lhs) and {"O", "I"} <= set(rhs) and {"N", "C"} <= set(out):
            return lhs, rhs, out
    raise Unprovable  # a ConvDimensionNumbers object, or layouts JAX rejects itself


def _ints(v: Any, n: int, default: int) -> tuple[int, ...]:
    v = literal(v) if v is not None else None
    if v is None:
        return (default,) * n
    if not (isinstance(v, tuple) and len(v) == n and all(is_int(i) and i > 0 for i in v)):
        raise Unprovable
    return v


def _out_size(size: Any, k: Any, stride: int, dil: int, pad: Any) -> Any:
    if not (is_int(size) and is_int(k)):
        return None
    if pad == "SAME":
        return -(-size // stride)
    span = size + pad[0] + pad[1] - dil * (k - 1) - 1
    return max(0, span // stride + 1)


@rule("jax.lax.conv_general_dilated", "jax.lax.conv")
def conv_rule(call: Call) -> Any:
    x, w = positional(call, "lhs"), positional(call, "rhs")
    if x.named or w.named or len(x.shape) != len(w.shape) or len(x.shape) < 2:
        raise Unprovable  # JAX raises on unequal ranks too; left to it
    rank = len(x.shape)
    lhs_l, rhs_l, out_l = _layouts(literal(call.get("dimension_numbers", Const(None))), rank)
    groups = literal(call.get("feature_group_count", Const(1)))
    if not (is_int(groups) and groups > 0) or literal(call.get("batch_group_count", Const(1))) != 1:
        raise Unprovable
    c, i, o = x.shape[lhs_l.index("C")], w.shape[rhs_l.index("I")], w.shape[rhs_l.index("O")]
    if (is_int(c) and is_int(i) and c // groups != i) or (groups == 1 and differ(c, i)):
        default = call.args.get("dimension_numbers") in (None, Const(None))
        where = "dimension 1 (the default layout is NCHW)" if default else f"'C' of '{lhs_l}'"
        raise RuleError(
            NC203,
            f"{call.short}: {call.label('lhs')} of shape {fmt_shape(x.shape)} has {c} features at {where}, "
            f"divided by feature_group_count={groups}, but {call.label('rhs')} of shape {fmt_shape(w.shape)} "
            f"expects {i} input features",
            "with the default dimension numbers, images are NCHW and kernels OIHW; for channels-last images pass "
            "dimension_numbers=('NHWC', 'HWIO', 'NHWC')",
        )
    if is_int(o) and o % groups:
        raise RuleError(
            NC203,
            f"{call.short}: {call.label('rhs')}'s {o} output features are not a multiple of feature_group_count={groups}",
        )
    spatial = [ch for ch in rhs_l if ch not in "OI"]  # strides and padding follow the kernel's order
    n = len(spatial)
    strides = _ints(call.get("window_strides"), n, 1)
    lhs_dil = _ints(call.get("lhs_dilation", Const(None)), n, 1)
    rhs_dil = _ints(call.get("rhs_dilation", Const(None)), n, 1)
    padding = literal(call.get("padding"))
    pads: list[Any]
    if padding in ("SAME", "SAME_LOWER", "VALID") and lhs_dil != (1,) * n:
        raise Unprovable  # JAX rejects string padding for a transposed convolution
    if padding in ("SAME", "SAME_LOWER"):
        pads = ["SAME"] * n
    elif padding == "VALID":
        pads = [(0, 0)] * n
    elif (
        isinstance(padding, tuple)
        and len(padding) == n
        and all(isinstance(p, tuple) and len(p) == 2 and all(is_int(q) for q in p) for p in padding)
    ):
        pads = list(padding)
    else:
        raise Unprovable
    sizes = {
        ch: _out_size(x.shape[lhs_l.index(ch)], w.shape[rhs_l.index(ch)], strides[k], rhs_dil[k], pads[k])
        if lhs_dil == (1,) * n
        else None
        for k, ch in enumerate(spatial)
    }
    shape = tuple(x.shape[lhs_l.index("N")] if ch == "N" else o if ch == "C" else sizes[ch] for ch in out_l)
    pref = call.args.get("preferred_element_type")
    dt = (
        dtype_from_value(pref)
        if pref is not None and not (isinstance(pref, Const) and pref.value is None)
        else dtypes.materialize(x.dtype_code)
        if x.dtype_code
        else None
    )
    return ArrayType.make(dt, shape)
