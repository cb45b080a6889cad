"""JAX's sharding rules for jnp's contractions beyond one matrix product (the sibling of sharding_rules.py,
which holds dot_general, einsum and the shared `_contract`): N-d jnp.dot, tensordot, inner, and jnp.matmul
with batch dims as jax/_src/numpy/tensor_contractions.py lowers it to dot_general."""

from __future__ import annotations

from namedcheck.engine.algebra import is_int, norm_axis
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Unprovable
from namedcheck.engine.ops.sharding_rules import (
    Shd,
    _axes_desc,
    _contract,
    has_out_sharding,
    out_sharding,
    sharding_rule,
)
from namedcheck.engine.sharding import fmt_type, of
from namedcheck.engine.values import ArrayType, Const, literal


@sharding_rule("jax.numpy.dot")
def dot_sharding(call: Call, result: ArrayType) -> Shd | None:
    """jnp.dot: dot_general contracting a's last dim with b's only (1-d) or second-to-last dim, no batch
    dims: a's free dims, then b's; a scalar operand multiplies (nothing contracts)."""
    ta, tb = call.array("a"), call.array("b")
    na, nb = len(ta.shape), len(tb.shape)
    if na == 0 or nb == 0:
        pairs: list[tuple[int, int]] = []
    else:
        pairs = [(na - 1, 0 if nb == 1 else nb - 2)]
    return _free_dims(call, "a", "b", ta, tb, pairs, len(result.shape))


def _free_dims(call: Call, a: str, b: str, ta: ArrayType, tb: ArrayType, pairs: list[tuple[int, int]],
               rank: int) -> Shd | None:
    """A contraction without batch dims: the result has a's free dims, then b's."""
    sa, sb = of(ta), of(tb)
    if sa is None or sb is None:
        return out_sharding(call, rank) if has_out_sharding(call) else None
    ca, cb = {i for i, _ in pairs}, {j for _, j in pairs}
    out = [e for i, e in enumerate(sa) if i not in ca] + [e for j, e in enumerate(sb) if j not in cb]
    return _contract(call, a, b, pairs, out, ta, tb, rank)


@sharding_rule("jax.numpy.tensordot")
def tensordot_sharding(call: Call, result: ArrayType) -> Shd | None:
    ta, tb = call.array("a"), call.array("b")
    na, nb = len(ta.shape), len(tb.shape)
    axes = literal(call.get("axes", Const(2)))
    if isinstance(axes, int):
        pairs = [(na - axes + k, k) for k in range(axes)]
    else:
        xa, xb = axes
        xa, xb = ((xa,), (xb,)) if isinstance(xa, int) else (tuple(xa), tuple(xb))
        pairs = [(norm_axis(i, na, call.short), norm_axis(j, nb, call.short)) for i, j in zip(xa, xb, strict=True)]
    return _free_dims(call, "a", "b", ta, tb, pairs, len(result.shape))


@sharding_rule("jax.numpy.inner")
def inner_sharding(call: Call, result: ArrayType) -> Shd | None:
    """jnp.inner contracts the last dims of both operands."""
    ta, tb = call.array("a"), call.array("b")
    if not ta.shape or not tb.shape:
        raise Unprovable
    return _free_dims(call, "a", "b", ta, tb, [(len(ta.shape) - 1, len(tb.shape) - 1)], len(result.shape))


@sharding_rule("jax.numpy.matmul")
def matmul_sharding(call: Call, result: ArrayType) -> Shd | None:
    """jnp.matmul / `@`, as jax/_src/numpy/tensor_contractions.py lowers it: a leading (batch) dim both
    operands have is a dot_general batch dim and must be sharded identically on both (a ValueError in JAX,
    even when only one side is sharded), unless one side is an unsharded size-1 dim that broadcasts; a
    batch dim only one operand has is that operand's free dim. The result: the batch dims, a's rows, b's
    columns; `out_sharding=` gives dot_general's result, whose dims are then put in that order."""
    ta, tb = call.array("a"), call.array("b")
    sa, sb = of(ta), of(tb)
    na, nb = len(ta.shape), len(tb.shape)
    if sa is None or sb is None:
        if has_out_sharding(call) and na <= 2 and nb <= 2:
            return out_sharding(call, len(result.shape))
        return None
    if na == 0 or nb == 0:
        raise Unprovable  # matmul rejects scalars (the shape rule's NC203)
    a_mat, b_mat = na > 1, nb > 1
    nbd = max(na - 2, nb - 2, 0)
    dims_a = (None,) * (nbd - max(na - 2, 0)) + (tuple(ta.shape[:-2]) if a_mat else ())
    dims_b = (None,) * (nbd - max(nb - 2, 0)) + (tuple(tb.shape[:-2]) if b_mat else ())
    spec_a = ((),) * (nbd - max(na - 2, 0)) + (sa[:-2] if a_mat else ())
    spec_b = ((),) * (nbd - max(nb - 2, 0)) + (sb[:-2] if b_mat else ())
    idx_batch: list[int] = []
    idx_a: list[int] = []
    idx_b: list[int] = []
    final: list[tuple[str, ...]] = []
    for i, (da, db, ea, eb) in enumerate(zip(dims_a, dims_b, spec_a, spec_b)):
        if (da is not None and not is_int(da)) or (db is not None and not is_int(db)):
            raise Unprovable  # whether a size is 1 decides the lowering
        if da is None:
            idx_b.append(i)
            final.append(eb)
        elif db is None:
            idx_a.append(i)
            final.append(ea)
        elif da == 1 and db == 1 and not ea and not eb:
            final.append(())
        elif da == 1 and not ea:
            idx_b.append(i)
            final.append(eb)
        elif db == 1 and not eb:
            idx_a.append(i)
            final.append(ea)
        elif da == db and ea == eb:
            idx_batch.append(i)
            final.append(ea)
        elif da == db:
            raise RuleError("NC803", f"{call.short}: batch dimension {i} is split over "
                                     f"{_axes_desc(ea) if ea else 'no mesh axis'} in {call.label('a')} and over "
                                     f"{_axes_desc(eb) if eb else 'no mesh axis'} in {call.label('b')}: matmul "
                                     f"needs a batch dimension both operands have to be sharded identically "
                                     f"({fmt_type(ta)} @ {fmt_type(tb)})",
                            hint=f"reshard one operand so that batch dimension {i} is split like the other's, "
                                 f"or use jnp.einsum / lax.dot_general (their batch dims take the first "
                                 f"operand's sharding)")
        else:
            raise Unprovable
    if a_mat:
        idx_a.append(nbd)
        final.append(sa[-2])
    if b_mat:
        idx_b.append(nbd + a_mat)
        final.append(sb[-1])
    if has_out_sharding(call):
        order = idx_batch + idx_a + idx_b
        given = out_sharding(call, len(order))
        if given is None:
            return None
        placed: list[tuple[str, ...]] = [()] * len(result.shape)
        for k, i in enumerate(order):
            placed[i] = given[k]
        return tuple(placed)
    return _contract(call, "a", "b", [(na - 1, nb - 2 if b_mat else 0)], final, ta, tb, len(result.shape))


__all__: list[str] = []
