"""Legacy programs on today's JAX: `python -m namedcheck.compat` and `namedcheck.compat.install()`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest

LEGACY = Path(__file__).parent / "legacy" / "xmap_tutorial_0430.py"


def test_legacy_script_runs_unmodified():
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
    r = subprocess.run(
        [sys.executable, "-m", "namedcheck.compat", str(LEGACY)], capture_output=True, text=True, env=env, timeout=300
    )
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    assert len(lines) == 6 and all(ln.endswith("ok") or ln.endswith(" ok") for ln in lines), r.stdout


def test_usage_without_a_script():
    r = subprocess.run([sys.executable, "-m", "namedcheck.compat"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "usage" in r.stderr


def test_install_restores_legacy_spellings():
    from namedcheck import compat

    compat.install()
    compat.install()  # idempotent
    import jax
    from jax import lax
    from jax.experimental.maps import SerialLoop, serial_loop, xmap  # noqa: F401

    x = jnp.arange(12.0).reshape(3, 4)
    # a bare multi-letter name is one axis name, not a sequence of letters
    assert float(xmap(lambda v: jnp.sum(v, "rows").sum(), in_axes=["rows", ...], out_axes=[...])(x)) == 66.0
    for name, want in [("max", x.max(0)), ("min", x.min(0)), ("mean", x.mean(0)), ("var", x.var(0)), ("std", x.std(0))]:
        got = xmap(lambda v, n=name: getattr(jnp, n)(v, axis="rows"), in_axes=["rows", ...], out_axes=[...])(x)
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=name)
    # positional calls still reach the original functions
    assert float(jnp.sum(x)) == 66.0 and jnp.einsum("ij->j", x).shape == (4,)
    y = xmap(lambda a, b: lax.xeinsum("{i},{i}->", a, b), in_axes=(["i", ...], ["i", ...]), out_axes=[...])(
        jnp.arange(3.0), jnp.arange(3.0)
    )
    assert float(y) == 5.0
    z = xmap(lambda a, b: lax.pdot(a, b, "i"), in_axes=(["i", ...], ["i", ...]), out_axes=[...])(
        jnp.arange(3.0), jnp.arange(3.0)
    )
    assert float(z) == 5.0
    assert callable(lax.pvary)
    oh = xmap(
        lambda lab: jax.nn.one_hot(lab, 4, axis="c"), in_axes=["b", ...], out_axes=["b", "c", ...], axis_sizes={"c": 4}
    )(jnp.array([0, 3]))
    np.testing.assert_array_equal(oh, jax.nn.one_hot(jnp.array([0, 3]), 4))


def test_serial_loop_resource_gives_the_same_values():
    from namedcheck import SerialLoop, XmapError, serial_loop, xmap

    x = jnp.arange(8.0)
    with serial_loop("l", 4):
        got = xmap(lambda v: v * 2, in_axes=["i", ...], out_axes=["i", ...], axis_resources={"i": "l"})(x)
    np.testing.assert_allclose(got, x * 2)
    got = xmap(lambda v: v + 1, in_axes=["i", ...], out_axes=["i", ...], axis_resources={"i": SerialLoop(2)})(x)
    np.testing.assert_allclose(got, x + 1)
    with pytest.raises(XmapError) as info:
        xmap(lambda v: v, in_axes=["i", ...], out_axes=["i", ...], axis_resources={"i": SerialLoop(3)})(x)
    assert info.value.code == "NC503"


def test_each_serial_loop_object_is_its_own_resource():
    from namedcheck import SerialLoop, xmap

    got = xmap(
        lambda a, b: a + b,
        in_axes=(["i", ...], ["j", ...]),
        out_axes=["i", "j", ...],
        axis_resources={"i": SerialLoop(2), "j": SerialLoop(2)},
    )(jnp.arange(4.0), jnp.arange(2.0))
    np.testing.assert_allclose(got, jnp.arange(4.0)[:, None] + jnp.arange(2.0)[None])


def _primitives(closed) -> set[str]:
    names = set()
    for eqn in closed.jaxpr.eqns:
        names.add(eqn.primitive.name)
        for v in eqn.params.values():
            if hasattr(v, "jaxpr") and hasattr(v, "consts"):
                names |= _primitives(v)
    return names


def test_serial_loop_evaluates_in_steps_unless_a_collective_needs_the_axis():
    import jax
    from jax import lax

    from namedcheck import SerialLoop, xmap

    x = jnp.arange(24.0).reshape(8, 3)
    stepped = xmap(
        lambda v: jnp.sin(v) * 2, in_axes=["i", ...], out_axes=["i", ...], axis_resources={"i": SerialLoop(4)}
    )
    assert "scan" in _primitives(jax.make_jaxpr(stepped)(x))
    np.testing.assert_allclose(stepped(x), jnp.sin(x) * 2, rtol=1e-6)
    reduced = xmap(
        lambda v: v - lax.pmean(v, "i"), in_axes=["i", ...], out_axes=["i", ...], axis_resources={"i": SerialLoop(4)}
    )
    assert "scan" not in _primitives(jax.make_jaxpr(reduced)(x))
    np.testing.assert_allclose(reduced(x), x - x.mean(0), rtol=1e-6)
    # results without the axis, and an axis only axis_sizes defines
    both = xmap(
        lambda v: (v.sum(), jnp.ones(2)),
        in_axes=[...],
        out_axes=([...], ["k", ...]),
        axis_sizes={"k": 4},
        axis_resources={"k": SerialLoop(2)},
    )
    total, ones = both(x)
    assert float(total) == float(x.sum()) and ones.shape == (4, 2)
