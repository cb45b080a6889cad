"""Related locations: a diagnostic names its causes elsewhere (the placement that gave an operand its sharding,
where a value started varying, a loop carry's initial value, the call that gave a parameter its shape, in
another module too). Each program holds one mistake, pinned as (code, line) with its related (path, line,
message); each fails under JAX (8 CPU devices) as well."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from namedcheck.cli.main import main

SHARD_MAP_HEAD = """\
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(8), ('x',))
"""

EXPLICIT_HEAD = """\
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)
"""

# name -> (files, the file JAX runs, what JAX's error says, [(path, code, line, [(path, line, message), ...])])
CASES: dict[str, tuple[dict[str, str], str, str, list[tuple[str, str, int, list[tuple[str, int, str]]]]]] = {
    "nc601_parameter": (
        {
            "m.py": SHARD_MAP_HEAD
            + """

def body(xb):
    return xb * 2


out = jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P())(jnp.ones((8, 4)))
"""
        },
        "m.py",
        "out_specs",
        [("m.py", "NC601", 15, [("m.py", 12, "returned here"), ("m.py", 11, "`xb` varies over 'x' by its in_specs")])],
    ),
    "nc601_collective": (
        {
            "m.py": SHARD_MAP_HEAD
            + """

def body(xb):
    i = lax.axis_index('x')
    return xb + i


out = jax.shard_map(body, mesh=mesh, in_specs=P(), out_specs=P())(jnp.ones((8, 4)))
"""
        },
        "m.py",
        "out_specs",
        [
            (
                "m.py",
                "NC601",
                16,
                [
                    ("m.py", 13, "returned here"),
                    ("m.py", 12, "the value starts varying over 'x' here (lax.axis_index)"),
                ],
            )
        ],
    ),
    "nc602_carry": (
        {
            "m.py": SHARD_MAP_HEAD
            + """

def body(xb):
    init = jnp.zeros(xb.shape[1:])
    c, _ = lax.scan(lambda c, r: (c + r, None), init, xb)
    return c


out = jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones((16, 4)))
"""
        },
        "m.py",
        "scan",
        [
            (
                "m.py",
                "NC602",
                13,
                [("m.py", 13, "the carry's initial value"), ("m.py", 17, "the in_specs that make the inputs vary")],
            )
        ],
    ),
    "nc408_carry_elsewhere": (
        {
            "m.py": """\
import jax.numpy as jnp
from jax import lax

from steps import grow


def run(x):
    state = (jnp.zeros(()), jnp.zeros(3))
    return lax.scan(grow, state, x)


out = run(jnp.ones((4, 3)))
""",
            "steps.py": """\
import jax.numpy as jnp


def grow(state, x):
    n, h = state
    return (n + 1, jnp.concatenate([h, x])), None
""",
        },
        "m.py",
        "carry input and carry output must have equal types",
        [
            (
                "steps.py",
                "NC408",
                6,
                [
                    ("m.py", 9, "carry item 1 starts as f32[Array, Dims(3)] here"),
                    ("m.py", 8, "carry item 1 gets its shape (3,) from jnp.zeros here"),
                ],
            )
        ],
    ),
    "nc802_placements": (
        {
            "m.py": EXPLICIT_HEAD
            + """\
x = jax.device_put(np.ones((8, 16), np.float32), P(None, 'data'))
w = jax.device_put(np.ones((16, 4), np.float32), P('data', None))
y = x @ w
"""
        },
        "m.py",
        "ambiguous",
        [
            (
                "m.py",
                "NC802",
                11,
                [
                    ("m.py", 9, "`x` was placed with P(None, 'data') here"),
                    ("m.py", 10, "`w` was placed with P('data', None) here"),
                ],
            )
        ],
    ),
    "nc801_list_items": (
        {
            "m.py": EXPLICIT_HEAD
            + """\
