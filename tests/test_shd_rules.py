"""Explicit-axis rules on mesh axis types and context meshes (NC824-NC826), and NC825's fix: the programs are
checked here and run under the installed JAX (8 CPU devices)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from namedcheck.analyzer.check import check_source
from namedcheck.cli.main import main
from tests.fresh_process import run_fresh

RUN = r"""
import ast, json, os, sys
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax
import numpy as np
path = sys.argv[1]
ns = {"__name__": "fixed"}
errors = []
for stmt in ast.parse(open(path).read()).body:
    try:
        exec(compile(ast.Module([stmt], []), path, "exec"), ns)
    except Exception as e:
        errors.append([stmt.lineno, type(e).__name__])
a = np.arange(128.0).reshape(8, 16)
values = {"constrained": bool(np.allclose(ns["constrained"], a)), "filtered": bool(np.allclose(ns["filtered"], a * 2))}
print(json.dumps({"errors": errors, "values": values, "types": {k: str(jax.typeof(ns[k])) for k in values}}))
"""

CONSTRAINED = """import equinox as eqx
import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

emesh = jax.make_mesh((4, 2), ('data', 'model'))
a = jnp.arange(128.0).reshape(8, 16)
constrained = lax.with_sharding_constraint(a, NamedSharding(emesh, P('data')))
filtered = eqx.filter_shard(a * 2, NamedSharding(emesh, P(None, 'model')))
"""


def test_nc825_fix_runs_under_jax_to_the_same_values(tmp_path: Path) -> None:
    """`check --fix` turns with_sharding_constraint (and equinox's filter_shard) naming Explicit axes into
    reshard, as JAX's message proposes: the program then runs, to the same values, with those shardings."""
    pytest.importorskip("jax")
    pytest.importorskip("equinox")
    f = tmp_path / "m.py"
    f.write_text(CONSTRAINED)
    assert [(d.line, d.code) for d in check_source(CONSTRAINED, str(f))] == [(10, "NC825"), (11, "NC825")]
    main(["check", str(f), "--no-cache", "--fix"])
    src = f.read_text()
    assert check_source(src, str(f)) == []
    assert "constrained = jax.sharding.reshard(a, NamedSharding(emesh, P('data')))" in src
    out = run_fresh(RUN, str(f), check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["errors"] == [] and all(got["values"].values()), got
    assert got["types"] == {"constrained": "float32[8@data,16]", "filtered": "float32[8,16@model]"}, got


def test_nc825_no_fix_for_a_bare_spec_under_a_legacy_mesh() -> None:
    """reshard takes a bare spec only under jax.set_mesh: under a legacy `with mesh:` NC825 offers no fix."""
    src = (
        "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.sharding import PartitionSpec as P\n"
        "mesh = jax.make_mesh((4, 2), ('data', 'model'))\n"
        "with mesh:\n    y = lax.with_sharding_constraint(jnp.ones((8, 16)), P('data'))\n"
    )
    [d] = check_source(src, "m.py")
    assert (d.code, d.line, d.data["reshard_ok"]) == ("NC825", 7, False)


SILENT = [
    # a function analysed on its own may run under its caller's jax.set_mesh
    "def put(x):\n    return jax.device_put(x, P('data'))\n",
    # set_mesh somewhere in the module: module-level code may run under it
    "jax.set_mesh(jax.make_mesh((8,), ('data',)))\ny = jax.device_put(jnp.ones(8), P('data'))\n",
    # a NamedSharding needs no context mesh
    "m = jax.make_mesh((8,), ('data',))\ny = jax.sharding.reshard(jnp.ones(8), jax.NamedSharding(m, P('data')))\n",
    # with_sharding_constraint with a bare spec takes a legacy mesh, and Auto axes only are fine
    "m = jax.sharding.Mesh(jax.devices(), ('data',))\nwith m:\n    y = lax.with_sharding_constraint(jnp.ones(8), P('data'))\n",
    # inside a jitted function the context mesh is not known: silent
    "m = jax.make_mesh((8,), ('data',))\nf = jax.jit(lambda v: lax.with_sharding_constraint(v, jax.NamedSharding(m, P('data'))))\n",
]


@pytest.mark.parametrize("body", SILENT)
def test_silent_where_the_context_mesh_is_not_certain(body: str) -> None:
    head = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom jax.sharding import PartitionSpec as P\n"
    assert [d.code for d in check_source(head + body, "m.py")] == []
