"""xmap result types against real JAX: with no resources, xmap means nested vmaps (one per named axis,
in_axes / out_axes at the mapped positions, axis_name for collectives). Each case pairs an xmap call,
typed by namedcheck, with the hand-written vmap program it means, shaped by jax.eval_shape."""

from __future__ import annotations

import textwrap

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402

CASES = [
    # (xmap expression over x, y; the equivalent vmap program; shapes of x, y)
    (
        "xmap(lambda a: a, in_axes={0: 'batch'}, out_axes={1: 'batch'})(x)",
        lambda x, y: jax.vmap(lambda a: a, in_axes=0, out_axes=1)(x),
        (20, 5),
        (1,),
    ),
    (
        "xmap(jnp.vdot, in_axes=({0: 'left'}, {1: 'right'}), out_axes=['left', 'right', ...])(x, y)",
        lambda x, y: jax.vmap(lambda a: jax.vmap(lambda b: jnp.vdot(a, b), in_axes=1)(y))(x),
        (2, 5),
        (5, 3),
    ),
    (
        "xmap(lambda a: lax.psum(a, 'i'), in_axes=['i', ...], out_axes=[...])(x)",
        lambda x, y: jax.vmap(lambda a: lax.psum(a, "i"), axis_name="i", out_axes=None)(x),
        (8, 4),
        (1,),
    ),
    (
        "xmap(lambda a, b: a * b, in_axes=(['i', ...], ['j', ...]), out_axes=['i', 'j', ...])(x, y)",
        lambda x, y: jax.vmap(lambda a: jax.vmap(lambda b: a * b)(y))(x),
        (3, 4),
        (5, 4),
    ),
    (
        "xmap(lambda a, b: a @ b, in_axes=({1: 'k'}, ['k', ...]), out_axes={2: 'k'})(x, y)",
        lambda x, y: jax.vmap(lambda a, b: a @ b, in_axes=(1, 0), out_axes=2)(x, y),
        (4, 6, 3),
        (6, 3, 2),
    ),
    (
        "xmap(lambda a: jnp.sum(a, axis=0) + lax.axis_index('i'), in_axes=['i', ...], out_axes=['i', ...])(x)",
        lambda x, y: jax.vmap(lambda a: jnp.sum(a, axis=0) + lax.axis_index("i"), axis_name="i")(x),
        (5, 3, 2),
        (1,),
    ),
    (
        "xmap(lambda a: lax.all_gather(a, 'i', axis=1), in_axes=['i', ...], out_axes=['i', ...])(x)",
        lambda x, y: jax.vmap(lambda a: lax.all_gather(a, "i", axis=1), axis_name="i")(x),
        (4, 3),
        (1,),
    ),
]


@pytest.mark.parametrize(("xmap_expr", "vmapped", "sx", "sy"), CASES, ids=[c[0][:60] for c in CASES])
def test_xmap_type_equals_vmap_program(xmap_expr, vmapped, sx, sy) -> None:
    program = textwrap.dedent(f"""\
        import jax.numpy as jnp
        from jax import lax
        from jax.experimental.maps import xmap
        from namedcheck import f32

        def f(x: f32[{sx!r}], y: f32[{sy!r}]) -> None:
            out = {xmap_expr}
        """)
    diags, revealed = analyse_for_test(program)
    assert diags == [], [d.message for d in diags]
    ours = revealed[7]
    real = jax.eval_shape(vmapped, jax.ShapeDtypeStruct(sx, jnp.float32), jax.ShapeDtypeStruct(sy, jnp.float32))
    assert ours.shape == real.shape, (xmap_expr, ours, real.shape)
