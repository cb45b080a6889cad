"""Contractions: dot, matmul (@), tensordot, vdot, inner, outer.
Their sharding rules over Explicit mesh axes (`@sharding_rule`) follow the shape rules."""

from __future__ import annotations

from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.algebra import broadcast_shapes, differ, fmt_shape, is_int, norm_axis, product, union_named
from namedcheck.engine.codes import NC202, NC203, NC701, NC802, NC803, NC821
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Shd, Unprovable, rule, sharding_rule
from namedcheck.engine.ops.sharding_common import (
    axes_desc,
    check_distinct,
    fmt_spec,
    has_out_sharding,
    known_sharding,
    out_sharding,
)
from namedcheck.engine.placement import fmt_type, of, spec_json
from namedcheck.engine.values import ArrayType, Const, Seq, literal, one_or_many


def _operands(call: Call, a: str = "a", b: str = "b") -> tuple[ArrayType, ArrayType, str | None, dict[str, Any]]:
    x, y = call.array(a), call.array(b)
    if x.has_ellipsis or y.has_ellipsis:
        raise Unprovable
    named = union_named([x, y], [call.label(a), call.label(b)])
    dt = dtypes.promote(x.dtype_code, y.dtype_code)
    return x, y, dtypes.materialize(dt), named


def contract(
    call: Call,
    x: ArrayType,
    i: int,
    y: ArrayType,
    j: int,
    a: str = "a",
    b: str = "b",
    shown: tuple[ArrayType, ArrayType] | None = None,
) -> None:
    """Dimension i of x and j of y are contracted: their sizes must be equal (NC203).
    `shown`: the operands as the user wrote them (matmul promotes 1-d operands)."""
    dx, dy = x.shape[i], y.shape[j]
    if differ(dx, dy):
        sx, sy = shown or (x, y)
        ix = i % len(x.shape) - (len(x.shape) - len(sx.shape))
        iy = j % len(y.shape)
        raise RuleError(
            NC203,
            f"{call.short} contracts dimension {max(ix, 0)} of {call.label(a)} (size {dx}, shape "
            f"{fmt_shape(sx.shape)}) with dimension {min(iy, max(len(sy.shape) - 1, 0))} of {call.label(b)} "
            f"(size {dy}, shape {fmt_shape(sy.shape)}); the sizes must be equal",
            hint="transpose one operand, or check which axis should be contracted",
        )


@rule("jax.numpy.dot")
def dot_rule(call: Call) -> Any:
    x, y, dt, named = _operands(call)
    if not x.shape or not y.shape:
        shape = broadcast_shapes(x.shape, y.shape, call.label("a"), call.label("b"))
    elif len(y.shape) == 1:
        contract(call, x, -1, y, 0)
        shape = x.shape[:-1]
    else:
        contract(call, x, -1, y, -2)
        shape = x.shape[:-1] + y.shape[:-2] + y.shape[-1:]
    return ArrayType.make(dt, shape, named)


@rule("jax.numpy.matmul")
def matmul_rule(call: Call) -> Any:
    x, y, dt, named = _operands(call)
    if not x.shape or not y.shape:
        raise RuleError(
            NC203,
            f"{call.short} needs operands with at least one positional dimension; "
            f"found shapes {fmt_shape(x.shape)} and {fmt_shape(y.shape)}",
            hint="use * for scalar multiplication",
        )
    xs = ((1,) + x.shape) if len(x.shape) == 1 else x.shape
    ys = (y.shape + (1,)) if len(y.shape) == 1 else y.shape
    contract(call, x.with_shape(xs), -1, y.with_shape(ys), -2, shown=(x, y))
    batch = broadcast_shapes(xs[:-2], ys[:-2], call.label("a"), call.label("b"))
    shape = batch + (xs[-2:-1] if len(x.shape) > 1 else ()) + (ys[-1:] if len(y.shape) > 1 else ())
    return ArrayType.make(dt, shape, named)