x = jax.device_put(np.ones((8, 16), np.float32), P('data', None))
y = jax.device_put(np.ones((8, 16), np.float32), P(None, 'model'))
both = jnp.concatenate([x, y], axis=1)
"""
        },
        "m.py",
        "same sharding",
        [
            (
                "m.py",
                "NC801",
                11,
                [
                    ("m.py", 9, "`x` was placed with P('data', None) here"),
                    ("m.py", 10, "`y` was placed with P(None, 'model') here"),
                ],
            )
        ],
    ),
    "nc807_through_an_op": (
        {
            "m.py": EXPLICIT_HEAD
            + """\
x = jax.device_put(np.ones((8, 16), np.float32), P('data', None))
doubled = x * 2
fixed = jax.lax.with_sharding_constraint(doubled, P(None, 'model'))
"""
        },
        "m.py",
        "sharding",
        [("m.py", "NC807", 11, [("m.py", 9, "`doubled` has its sharding P('data', None) from this placement")])],
    ),
    "nc802_out_sharding_placement": (
        {
            "m.py": EXPLICIT_HEAD
            + """\
x = jax.device_put(np.ones((8, 16), np.float32), P(None, 'data'))
w = jax.device_put(np.ones((16, 4), np.float32), P('data', None))
y = jnp.dot(x, w, out_sharding=P(None, 'data'))
z = y @ jax.device_put(np.ones((4, 2), np.float32), P('data', None))
"""
        },
        "m.py",
        "ambiguous",
        [
            (
                "m.py",
                "NC802",
                12,
                [
                    ("m.py", 11, "`y` was placed with P(None, 'data') here"),
                    ("m.py", 12, "`jax.device_put(...)` was placed with P('data', None) here"),
                ],
            )
        ],
    ),
    "nc801_sharding_written_apart": (
        {
            "layers.py": """\
import jax


def gated(x, gate):
    return x * jax.nn.sigmoid(gate)
""",
            "train.py": """\
import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from layers import gated

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)
batch_sharding = NamedSharding(mesh, P('data', None))
gate_sharding = NamedSharding(mesh, P('model', None))
x = jax.device_put(jnp.ones((8, 16)), batch_sharding)
gate = jax.device_put(jnp.ones((8, 16)), gate_sharding)
y = gated(x, gate)
""",
        },
        "train.py",
        "incompatible shardings",
        [
            (
                "layers.py",
                "NC801",
                5,
                [
                    ("train.py", 12, "`x` was placed with P('data', None) here"),
                    ("train.py", 13, "`jax.nn.sigmoid(...)` has its sharding P('model', None) from this placement"),
                    ("train.py", 10, "the sharding of `x` is written here"),
                    ("train.py", 11, "the sharding of `jax.nn.sigmoid(...)` is written here"),
                ],
            )
        ],
    ),
    "nc801_spec_in_a_tree": (
        {
            "m.py": EXPLICIT_HEAD
            + """\
params = jax.device_put(
    {'w': np.ones((16, 4), np.float32), 'b': np.zeros((4,), np.float32)},
    {
        'w': P(None, 'model'),
        'b': P('data'),
    },
)
x = jax.device_put(np.ones((8, 16), np.float32), P('data', None))
y = x @ params['w'] + params['b']
"""
        },
        "m.py",
        "incompatible shardings",
        [
            (
                "m.py",
                "NC801",
                17,
                [
                    ("m.py", 9, "`params[...]` was placed with P('data') here"),
                    ("m.py", 13, "the sharding of `params[...]` is written here"),
                ],
            )
        ],
    ),
    "nc808_in_shardings_entry": (
        {
            "m.py": EXPLICIT_HEAD
            + """\
from jax.sharding import NamedSharding

