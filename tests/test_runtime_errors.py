"""Every way namedcheck.xmap rejects a call: the error class, the code and what the message names.

Each program is also run through the static checker, which must report the same code (the runtime
and the checker share the engine's boundary rules)."""

from __future__ import annotations

import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from namedcheck import AxisMappingError, NamedAxisError, XmapError, xmap
from namedcheck.analyzer.check import analyse_for_test

PRELUDE = """\
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh
from namedcheck import xmap
x = jnp.ones((4, 3))
y = jnp.ones((5, 3))
"""

# (id, program, error class, code, words the message must contain, static checker agrees)
CASES = [
    (
        "in_axes-structure",
        "xmap(lambda a, b: a, in_axes=(['i', ...], ['i', ...], ['i', ...]), out_axes=['i', ...])(x, x)",
        AxisMappingError,
        "NC401",
        ["in_axes"],
        True,
    ),
    (
        "in_axes-rank",
        "xmap(lambda a: a, in_axes=('i',), out_axes=['i', ...])(x)",
        XmapError,
        "NC402",
        ["('i',)", "rank 1", "rank 2"],
        True,
    ),
    (
        "in_axes-bare-name",
        "xmap(lambda a: a, in_axes='i', out_axes=['i', ...])(x)",
        AxisMappingError,
        "NC401",
        ["axis mapping", "'i'"],
        True,
    ),
    (
        "out_axes-structure",
        "xmap(lambda a: (a, a), in_axes=['i', ...], out_axes=(['i', ...],) * 3)(x)",
        AxisMappingError,
        "NC401",
        ["out_axes"],
        False,
    ),
    (
        "position-out-of-range",
        "xmap(lambda a: a, in_axes={2: 'i'}, out_axes=['i', ...])(x)",
        XmapError,
        "NC402",
        ["positional axis 2", "argument 0"],
        True,
    ),
    (
        "repeated-name",
        "xmap(lambda a: a, in_axes={0: 'i', 1: 'i'}, out_axes=['i', ...])(x)",
        XmapError,
        "NC402",
        ["'i'", "twice"],
        True,
    ),
    (
        "negative-position",
        "xmap(lambda a: a, in_axes={0: 'i', -2: 'j'}, out_axes=['i', 'j', ...])(x)",
        XmapError,
        "NC402",
        ["negative position -2"],
        True,
    ),
    (
        "sizes-across-arguments",
        "xmap(lambda a, b: a + b, in_axes=(['i', ...], ['i', ...]), out_axes=['i', ...])(x, y)",
        XmapError,
        "NC403",
        ["'i'", "5", "4", "argument 1", "argument 0"],
        True,
    ),
    (
        "sizes-vs-axis_sizes",
        "xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', ...], axis_sizes={'i': 7})(x)",
        XmapError,
        "NC403",
        ["'i'", "7", "4"],
        True,
    ),
    (
        "missing-out-axis",
        "xmap(lambda a: a * 2, in_axes=['i', ...], out_axes=[...])(x)",
        NamedAxisError,
        "NC404",
        ["'i'", "out_axes"],
        True,
    ),
    (
        "undefined-out-axis",
        "xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', 'k', ...])(x)",
        XmapError,
        "NC405",
        ["'k'"],
        True,
    ),
    (
        "resource-for-undefined-axis",
        "with jax.set_mesh(Mesh(np.array(jax.devices()[:2]), ('r',))):\n"
        "    xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', ...], axis_resources={'k': 'r'})(x)",
        XmapError,
        "NC406",
        ["'k'"],
        True,
    ),
    (
        "nested-rebind",
        "xmap(lambda a: xmap(lambda b: b, in_axes=['i', ...], out_axes=['i', ...])(a), in_axes=['i', ...],"
        " out_axes=['i', ...])(jnp.ones((2, 3, 4)))",
        XmapError,
        "NC407",
        ["'i'"],
        True,
    ),
    (
        "no-mesh",
        "xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', ...], axis_resources={'i': 'r'})(x)",
        XmapError,
        "NC501",
        ["'r'", "no mesh"],
        False,
    ),
    (
        "resource-not-in-mesh",
        "with jax.set_mesh(Mesh(np.array(jax.devices()[:2]), ('r',))):\n"
        "    xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', ...], axis_resources={'i': 's'})(x)",
        XmapError,
        "NC501",
        ["'s'"],
        True,
    ),
    (
        "co-occurrence",
        "with jax.set_mesh(Mesh(np.array(jax.devices()[:2]), ('r',))):\n"
        "    xmap(lambda a, b: a + b, in_axes=(['i', ...], ['j', ...]), out_axes=['i', 'j', ...],\n"
        "         axis_resources={'i': 'r', 'j': 'r'})(x, jnp.ones((2, 3)))",
        NamedAxisError,
        "NC502",
        ["'i'", "'j'", "'r'"],
        True,
    ),
    (
        "indivisible",
        "with jax.set_mesh(Mesh(np.array(jax.devices()[:8]), ('r',))):\n"
        "    xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', ...], axis_resources={'i': 'r'})(y)",
        XmapError,
        "NC503",
        ["'i'", "5", "8"],
        True,
    ),
    (
        "repeated-resource",
        "with jax.set_mesh(Mesh(np.array(jax.devices()[:2]), ('r',))):\n"
        "    xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', ...], axis_resources={'i': ('r', 'r')})(x)",
        XmapError,
        "NC504",
        ["'r'"],
        True,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_runtime_rejects(case):
    _, program, cls, code, words, _ = case
    with pytest.raises(cls) as info:
        exec(PRELUDE + program, {})
    assert info.value.code == code
    for w in words:
        assert w in str(info.value), (w, str(info.value))


@pytest.mark.parametrize("case", [c for c in CASES if c[5]], ids=[c[0] for c in CASES if c[5]])
def test_static_checker_agrees(case):
    _, program, _, code, _, _ = case
    diagnostics, _ = analyse_for_test(PRELUDE + program)
    assert code in {d.code for d in diagnostics}, [(d.code, d.message) for d in diagnostics]


def test_named_pass_points_at_the_users_line():
    def body(a, b):
        s = a * 2
        t = s + b  # the first value carrying both 'i' and 'j'
        return jnp.sum(t)

    line = body.__code__.co_firstlineno + 2
    with jax.set_mesh(jax.sharding.Mesh(np.array(jax.devices()[:2]), ("r",))):
        with pytest.raises(NamedAxisError) as info:
            xmap(body, in_axes=(["i", ...], ["j", ...]), out_axes=["i", "j", ...], axis_resources={"i": "r", "j": "r"})(
                jnp.ones((4, 3)), jnp.ones((2, 3))
            )
    assert info.value.lineno == line
    assert info.value.filename == __file__


def test_missing_out_axis_points_at_the_producing_line():
    def body(a):
        return jnp.sin(a)

    with pytest.raises(NamedAxisError) as info:
        xmap(body, in_axes=["i", ...], out_axes=[...])(jnp.ones((4, 3)))
    assert info.value.lineno == body.__code__.co_firstlineno + 1


def test_valid_programs_raise_nothing_through_control_flow():
    """The pass follows scan carries, cond branches and jit calls without false alarms."""

    def body(a):
        def step(c, v):
            return c + jax.lax.psum(v, "i"), v

        c, _ = jax.lax.scan(step, 0.0, a)
        d = jax.lax.cond(c > 0, lambda u: u, lambda u: -u, c)
        return jax.jit(lambda u: u * 2)(d)

    with jax.set_mesh(jax.sharding.Mesh(np.array(jax.devices()[:2]), ("r",))):
        out = xmap(body, in_axes=["i", ...], out_axes=[...], axis_resources={"i": "r"})(jnp.ones((4, 3)))
    assert float(out) == 24.0


def test_keyword_arguments_and_non_callables_are_rejected():
    with pytest.raises(TypeError, match="keyword"):
        xmap(lambda a: a, in_axes=["i", ...], out_axes=["i", ...])(a=jnp.ones(2))
    with pytest.raises(TypeError, match="callable"):
        xmap(3, in_axes=["i", ...], out_axes=["i", ...])  # type: ignore[arg-type]


def test_error_messages_are_single_clear_lines():
    with pytest.raises(XmapError) as info:
        exec(textwrap.dedent(PRELUDE + CASES[6][1]), {})
    assert "\n" not in str(info.value)


def test_named_einsum_skipping_an_axis_an_operand_has():
    import namedcheck.numpy as nnp

    with pytest.raises(XmapError) as info:
        xmap(lambda a, b: nnp.einsum("{k},->", a, b), in_axes=(["k", ...], ["k", ...]), out_axes=[...])(
            jnp.ones(3), jnp.ones(3)
        )
    assert info.value.code == "NC702" and "'k'" in str(info.value)
    with pytest.raises(XmapError) as info:
        nnp.einsum("{k}->", jnp.ones(3))
    assert info.value.code == "NC702" and "0 letters" in str(info.value)