@rule("jax.numpy.tensordot")
def tensordot_rule(call: Call) -> Any:
    x, y, dt, named = _operands(call)
    axes = literal(call.get("axes", Const(2)))
    if isinstance(axes, int):
        if axes > min(len(x.shape), len(y.shape)) or axes < 0:
            raise RuleError(
                NC701,
                f"{call.short} with axes={axes} needs operands of rank >= {axes}; found "
                f"{fmt_shape(x.shape)} and {fmt_shape(y.shape)}",
            )
        ax = list(range(len(x.shape) - axes, len(x.shape)))
        ay = list(range(axes))
    else:
        if not (isinstance(axes, tuple) and len(axes) == 2):
            raise Unprovable  # an int or a pair of axis sequences
        ax, ay = (list(one_or_many(a)) for a in axes)
        if len(ax) != len(ay):
            raise RuleError(NC203, f"{call.short} axes {axes!r} pair {len(ax)} axes with {len(ay)}")
        from namedcheck.engine.algebra import norm_axis

        ax = [norm_axis(a, len(x.shape), call.short) for a in ax]
        ay = [norm_axis(a, len(y.shape), call.short) for a in ay]
    for i, j in zip(ax, ay):
        contract(call, x, i, y, j)
    shape = tuple(d for i, d in enumerate(x.shape) if i not in ax) + tuple(
        d for j, d in enumerate(y.shape) if j not in ay
    )
    return ArrayType.make(dt, shape, named)


@rule("jax.numpy.vdot")
def vdot_rule(call: Call) -> Any:
    x, y, dt, named = _operands(call)
    nx, ny = product(x.shape), product(y.shape)
    if differ(nx, ny):
        raise RuleError(
            NC203,
            f"{call.short} flattens both operands; {call.label('a')} has {nx} elements and {call.label('b')} has {ny}",
        )
    return ArrayType.make(dt, (), named)


@rule("jax.numpy.inner")
def inner_rule(call: Call) -> Any:
    x, y, dt, named = _operands(call)
    if not x.shape or not y.shape:
        return ArrayType.make(dt, x.shape + y.shape, named)
    contract(call, x, -1, y, -1)
    return ArrayType.make(dt, x.shape[:-1] + y.shape[:-1], named)


@rule("jax.numpy.outer")
def outer_rule(call: Call) -> Any:
    x, y, dt, named = _operands(call)
    return ArrayType.make(dt, (product(x.shape), product(y.shape)), named)


