"""A jaxpr rewrite that gives vectorised named contractions their matrix-multiply form.

Under vmap, a contraction over a named axis (`pdot`, or `psum` of a product) becomes a `dot_general`
that keeps the named axis as a batch dimension, followed by a reduction (`psum` over a positional
axis) of that batch dimension: an intermediate as large as the product of all sizes, which XLA does
not turn back into a GEMM. When the reduced axes are batch dimensions of a `dot_general` whose
result has no other use, moving them into the contracting dimensions computes the same sums.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from jax._src import core


def fuse_contractions(closed: core.ClosedJaxpr) -> core.ClosedJaxpr:
    """`psum[axes ⊆ batch dims](dot_general(x, y))` -> one `dot_general` contracting those dims."""
    jaxpr = closed.jaxpr
    uses: Counter[Any] = Counter(v for e in jaxpr.eqns for v in e.invars if not isinstance(v, core.Literal))
    uses.update(v for v in jaxpr.outvars if not isinstance(v, core.Literal))
    producer: dict[Any, int] = {}
    eqns: list[Any] = list(jaxpr.eqns)
    dropped: set[int] = set()
    changed = False
    for i, eqn in enumerate(jaxpr.eqns):
        for v in eqn.outvars:
            producer[v] = i
        if eqn.primitive.name != "psum" or len(eqn.invars) != 1:
            continue
        axes = eqn.params.get("axes", ())
        src = eqn.invars[0]
        if not axes or not all(isinstance(a, int) for a in axes) or isinstance(src, core.Literal):
            continue
        j = producer.get(src)
        if j is None or uses[src] != 1 or j in dropped:
            continue
        perm: tuple[int, ...] | None = None
        t = jaxpr.eqns[j]
        if t.primitive.name == "transpose":  # psum(transpose(dot)): reduce the dot's own dims
            inner = t.invars[0]
            k = producer.get(inner)
            if isinstance(inner, core.Literal) or k is None or uses[inner] != 1 or k in dropped:
                continue
            perm = tuple(t.params["permutation"])
            axes = tuple(perm[a] for a in axes)
            dot_index = k
        else:
            dot_index = j
        dot = jaxpr.eqns[dot_index]
        if dot.primitive.name != "dot_general":
            continue
        (lc, rc), (lb, rb) = dot.params["dimension_numbers"]
        if not set(axes) <= set(range(len(lb))):
            continue
        gone = sorted(set(axes))
        keep = [k for k in range(len(lb)) if k not in gone]
        numbers = (
            (tuple(lc) + tuple(lb[k] for k in gone), tuple(rc) + tuple(rb[k] for k in gone)),
            (tuple(lb[k] for k in keep), tuple(rb[k] for k in keep)),
        )
        params = {**dot.params, "dimension_numbers": numbers}
        if perm is None:
            eqns[i] = core.new_jaxpr_eqn(dot.invars, eqn.outvars, dot.primitive, params, dot.effects, dot.source_info)
        else:
            # the contracted dot keeps the other dims in order; transpose them as the original did
            remaining = [d for d in range(len(dot.outvars[0].aval.shape)) if d not in gone]
            renumber = {d: n for n, d in enumerate(remaining)}
            new_perm = tuple(renumber[p] for p in perm if p not in gone)
            shape = tuple(dot.outvars[0].aval.shape[d] for d in remaining)
            mid = core.Var(dot.outvars[0].aval.update(shape=shape))
            eqns[dot_index] = core.new_jaxpr_eqn(dot.invars, [mid], dot.primitive, params, dot.effects, dot.source_info)
            eqns[i] = core.new_jaxpr_eqn(
                [mid], eqn.outvars, t.primitive, {**t.params, "permutation": new_perm}, t.effects, t.source_info
            )
        dropped.add(j)  # the psum's old operand: the dot, or the transpose now rebuilt at the psum
        changed = True
    if not changed:
        return closed
    new = jaxpr.replace(eqns=[e for k, e in enumerate(eqns) if k not in dropped])
    return closed.replace(jaxpr=new)
