"""The sharding a program states is tracked on the value (`ArrayType.spec`), and the engine's one spec rule."""

from __future__ import annotations

import pytest

from namedcheck.analyzer.check import analyse_for_test
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import MeshInfo, Spec
from namedcheck.engine.placement import check_spec
from namedcheck.engine.values import ArrayType, Seq

HEADER = """\
from functools import partial
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('data', 'model'))
rows = NamedSharding(mesh, P('data'))
"""


def revealed(body: str) -> dict[int, object]:
    """The value of each assignment of `body` (lines numbered from 1 within `body`)."""
    diags, values = analyse_for_test(HEADER + body)
    assert not diags, [d.message for d in diags]
    offset = HEADER.count("\n")
    return {line - offset: v for line, v in values.items() if line > offset}


# `Mesh(...)` makes Auto axes: an array placed on it carries the mesh, with no axis in its type (`jax.typeof`)
AUTO_MESH = MeshInfo((("data", 4), ("model", 2)), types=("auto", "auto"))


def on_auto_mesh(v: ArrayType) -> ArrayType:
    return v.with_sharding(((),) * len(v.shape), AUTO_MESH)


def spec_of(v: object) -> object:
    assert isinstance(v, ArrayType), v
    return v.spec


def test_device_put_places_the_value() -> None:
    v = revealed("x = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('data', 'model')))\n")
    assert spec_of(v[1]) == (("data",), ("model",))
    assert v[1] == on_auto_mesh(ArrayType.make("f32", (8, 4)).with_spec((("data",), ("model",))))


def test_unplaced_value_has_no_spec() -> None:
    assert spec_of(revealed("x = jnp.ones((8, 4))\n")[1]) is None


def test_device_put_pytree_with_one_sharding_and_with_a_matching_tree() -> None:
    v = revealed(
        "a = jax.device_put((jnp.ones(8), jnp.ones((8, 2))), rows)\n"
        "b = jax.device_put({'w': jnp.ones((4, 8)), 'b': jnp.ones(8)},\n"
        "                   {'w': NamedSharding(mesh, P(None, 'model')), 'b': NamedSharding(mesh, P())})\n"
    )
    assert isinstance(v[1], Seq)
    assert [spec_of(i) for i in v[1].items] == [(("data",),), (("data",),)]
    leaves = {p.items[0].value: spec_of(p.items[1]) for p in v[2].items}
    assert leaves == {"w": (None, ("model",)), "b": ()}


def test_constraint_reshard_and_creation_keep_the_type_and_carry_the_spec() -> None:
    v = revealed(
        "x = jnp.ones((8, 6))\n"
        "c = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P(None, 'model')))\n"
        "z = jnp.zeros((8, 2), device=rows)\n"
        "with jax.set_mesh(jax.make_mesh((4, 2), ('data', 'model'))):\n"
        "    r = jax.sharding.reshard(jnp.ones(8), P('data', None))\n"
    )
    assert v[2] == on_auto_mesh(ArrayType.make("f32", (8, 6)).with_spec((None, ("model",))))
    assert spec_of(v[3]) == (("data",),)
    assert spec_of(v[5]) == (("data",),)  # the extra trailing None reshard accepts is dropped


def test_jit_shardings_place_arguments_and_results() -> None:
    v = revealed(
        "@partial(jax.jit, in_shardings=(rows, None), out_shardings=NamedSharding(mesh, P(None, 'model')))\n"
        "def step(x, w):\n"
        "    inside = x\n"
        "    free = w\n"
        "    return x @ w\n"
        "out = step(jnp.ones((8, 4)), jnp.ones((4, 2)))\n"
    )
    assert spec_of(v[3]) == (("data",),)
    assert spec_of(v[4]) is None
    assert v[6] == on_auto_mesh(ArrayType.make("f32", (8, 2)).with_spec((None, ("model",))))


def test_plain_jit_stays_transparent() -> None:
    v = revealed("step = jax.jit(lambda x: x * 2)\nout = step(jnp.ones(3))\n")
    assert v[2] == ArrayType.make("f32", (3,))


MESH = MeshInfo((("data", 4), ("model", 2)))