step = jax.jit(
    lambda w, x: x @ w,
    in_shardings=(
        NamedSharding(mesh, P(None, None)),
        NamedSharding(mesh, P('model', None)),
    ),
)
w = jax.device_put(np.ones((16, 4), np.float32), P(None, None))
x = jax.device_put(np.ones((8, 16), np.float32), P('data', None))
out = step(w, x)
"""
        },
        "m.py",
        "does not match",
        [
            (
                "m.py",
                "NC808",
                20,
                [
                    ("m.py", 18, "`w` was placed with P(None, None) here"),
                    ("m.py", 19, "`x` was placed with P('data', None) here"),
                    ("m.py", 15, "the sharding passed to jit is written here"),
                ],
            )
        ],
    ),
    "nc823_branches": (
        {
            "m.py": EXPLICIT_HEAD
            + """\
x = jax.device_put(np.ones((8, 16), np.float32), P('data', None))
y = jax.device_put(np.ones((8, 16), np.float32), P(None, 'model'))
out = lax.cond(True, lambda: x, lambda: y)
"""
        },
        "m.py",
        "equal output types",
        [
            (
                "m.py",
                "NC823",
                11,
                [
                    ("m.py", 9, "branch 0's output was placed with P('data', None) here"),
                    ("m.py", 10, "branch 1's output was placed with P(None, 'model') here"),
                ],
            )
        ],
    ),
    "nc811_checked_argument": (
        {
            "m.py": EXPLICIT_HEAD
            + """\
from namedcheck import Array, Dims, checked, f32


@checked
def scale(x: f32[Array, Dims('8@data', 16)]) -> f32[Array, Dims('8@data', 16)]:
    return x * 2


y = jax.device_put(np.ones((8, 16), np.float32), P(None, 'model'))
out = scale(y)
"""
        },
        "m.py",
        "[NC811]",
        [("m.py", "NC811", 18, [("m.py", 17, "`y` was placed with P(None, 'model') here")])],
    ),
    "nc809_carry": (
        {
            "m.py": EXPLICIT_HEAD
            + """\
x = jax.device_put(np.ones((8, 16), np.float32), P('data', None))


def grow(c, _):
    return jax.sharding.reshard(c * 2, P(None, 'model')), None


out, _ = lax.scan(grow, x, None, length=3)
"""
        },
        "m.py",
        "output types match",
        [
            (
                "m.py",
                "NC809",
                16,
                [("m.py", 9, "`x` was placed with P('data', None) here"), ("m.py", 16, "the carry's initial value")],
            )
        ],
    ),
    "nc203_call_chain": (
        {
            "m.py": """\
import jax.numpy as jnp


def layer(x, w):
    return x @ w


def model(h, w):
    return layer(h, w)


out = model(jnp.zeros((5, 3)), jnp.zeros((4, 2)))
"""
        },
        "m.py",
        "contracting dimensions",
        [
            (
                "m.py",
                "NC203",
                5,
                [
                    ("m.py", 9, "called here with `x` of shape (5, 3)"),
                    ("m.py", 12, "called here with `h` of shape (5, 3)"),
                    ("m.py", 9, "called here with `w` of shape (4, 2)"),
                    ("m.py", 12, "called here with `w` of shape (4, 2)"),
                ],
            )
        ],
    ),
    "nc201_through_ops": (
        {
            "m.py": """\
import jax.numpy as jnp


def combine(a, b):
    t = a.T
    return t + b


out = combine(jnp.zeros((5, 3)), jnp.zeros((5, 3)))
"""
        },
        "m.py",
        "broadcast",
        [
            (
                "m.py",
                "NC201",
                6,
                [
                    ("m.py", 9, "called here with `a` of shape (5, 3)"),
                    ("m.py", 9, "called here with `b` of shape (5, 3)"),
                    ("m.py", 5, "`t` gets its shape (3, 5) from jnp.transpose here"),
                ],
            )
        ],
    ),
    "layer_built_elsewhere": (
        {
            "m.py": """\
import flax.linen as nn
import jax
import jax.numpy as jnp


