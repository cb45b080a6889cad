"""Differential tests against the installed JAX's shard_map.

1. Each collective's varying-set rule: the analyzer's inferred varying set (and local shape) of a
   collective's result equals `jax.typeof(result).mat.varying` (and its shape) inside a real shard_map.
   The day JAX changes a rule, this test says so.
2. Each program: JAX raises exactly when namedcheck reports an NC5xx / NC6xx diagnostic.
"""

from __future__ import annotations

import textwrap

import pytest

jax = pytest.importorskip("jax")

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402

PRELUDE = """\
from functools import partial
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))
a = jnp.arange(64.0).reshape(8, 8)
SEEN = []
"""


def _varying(t) -> frozenset:
    mat = getattr(t, "mat", None)
    return frozenset(mat.varying) if mat is not None else frozenset(getattr(t, "vma", ()))


COLLECTIVES = [
    ("lax.psum(xb, 'x')", "P('x')"),
    ("lax.psum(xb, 'y')", "P('x')"),
    ("lax.psum(xb, ('x', 'y'))", "P('x', 'y')"),
    ("lax.pmean(xb, 'x')", "P('x')"),
    ("lax.pmax(xb, ('x', 'y'))", "P('x')"),
    ("lax.pmin(xb, 'y')", "P('x', 'y')"),
    ("lax.pcast(xb, ('y',), to='varying')", "P('x')"),
    ("lax.pcast(xb, ('x', 'y'), to='varying')", "P()"),
    ("lax.all_gather(xb, 'x')", "P('x')"),
    ("lax.all_gather(xb, 'x', axis=1, tiled=True)", "P('x')"),
    ("lax.all_gather(xb, 'y')", "P('x')"),
    ("lax.ppermute(xb, 'y', [(0, 1), (1, 0)])", "P('x')"),
    ("lax.ppermute(xb, 'x', [(i, (i + 1) % 4) for i in range(4)])", "P()"),
    ("lax.axis_index('y')", "P('x')"),
    ("lax.axis_index('x') + xb", "P(None, 'y')"),
    ("lax.psum_scatter(xb, 'x', scatter_dimension=1, tiled=True)", "P('x')"),
    ("lax.psum_scatter(jnp.zeros((4, 3)), 'x')", "P('x')"),
    ("lax.all_to_all(xb, 'x', 1, 0, tiled=True)", "P('x')"),
    ("xb * 2 + lax.pcast(jnp.ones(8), ('y',), to='varying')", "P('x')"),
    ("jnp.sum(xb, axis=0)", "P('x', 'y')"),
    ("xb @ xb.T", "P('x')"),
]


@pytest.mark.parametrize(("expr", "spec"), COLLECTIVES, ids=[e for e, _ in COLLECTIVES])
def test_collective_varying_set_matches_jax(expr: str, spec: str) -> None:
    program = PRELUDE + textwrap.dedent(f"""
        @partial(jax.shard_map, mesh=mesh, in_specs={spec}, out_specs={spec})
        def f(xb):
            out = {expr}
            SEEN.append(jax.typeof(out))
            return xb

        f(a)
        """)
    diags, revealed = analyse_for_test(program)
    assert diags == [], [d.message for d in diags]
    line = program.splitlines().index(f"    out = {expr}") + 1
    ours = revealed[line]
    scope: dict = {}
    exec(compile(program, "<program>", "exec"), scope)
    real = scope["SEEN"][0]
    assert ours.varying == _varying(real), f"{expr}: namedcheck {sorted(ours.varying)}, jax {sorted(_varying(real))}"
    assert ours.shape == tuple(real.shape), f"{expr}: namedcheck {ours!r}, jax {real}"