@pytest.mark.parametrize(
    ("spec", "shape", "code", "words"),
    [
        (Spec((("batch",),)), (8,), "NC501", ["'batch'", "('data', 'model')"]),
        (Spec((("data",), ("data",))), (8, 8), "NC504", ["'data'", "P('data', 'data')"]),
        (Spec((("data",), None)), (8,), "NC604", ["2 entries", "rank 1", "(8,)"]),
        (Spec((("data", "model"),)), (12, 4), "NC604", ["dimension 0", "size 12", "8 devices", "'data': 4"]),
    ],
)
def test_check_spec_rejects(spec: Spec, shape: tuple, code: str, words: list[str]) -> None:
    with pytest.raises(RuleError) as e:
        check_spec(spec, MESH, shape, "argument 'x' of device_put")
    assert e.value.code == code
    for w in words + ["argument 'x' of device_put"]:
        assert w in e.value.message, e.value.message


@pytest.mark.parametrize(
    ("spec", "mesh", "shape", "kw"),
    [
        (Spec((("data",), ("model",))), MESH, (8, 4), {}),
        (Spec((("data",), None)), MESH, (8,), {"trailing_none_ok": True}),
        (Spec((("data",),)), MESH, (6,), {"divisible": False}),
        (Spec((("data",),)), MeshInfo((("data", None),)), (6,), {}),  # size not static: unknown, silent
        (Spec((("data",),)), MESH, ("B",), {}),  # symbolic dimension: silent
        (Spec((("nope",), None)), None, (8, 8), {}),  # mesh unknown: only rank and repeats are checked
        (Spec((("data",), None, None)), MESH, (8, ...), {}),  # rank unknown
    ],
)
def test_check_spec_accepts(spec: Spec, mesh: MeshInfo | None, shape: tuple, kw: dict) -> None:
    check_spec(spec, mesh, shape, "x", **kw)


def test_paths_that_differ_only_in_sharding_merge_without_it() -> None:
    v = revealed(
        "x = jnp.ones((8, 4))\n"
        "if jax.process_index() == 0:\n"
        "    x = jax.device_put(x, rows)\n"
        "after_if = x\n"
        "for _ in range(3):\n"
        "    x = jax.device_put(x, rows)\n"
        "after_loop = x\n"
        "either = jax.device_put(jnp.ones((8, 4)), rows) if jax.process_index() == 0 else jnp.ones((8, 4))\n"
        "both = jax.device_put(x, rows) if jax.process_index() == 0 else jax.device_put(x, rows)\n"
    )
    plain = ArrayType.make("f32", (8, 4))
    assert v[4] == plain and v[4].spec is None
    assert v[7] == on_auto_mesh(plain.with_spec((("data",),)))  # range(3) runs: the loop is unrolled, x is placed
    assert v[8] == plain and v[8].spec is None
    assert v[9] == on_auto_mesh(plain.with_spec((("data",),)))