class Block(nn.Module):
    n: int

    def setup(self):
        self.proj = nn.Dense(self.n + 1)

    def __call__(self, x):
        return x + self.proj(x)


params = Block(8).init(jax.random.PRNGKey(0), jnp.ones((2, 8)))
"""
        },
        "m.py",
        "broadcast",
        [
            (
                "m.py",
                "NC201",
                13,
                [
                    ("m.py", 16, "called here with `x` of shape (2, 8)"),
                    ("m.py", 10, "`self.proj(...)` gets its shape (2, 9) from nn.Dense here"),
                ],
            )
        ],
    ),
    "nc305_init_apply": (
        {
            "model.py": """\
import flax.linen as nn


class Head(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(1)(x)
""",
            "train.py": """\
import jax
import jax.numpy as jnp

from model import Head

model = Head()
params = model.init(jax.random.key(0), jnp.ones((4, 5)))["params"]
out = model.apply({"params": params}, jnp.ones((4, 3)))
""",
        },
        "train.py",
        "ScopeParamShapeError",
        [
            (
                "train.py",
                "NC305",
                8,
                [("train.py", 7, "the parameters are made here, with 'kernel' of shape (5, 1)")],
            )
        ],
    ),
    "haiku_init_apply": (
        {
            "model.py": """\
import haiku as hk


class Head(hk.Module):
    def __call__(self, x):
        return hk.Linear(1)(x)


def forward(x):
    return Head()(x)
""",
            "train.py": """\
import haiku as hk
import jax
import jax.numpy as jnp

from model import forward

net = hk.without_apply_rng(hk.transform(forward))
params = net.init(jax.random.key(0), jnp.ones((4, 5)))
out = net.apply(params, jnp.ones((4, 3)))
""",
        },
        "train.py",
        "ValueError",
        [
            (
                "train.py",
                "NC305",
                9,
                [("train.py", 8, "the parameters are made here, with 'head/linear/w' of shape (5, 1)")],
            )
        ],
    ),
    "two_modules": (
        {
            "layers.py": """\
import jax.numpy as jnp


def dense(x, w):
    return jnp.matmul(x, w)
""",
            "train.py": """\
import jax.numpy as jnp

from layers import dense

params = jnp.zeros((4, 2))
batch = jnp.zeros((5, 3))
out = dense(batch, params)
""",
        },
        "train.py",
        "contracting dimensions",
        [
            (
                "layers.py",
                "NC203",
                5,
                [
                    ("train.py", 7, "called here with `x` of shape (5, 3)"),
                    ("train.py", 7, "called here with `w` of shape (4, 2)"),
                    ("train.py", 6, "`x` gets its shape (5, 3) from jnp.zeros here"),
                    ("train.py", 5, "`w` gets its shape (4, 2) from jnp.zeros here"),
                ],
            )
        ],
    ),
}


def _write(tmp: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (tmp / name).write_text(text)


@pytest.mark.parametrize("name", sorted(CASES))
def test_related_locations(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files, _, _, expected = CASES[name]
    _write(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    main(["check", ".", "--no-cache", "--format", "json"])
    norm = os.path.normpath
    found = [
        (norm(d["path"]), d["code"], d["line"], [(norm(r["path"]), r["line"], r["message"]) for r in d["related"]])
        for d in json.loads(capsys.readouterr().out)
    ]
    assert found == expected


def test_programs_fail_under_jax(tmp_path: Path) -> None:
    """Every program above holds a real mistake: JAX raises, saying so."""
    pytest.importorskip("jax")
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8", "JAX_PLATFORMS": "cpu"}
    runs = {}
    for name, (files, main_file, _, _) in CASES.items():
        d = tmp_path / name
        d.mkdir()
        _write(d, files)
        runs[name] = subprocess.Popen(
            [sys.executable, main_file], cwd=d, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
    for name, proc in runs.items():
        out, _ = proc.communicate(timeout=300)
        assert proc.returncode != 0, (name, out)
        assert CASES[name][2] in out, (name, out[-2000:])


def test_origins_leave_equality_hash_repr_memo_keys_and_pickles_alone() -> None:
    import pickle

    import libcst as cst

    from namedcheck.analyzer import origins
    from namedcheck.analyzer.memo import memo_key
    from namedcheck.engine.values import ArrayType

    plain = ArrayType.make("f32", (8, 4)).with_sharding((("data",), ()))
    placed = origins.placed(plain, cst.parse_expression("jax.device_put(x, P('data'))"))
    called = origins.passed(placed, cst.parse_expression("f(x)"), cst.Name("x"), "x")
    assert placed.origin is not None and origins.placement(placed) is not None
    for v in (placed, called):
        assert v == plain and hash(v) == hash(plain) and repr(v) == repr(plain)
        assert memo_key((1, v)) == memo_key((1, plain))
        assert pickle.loads(pickle.dumps(v)).origin is None  # no syntax nodes leave the process
    assert origins.placement(placed.with_sharding((("model",), ()))) is None  # resharded: no longer the cause


ROOT = Path(__file__).resolve().parent.parent
# One diagnostic per code the programs above leave out, from the corpus (whose `# expect:` lines JAX rejects:
# tests/test_sharding_types_under_jax.py, tests/test_examples.py): (file, code, line, [(line, message), ...]).
CORPUS = [
    ("examples/buggy/sharding_bugs.py", "NC603", 32, [(31, "`x` varies over 'data' by its in_specs")]),
    (
        "tests/cases/shd_contract.py",
        "NC803",
        41,
        [
            (38, "`left` was placed with P('data', None, None) here"),
            (41, "`jax.device_put(...)` was placed with P('model', None, None) here"),
        ],
    ),
    (
        "tests/cases/shd_apply_outer.py",
        "NC804",
        23,
        [
            (18, "`v` was placed with P('data') here"),
            (10, "`x` was placed with P('data', None) here"),
        ],
    ),
    (
        "tests/cases/nc408_carry.py",
        "NC408",
        112,
        [
            (115, "carry item 1 starts as f32[Array, Dims()] here"),
            (114, "carry item 1 gets its shape () from jnp.array here"),
        ],
    ),
    ("tests/cases/shd_layout.py", "NC805", 47, [(15, "`y` was placed with P(None, 'model') here")]),
    (
        "tests/cases/shd_api.py",
        "NC806",
        17,
        [
            (15, "`table` was placed with P(None, None) here"),
            (16, "`ids` was placed with P('data') here"),
        ],
    ),
    (
        "tests/cases/shd_api.py",
        "NC808",
        46,
        [(45, "`replicated` was placed with P(None, None) here"), (40, "the sharding passed to jit is written here")],
    ),
    ("tests/cases/shd_more.py", "NC810", 44, [(12, "argument 0 was placed with P('data', None) here")]),
    ("tests/cases/shd_context_mesh.py", "NC812", 23, [(17, "`x` was placed with P('data', None) here")]),
    ("tests/cases/shd_unreduced.py", "NC813", 31, [(18, "`u` was placed with P(None, None, unreduced={'data'}) here")]),
    ("tests/cases/shd_axis_ops.py", "NC821", 19, [(14, "`x` was placed with P('data', None) here")]),
    ("tests/cases/shd_axis_ops.py", "NC822", 52, [(14, "`x` was placed with P('data', None) here")]),
]


@pytest.mark.parametrize("path, code, line, related", CORPUS, ids=[c[1] for c in CORPUS])
def test_corpus_related_locations(path: str, code: str, line: int, related: list[tuple[int, str]]) -> None:
    from namedcheck.analyzer.check import check_source

    found = [d for d in check_source((ROOT / path).read_text(), path) if (d.code, d.line) == (code, line)]
    assert [[(r.line, r.message) for r in d.related] for d in found] == [related]
    assert all(r.path == path for d in found for r in d.related)