PROGRAMS = {
    "data parallel step": """
        def loss(w, xb):
            return jnp.mean((xb @ w) ** 2)

        @partial(jax.shard_map, mesh=mesh, in_specs=(P(), P('x')), out_specs=P())
        def step(w, xb):
            g = lax.pmean(jax.grad(loss)(w, xb), 'x')
            return w - 0.1 * g

        step(jnp.zeros((8, 3)), a)
    """,
    "megatron mlp": """
        @partial(jax.shard_map, mesh=mesh, in_specs=(P('x', None), P(None, 'y'), P('y', None)), out_specs=P('x', None))
        def mlp(xb, w1, w2):
            return lax.psum(jax.nn.relu(xb @ w1) @ w2, 'y')

        mlp(a, jnp.zeros((8, 16)), jnp.zeros((16, 8)))
    """,
    "out spec omits a varying axis": """
        jax.shard_map(lambda xb: xb * 2, mesh=mesh, in_specs=P('x'), out_specs=P())(a)
    """,
    "out spec omits axis, check_vma off": """
        jax.shard_map(lambda xb: xb * 2, mesh=mesh, in_specs=P('x'), out_specs=P(), check_vma=False)(a)
    """,
    "pcast then out spec has it": """
        jax.shard_map(lambda xb: lax.pcast(xb, ('y',), to='varying'), mesh=mesh, in_specs=P('x'),
                      out_specs=P('x', 'y'))(a)
    """,
    "pcast then out spec omits it": """
        jax.shard_map(lambda xb: lax.pcast(xb, ('y',), to='varying'), mesh=mesh, in_specs=P('x'),
                      out_specs=P('x'))(a)
    """,
    "all_gather result is varying": """
        jax.shard_map(lambda xb: lax.all_gather(xb, 'x', tiled=True), mesh=mesh, in_specs=P('x'), out_specs=P())(a)
    """,
    "psum removes the axis": """
        jax.shard_map(lambda xb: lax.psum(xb, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())(a)
    """,
    "psum over a partly varying tuple": """
        jax.shard_map(lambda xb: lax.psum(xb, ('x', 'y')), mesh=mesh, in_specs=P('x'), out_specs=P())(a)
    """,
    "pmean over a partly varying tuple": """
        jax.shard_map(lambda xb: lax.pmean(xb, ('x', 'y')), mesh=mesh, in_specs=P('x'), out_specs=P())(a)
    """,
    "pmax over a partly varying tuple": """
        jax.shard_map(lambda xb: lax.pmax(xb, ('x', 'y')), mesh=mesh, in_specs=P('x'), out_specs=P())(a)
    """,
    "psum over an invariant axis": """
        jax.shard_map(lambda xb: lax.psum(xb, 'y'), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)
    """,
    "pcast of an already varying value": """
        jax.shard_map(lambda xb: lax.pcast(xb, ('x',), to='varying'), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)
    """,
    "scan carry becomes varying": """
        def body(xb):
            c, _ = lax.scan(lambda c, r: (c + r, None), jnp.zeros(xb.shape[1:]), xb)
            return c

        jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)
    """,
    "scan carry pcast first": """
        def body(xb):
            init = lax.pcast(jnp.zeros(xb.shape[1:]), ('x',), to='varying')
            c, _ = lax.scan(lambda c, r: (c + r, None), init, xb)
            return c

        jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)
    """,
    "fori carry becomes varying": """
        def body(xb):
            return lax.fori_loop(0, 3, lambda i, c: c + xb, jnp.zeros(xb.shape))

        jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)
    """,
    "while carry becomes varying": """
        def body(xb):
            return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + xb), (0, jnp.zeros(xb.shape)))[1]

        jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)
    """,
    "cond branches vary differently": """
        def body(xb, yb):
            return lax.cond(True, lambda: xb, lambda: yb)

        jax.shard_map(body, mesh=mesh, in_specs=(P('x'), P(None, 'y')), out_specs=P('x', 'y'))(a, a)
    """,
    "cond branches agree": """
        def body(xb):
            return lax.cond(True, lambda: xb, lambda: xb * 2)

        jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)
    """,
    "spec longer than rank": """
        jax.shard_map(lambda xb: xb, mesh=mesh, in_specs=P('x', 'y', None), out_specs=P('x'))(a)
    """,
    "indivisible dimension": """
        jax.shard_map(lambda xb: xb, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.arange(6.0))
    """,
    "axis not in the mesh": """
        jax.shard_map(lambda xb: xb, mesh=mesh, in_specs=P('z'), out_specs=P('z'))(a)
    """,
    "repeated axis in a spec": """
        jax.shard_map(lambda xb: xb, mesh=mesh, in_specs=P(('x', 'x')), out_specs=P('x'))(a)
    """,
    "two axes on one dimension": """
        jax.shard_map(lambda xb: xb, mesh=mesh, in_specs=P(('x', 'y')), out_specs=P(('x', 'y')))(a)
    """,
    "invariant input to all_gather": """
        jax.shard_map(lambda xb: lax.all_gather(xb, 'x'), mesh=mesh, in_specs=P(), out_specs=P(None, 'x'))(a)
    """,
    "collective over an axis the mesh lacks": """
        jax.shard_map(lambda xb: lax.psum(xb, 'model'), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)
    """,
    "partial manual axes": """
        jax.shard_map(lambda xb: lax.psum(xb, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P(),
                      axis_names={'x'})(a)
    """,
    "axis_index makes the output vary": """
        jax.shard_map(lambda xb: xb + lax.axis_index('y'), mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)
    """,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jax_raises_exactly_when_namedcheck_reports(name: str) -> None:
    program = PRELUDE + textwrap.dedent(PROGRAMS[name])
    diags, _ = analyse_for_test(program)
    reported = [d for d in diags if d.code[:3] in ("NC5", "NC6")]
    others = [d for d in diags if d not in reported]
    assert others == [], [(d.code, d.message) for d in others]
    try:
        exec(compile(program, "<program>", "exec"), {})
        raised = None
    except Exception as e:  # noqa: BLE001 - any JAX error counts
        raised = e
    assert (raised is not None) == bool(reported), (
        f"{name}: namedcheck reported {[(d.code, d.message) for d in reported]}; JAX raised {raised!r}"
    )