# Each program's verdict against real JAX (8 host devices, tests/conftest.py): rejected exactly when JAX raises.
EXPLICIT = "explicit = jax.make_mesh((4, 2), ('data', 'model'))\n"
AGREEMENT = [
    ("x = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P('data', 'model')))", None),
    ("x = jax.device_put(jnp.ones((6, 4)), rows)", "NC604"),
    ("x = jax.device_put(jnp.ones((8,)), NamedSharding(mesh, P('data', None)))", "NC604"),
    ("x = jax.device_put((jnp.ones(8), jnp.ones((8, 3))), rows)", None),
    ("x = jax.device_put({'a': jnp.ones(8), 'b': jnp.ones(6)}, {'a': rows, 'b': rows})", "NC604"),
    ("s = NamedSharding(mesh, P('rows'))", "NC501"),
    ("s = NamedSharding(mesh, P('data', ('model', 'data')))", "NC504"),
    ("s = P('data', 'data')", None),  # a bare spec is checked where it is used
    ("x = jax.lax.with_sharding_constraint(jnp.ones((6, 4)), rows)", "NC604"),  # eager: raises
    ("x = jax.jit(lambda v: jax.lax.with_sharding_constraint(v, rows))(jnp.ones((6, 4)))", None),  # jit pads
    (
        "x = jax.jit(lambda v: jax.lax.with_sharding_constraint(v, NamedSharding(mesh, P(None, 'model'))))"
        "(jnp.ones(8))",
        "NC604",
    ),
    ("x = jnp.zeros((6, 4), device=rows)", "NC604"),
    ("x = jnp.zeros((8,), device=NamedSharding(mesh, P('data', None)))", None),  # trailing None accepted
    ("x = jax.jit(lambda: jnp.zeros((6, 4), device=rows))()", None),  # jit pads
    ("x = jnp.linspace(0.0, 1.0, 6, device=rows)", None),
    ("x = jax.jit(lambda v: v * 2, in_shardings=rows)(jnp.ones(6))", "NC604"),
    ("x = jax.jit(lambda v, w: v * w, in_shardings=(None, rows))(jnp.ones(6), jnp.ones(8))", "NC201"),
    ("x = jax.jit(lambda v: v.sum(0), out_shardings=rows)(jnp.ones((8, 8)))", None),
    ("x = jax.jit(lambda v: v[:6], out_shardings=rows)(jnp.ones(8))", "NC604"),
    ("x = jax.jit(lambda v: v.sum(), out_shardings=rows)(jnp.ones(8))", "NC604"),
    (EXPLICIT + "with jax.set_mesh(explicit):\n    x = jax.sharding.reshard(jnp.ones(8), P('data', None))", None),
    (EXPLICIT + "with jax.set_mesh(explicit):\n    x = jax.sharding.reshard(jnp.ones(8), P(None, 'data'))", "NC604"),
    (EXPLICIT + "with jax.set_mesh(explicit):\n    x = jax.sharding.reshard(jnp.ones(6), P('data'))", "NC604"),
    (EXPLICIT + "with jax.set_mesh(explicit):\n    x = jax.sharding.reshard(jnp.ones(8), P('x'))", "NC501"),
    (EXPLICIT + "with jax.set_mesh(explicit):\n    x = jnp.arange(6, out_sharding=P('data'))", "NC604"),
    (
        EXPLICIT + "with jax.set_mesh(explicit):\n    x = jax.random.uniform(jax.random.key(0), (6,), "
        "out_sharding=P('data'))",
        "NC604",
    ),
    (
        EXPLICIT + "with jax.set_mesh(explicit):\n    x = jax.jit(lambda v: v, in_shardings=P(('data', 'data')))"
        "(jnp.ones(8))",
        "NC504",
    ),
    (EXPLICIT + "with jax.set_mesh(explicit):\n    x = jax.device_put(jnp.ones((8, 2)), P('data', 'model'))", None),
]


@pytest.mark.parametrize(("src", "code"), AGREEMENT, ids=[s.splitlines()[-1].strip() for s, _ in AGREEMENT])
def test_rejected_exactly_when_jax_raises(src: str, code: str | None) -> None:
    pytest.importorskip("jax")
    diags, _ = analyse_for_test(HEADER + src + "\n")
    last = (HEADER + src).count("\n") + 1
    assert [(d.line, d.code) for d in diags] == ([(last, code)] if code else []), [d.message for d in diags]
    namespace: dict[str, object] = {}
    if code is None:
        exec(HEADER + src, namespace)  # noqa: S102 - the program must run
    else:
        with pytest.raises(Exception):  # noqa: B017 - any JAX error counts
            exec(HEADER + src, namespace)  # noqa: S102


def test_a_non_manual_axis_in_in_specs_is_reported_once_where_the_spec_is_written() -> None:
    """JAX raises one error at the call for in_specs naming an axis outside axis_names: one NC604, at in_specs
    (the spec's own fault), not a second one for the argument it is applied to."""
    src = (
        "import jax\nimport jax.numpy as jnp\nfrom jax.sharding import PartitionSpec as P\n"
        "mesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(mesh)\n"
        "x = jax.device_put(jnp.ones((8, 4)), P('data', 'model'))\n"
        "a = jax.shard_map(lambda b: b, in_specs=P('data', 'model'), out_specs=P('data'), "
        "axis_names={'data'})(x)\n"
        "c = jax.shard_map(lambda b, d: b, in_specs=(P('data', 'model'), P()), out_specs=P('data'), "
        "axis_names={'data'})(x, x)\n"
    )
    diags, _ = analyse_for_test(src, "pm.py")
    got = [(d.line, d.code, d.column) for d in diags]
    assert got == [
        (7, "NC604", src.splitlines()[6].index("P('data', 'model')") + 1),
        (8, "NC604", src.splitlines()[7].index("P('data', 'model')") + 1),
    ], got