def _dim_pair(v: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """`pos_contract` / `pos_batch`: a pair of dimension sequences (another shape is not modelled)."""
    if not (isinstance(v, tuple) and len(v) == 2):
        raise Unprovable
    return one_or_many(v[0]), one_or_many(v[1])


@rule("jax.lax.pdot")
def pdot_rule(call: Call) -> Any:
    """Contract named axes (and optionally positional ones, as in dot_general) of two operands."""
    x, y, dt, _ = _operands(call, "x", "y")
    names = literal(call.get("axis_name"))
    names = names if isinstance(names, tuple) else (names,)
    if any(not isinstance(n, str) for n in names):
        raise Unprovable
    xn, yn = x.named_shape, y.named_shape
    for n in names:
        if n in xn and n in yn and differ(xn[n], yn[n]):
            raise RuleError(
                NC202,
                f"{call.short} contracts named axis {n!r} of size {xn[n]} in "
                f"{call.label('x')} with size {yn[n]} in {call.label('y')}",
            )
    (cx, cy), (bx, by) = (_dim_pair(literal(call.get(p, Const(((), ()))))) for p in ("pos_contract", "pos_batch"))
    if not all(-len(x.shape) <= i < len(x.shape) for i in cx + bx) or not all(
        -len(y.shape) <= j < len(y.shape) for j in cy + by
    ):
        raise Unprovable  # dimensions out of range: JAX raises
    for i, j in zip(cx, cy):
        contract(call, x, i, y, j, "x", "y")
    free_x = [d for i, d in enumerate(x.shape) if i not in cx and i not in bx]
    free_y = [d for j, d in enumerate(y.shape) if j not in cy and j not in by]
    shape = tuple(x.shape[i] for i in bx) + tuple(free_x) + tuple(free_y)
    rest_x = ArrayType.make(None, (), {n: s for n, s in xn.items() if n not in names})
    rest_y = ArrayType.make(None, (), {n: s for n, s in yn.items() if n not in names})
    named = union_named([rest_x, rest_y], [call.label("x"), call.label("y")])
    return ArrayType.make(dt, shape, named)


# ---- sharding over Explicit mesh axes (JAX's sharding rules: the result's sharding, NC8xx) ----------------
# jnp's contractions lower to dot_general (jax/_src/numpy/tensor_contractions.py): `contract_sharding` is its
# rule, shared with lax.dot_general (lax_ops.py) and einsum (einsum.py).


def contract_sharding(
    call: Call,
    a: str,
    b: str,
    pairs: list[tuple[int, int]],
    out: list[tuple[str, ...]],
    ta: ArrayType,
    tb: ArrayType,
    rank: int,
) -> Shd | None:
    """dot_general: NC802 when a contracting dim is sharded on both sides (without out_sharding=), then
    the result's sharding `out` checked for repeated axes (NC804)."""
    if has_out_sharding(call):
        return out_sharding(call, rank)
    sa, sb = of(ta), of(tb)
    if sa is None or sb is None:
        return None
    for i, j in pairs:
        if sa[i] and sb[j]:
            flat = [x for e in out for x in e]  # the free dims' sharding, when it uses each axis once
            spec = fmt_spec(tuple(out)) if len(flat) == len(set(flat)) else "P(...)"
            raise RuleError(
                NC802,
                f"{call.short}: contracting dimension {i} of {call.label(a)} is split over "
                f"{axes_desc(sa[i])} and dimension {j} of {call.label(b)} over "
                f"{axes_desc(sb[j])}: it is ambiguous how the output should be sharded "
                f"({fmt_type(ta)} x {fmt_type(tb)})",
                hint=f"pass out_sharding={spec} to {call.short}, or reshard one operand so that its "
                f"contracting dimension is unsharded",
                data={"op": call.short, "out_sharding": spec_json(tuple(out)) if spec != "P(...)" else None},
            )
    return check_distinct(call, tuple(out), f"{fmt_type(ta)} and {fmt_type(tb)}")


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


def _free_dims(
    call: Call, a: str, b: str, ta: ArrayType, tb: ArrayType, pairs: list[tuple[int, int]], rank: int
) -> Shd | None:
    """A contraction without batch dims: the result has a's free dims, then b's."""
    sa, sb = of(ta), of(tb)
    if sa is None or sb is None:
        return out_sharding(call, rank) if has_out_sharding(call) else None
    ca, cb = {i for i, _ in pairs}, {j for _, j in pairs}
    out = [e for i, e in enumerate(sa) if i not in ca] + [e for j, e in enumerate(sb) if j not in cb]
    return contract_sharding(call, a, b, pairs, out, ta, tb, rank)


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
            raise RuleError(
                NC803,
                f"{call.short}: batch dimension {i} is split over "
                f"{axes_desc(ea) if ea else 'no mesh axis'} in {call.label('a')} and over "
                f"{axes_desc(eb) if eb else 'no mesh axis'} in {call.label('b')}: matmul "
                f"needs a batch dimension both operands have to be sharded identically "
                f"({fmt_type(ta)} @ {fmt_type(tb)})",
                hint=f"reshard one operand so that batch dimension {i} is split like the other's, "
                f"or use jnp.einsum / lax.dot_general (their batch dims take the first "
                f"operand's sharding)",
            )
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
    return contract_sharding(call, "a", "b", [(na - 1, nb - 2 if b_mat else 0)], final, ta, tb, len(result.shape))


@sharding_rule("jax.numpy.outer")
def outer_sharding(call: Call, result: ArrayType) -> Shd | None:
    """jnp.outer multiplies a column by a row of the flattened operands: the result may not use one mesh
    axis twice. An N-d operand is raveled first, which keeps a sharded leading dim's axes (known only when
    no other dim is sharded)."""
    (_, sa), (_, sb) = known_sharding(call, "a"), known_sharding(call, "b")
    flat = []
    for s in (sa, sb):
        if any(s[1:]):
            raise Unprovable  # the ravel of a later sharded dim is a reshape JAX may reject (NC805) or merge
        flat.append(s[0] if s else ())
    return check_distinct(call, (flat[0], flat[1]), f"{call.label('a')} and {call.label('b')}")


# ---- jnp.linalg's decompositions over Explicit mesh axes ------------------------------------------------
# JAX's lu / svd / cholesky rules take operands unsharded on their matrix (last two) dimensions
# (jax/_src/lax/linalg.py: "must be unsharded on non-batch dimensions"; cholesky symmetrises first, an add of
# the matrix and its transpose sharded over one axis twice); inv and cholesky reject a sharded batch
# dimension too (vmap / select of mismatched shardings). det and pinv keep the batch dimensions' axes.
_LINALG_ALL_UNSHARDED = ("jax.numpy.linalg.inv", "jax.numpy.linalg.cholesky")
_LINALG_MATRIX_UNSHARDED = ("jax.numpy.linalg.det", "jax.numpy.linalg.pinv")


@sharding_rule(*_LINALG_ALL_UNSHARDED, *_LINALG_MATRIX_UNSHARDED)
def linalg_sharding(call: Call, result: ArrayType) -> Shd | None:
    x, s = known_sharding(call, "a")
    if len(s) < 2:
        raise Unprovable
    matrix = call.op in _LINALG_MATRIX_UNSHARDED
    for i, e in enumerate(s):
        if e and (i >= len(s) - 2 or not matrix):
            which = "one of its matrix dimensions" if i >= len(s) - 2 else "a batch dimension"
            unsharded = s[:i] + ((),) + s[i + 1 :]
            raise RuleError(
                NC821,
                f"{call.short} of {call.label('a')} ({fmt_type(x)}): dimension {i}, {which}, is split over "
                f"{axes_desc(e)}; JAX's {call.short.rpartition('.')[2]} takes its operand unsharded there",
                hint=f"jax.sharding.reshard the operand first: reshard({call.label('a').strip('`')}, {fmt_spec(unsharded)})",
            )
    batch = s[:-2]
    if len(result.shape) == len(batch):  # det: the batch dimensions
        return batch
    return batch + ((), ()) if len(result.shape) == len(s) else None


# ---- jnp.linalg's solvers and decompositions (their batch rules as of JAX 0.5) --------------------------------
def _square(call: Call, name: str = "a") -> tuple[ArrayType, Any]:
    """A stack of square matrices (..., n, n): the operand and n (NC203 where the two sizes differ)."""
    a = call.array(name)
    if a.has_ellipsis or a.named or len(a.shape) < 2:
        raise Unprovable
    if differ(a.shape[-1], a.shape[-2]):
        raise RuleError(NC203, f"{call.short}: the last two dimensions of {fmt_shape(a.shape)} must be square")
    return a, a.shape[-1]


def _inexact(a: ArrayType) -> str | None:
    return a.dtype_code if dtypes.kind(a.dtype_code) == "f" else None


@rule("jax.numpy.linalg.solve")
def solve_rule(call: Call) -> Any:
    """`solve(a, b)`: a is (..., n, n); b is one vector (n,) only when it has one dimension, otherwise a stack
    of matrices (..., n, m) whose batch broadcasts with a's (since JAX 0.5 a (..., n) b is no batch of vectors)."""
    a, n = _square(call)
    b = call.array("b")
    if b.has_ellipsis or b.named or not b.shape:
        raise Unprovable
    dt = _inexact(a) if a.dtype_code == b.dtype_code else None
    if len(b.shape) == 1:
        if differ(b.shape[0], n):
            raise RuleError(
                NC203, f"{call.short}: b of shape {fmt_shape(b.shape)} against a of shape {fmt_shape(a.shape)}"
            )
        return ArrayType.make(dt, (*a.shape[:-1],))
    if differ(b.shape[-2], n):
        hint = (
            "since JAX 0.5, a b with two or more dimensions is a stack of (n, m) matrices; for a batch of vectors "
            "write solve(a, b[..., None])[..., 0]"
        )
        raise RuleError(
            NC203,
            f"{call.short}: b of shape {fmt_shape(b.shape)} is a stack of matrices whose dimension -2 must be "
            f"{n}, the size of a's {fmt_shape(a.shape)} matrices",
            hint,
        )
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2], "a's batch", "b's batch")
    return ArrayType.make(dt, (*batch, n, b.shape[-1]))


@rule("jax.numpy.linalg.eigh")
def eigh_rule(call: Call) -> Any:
    """(eigenvalues (..., n), eigenvectors (..., n, n))."""
    a, n = _square(call)
    return Seq((ArrayType.make(_inexact(a), (*a.shape[:-1],)), ArrayType.make(_inexact(a), a.shape)))


@rule("jax.numpy.linalg.eigvalsh")
def eigvalsh_rule(call: Call) -> Any:
    a, n = _square(call)
    return ArrayType.make(_inexact(a), (*a.shape[:-1],))


@rule("jax.numpy.linalg.slogdet")
def slogdet_rule(call: Call) -> Any:
    """(sign, logabsdet), each of a's batch shape."""
    a, _ = _square(call)
    one = ArrayType.make(_inexact(a), a.shape[:-2])
    return Seq((one, one))


def _min(m: Any, n: Any) -> Any:
    if is_int(m) and is_int(n):
        return min(m, n)
    if not differ(m, n) and m == n:
        return m
    raise Unprovable


@rule("jax.numpy.linalg.svd")
def svd_rule(call: Call) -> Any:
    """(U, S, Vh) of a (..., m, n) with k = min(m, n): U (..., m, m | k), S (..., k), Vh (..., n | k, n); S alone
    with `compute_uv=False`."""
    a = call.array("a")
    full, uv = literal(call.get("full_matrices", Const(True))), literal(call.get("compute_uv", Const(True)))
    if a.has_ellipsis or a.named or len(a.shape) < 2 or not isinstance(full, bool) or not isinstance(uv, bool):
        raise Unprovable
    if call.get("hermitian", Const(False)) != Const(False):
        raise Unprovable
    *batch, m, n = a.shape
    k = _min(m, n)
    dt = _inexact(a)
    s = ArrayType.make(dt, (*batch, k))
    if not uv:
        return s
    u = ArrayType.make(dt, (*batch, m, m if full else k))
    vh = ArrayType.make(dt, (*batch, n if full else k, n))
    return Seq((u, s, vh))


@rule("jax.numpy.linalg.qr")
def qr_rule(call: Call) -> Any:
    """(Q, R) of a (..., m, n), k = min(m, n): reduced Q (..., m, k), R (..., k, n); complete Q (..., m, m),
    R (..., m, n); `mode="r"` R alone."""
    a = call.array("a")
    mode = literal(call.get("mode", Const("reduced")))
    if a.has_ellipsis or a.named or len(a.shape) < 2 or mode not in ("reduced", "complete", "r"):
        raise Unprovable
    *batch, m, n = a.shape
    dt = _inexact(a)
    if mode == "complete":
        return Seq((ArrayType.make(dt, (*batch, m, m)), ArrayType.make(dt, (*batch, m, n))))
    k = _min(m, n)
    r = ArrayType.make(dt, (*batch, k, n))
    return r if mode == "r" else Seq((ArrayType.make(dt, (*batch, m, k)), r))
