"""The text of one message per code, pinned: code -> a program -> the exact message, line and hint.

A change to a message shows up here as a diff to review: every message says what is wrong, where,
what was expected and what was found, in the user's own spelling (no internal reprs), and its hint
says how to fix it. The runtime's errors for the same mistakes are pinned at the end.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from namedcheck.analyzer.check import check_source
from namedcheck.analyzer.module import ModuleAnalyzer
from namedcheck.engine.codes import CODES

HEADER = (
    "import jax\nimport jax.numpy as jnp\nimport numpy as np\nfrom jax import lax\n"
    "from jax.experimental.maps import xmap\nfrom jax.sharding import Mesh\n"
    "from jax.sharding import PartitionSpec as P\nfrom namedcheck import f32, i32\n"
    "mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('data', 'model'))\n"
)

# code -> a program (after HEADER) with one mistake
PROGRAMS = {
    "NC001": "def loss(w, x:\n    return w @ x\n",
    "NC002": "tokens = jnp.ones((16, 64))  # noqa: NC201\n",
    "NC003": "tokens = jnp.ones((16, 64))\nreveal_type(tokens)\n",
    "NC101": "def embed(tokens: f32[(16,), ['batch', 8]]) -> None: ...\n",
    "NC102": "def embed(tokens: f32[(-1, 64)]) -> None: ...\n",
    "NC103": "def embed(tokens: f32[(64,), {'batch': 8, 'batch': 4}]) -> None: ...\n",
    "NC104": "def embed(tokens: f32[(..., 64, ...)]) -> None: ...\n",
    "NC105": "def embed(tokens: f32[(seq, 64)]) -> None: ...\n",
    "NC201": "def add_bias(h: f32[(128, 512)], b: f32[(256,)]):\n    return h + b\n",
    "NC202": "def mix(h: f32[(64,), {'batch': 32}], g: f32[(64,), {'batch': 16}]):\n    return h * g\n",
    "NC203": "def project(h: f32[(128, 512)], w: f32[(256, 64)]):\n    return h @ w\n",
    "NC301": "def head(h: f32[(128, 512)]) -> f32[(128, 256)]:\n    return h * 2\n",
    "NC302": "def head(h: f32[(128, 512)]) -> f32[(128, 512)]:\n    return h\n\n\nhead(jnp.zeros((128, 256)))\n",
    "NC303": "def gate(a: f32[('N', 'D')], b: f32[('N', 'D')]) -> f32[('N', 'D')]:\n    return a * b\n\n\ngate(jnp.zeros((8, 4)), jnp.zeros((8, 5)))\n",
    "NC304": "ids: i32[(8,)] = jnp.zeros(8)\n",
    "NC305": "import flax.linen as nn\nhead = nn.Dense(1)\nvariables = head.init(jax.random.key(0), jnp.ones((4, 5)))\n"
    "out = head.apply(variables, jnp.ones((4, 3)))\n",
    "NC401": "pairwise = xmap(lambda a, b: a * b, in_axes=(['batch', ...],), out_axes=['batch', ...])\npairwise(jnp.ones((8, 3)), jnp.ones((8, 3)))\n",
    "NC402": "xmap(lambda a: a, in_axes={2: 'batch'}, out_axes=['batch', ...])(jnp.ones((8, 3)))\n",
    "NC403": "xmap(lambda a, b: a + b, in_axes=(['batch', ...], ['batch', ...]), out_axes=['batch', ...])(jnp.ones((8, 3)), jnp.ones((4, 3)))\n",
    "NC404": "xmap(lambda a: a * 2, in_axes=['batch', ...], out_axes=[...])(jnp.ones((8, 3)))\n",
    "NC405": "xmap(lambda a: a, in_axes=['batch', ...], out_axes=['batch', 'seq', ...])(jnp.ones((8, 3)))\n",
    "NC406": "xmap(lambda a: a, in_axes=['batch', ...], out_axes=['batch', ...], axis_resources={'seq': 'data'})(jnp.ones((8, 3)))\n",
    "NC407": "def inner(v):\n    return xmap(lambda w: w, in_axes=['batch', ...], out_axes=['batch', ...])(v)\n\n\nxmap(inner, in_axes=['batch', ...], out_axes=['batch', ...])(jnp.ones((2, 3, 4)))\n",
    "NC408": "def step(state, x):\n    h, n = state\n    return (h @ x, n + 1), None\n\n\nlax.scan(step, (jnp.zeros((2, 4)), 0), jnp.ones((3, 4, 8)))\n",
    "NC204": "def heads(d_model=512, n_heads=12):\n    assert d_model % n_heads == 0\n    return d_model // n_heads\n\n\nheads()\n",
    "NC205": "def init(name, cfg):\n    return cfg.width\n\n\ninit(8, 'dense')\n",
    "NC501": "jax.shard_map(lambda v: v, mesh=mesh, in_specs=P('dta'), out_specs=P('data'))(jnp.ones(8))\n",
    "NC505": "data_mesh = jax.make_mesh((-1, 2), ('data', 'model'))\n",
    "NC502": "def both(a: f32[(), {'a': 4}], b: f32[(), {'b': 4}]) -> f32[()]:\n    return jnp.sum(a + b, axis=('a', 'b'))\n\n\nwith Mesh(np.array(jax.devices()[:4]), ('x',)):\n    xmap(both, in_axes=(['a', ...], ['b', ...]), out_axes=[...], axis_resources={'a': 'x', 'b': 'x'})(jnp.ones(4), jnp.ones(4))\n",
    "NC503": "with Mesh(np.array(jax.devices()[:4]), ('x',)):\n    xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', ...], axis_resources={'i': 'x'})(jnp.ones(6))\n",
    "NC504": "jax.shard_map(lambda v: v, mesh=mesh, in_specs=P(('data', 'data')), out_specs=P('data'))(jnp.ones(8))\n",
    "NC601": "def step(v):\n    return v * 2\n\n\njax.shard_map(step, mesh=mesh, in_specs=P('data'), out_specs=P())(jnp.ones(8))\n",
    "NC602": "def body(v):\n    return lax.fori_loop(0, 3, lambda i, c: c + v, jnp.zeros(v.shape))\n\n\njax.shard_map(body, mesh=mesh, in_specs=P('data'), out_specs=P('data'))(jnp.ones(8))\n",
    "NC603": "jax.shard_map(lambda v: lax.psum(v, ('data', 'model')), mesh=mesh, in_specs=P('data'), out_specs=P())(jnp.ones(8))\n",
    "NC604": "jax.shard_map(lambda v: v, mesh=mesh, in_specs=P('data'), out_specs=P('data'))(jnp.ones(6))\n",
    "NC701": "def total(h: f32[(128, 512)]):\n    return jnp.sum(h, axis=2)\n",
    "NC702": "def contract(x: f32[(5,), {'b': 2, 'k': 7}], y: f32[(), {'k': 7}]):\n    return jnp.einsum('n{k},{}->n', x, y)\n",
    "NC705": "def norm(x: f32[(3,), {'batch': 8}]) -> f32[(3,)]:\n    return lax.psum(x, 'btach')\n",
    "NC801": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\nx = jax.device_put(jnp.ones((8, 16)), P('data', None))\ny = jax.device_put(jnp.ones((8, 16)), P('model', None))\nx + y",
    "NC802": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\nx = jax.device_put(jnp.ones((8, 16)), P(None, 'data'))\nw = jax.device_put(jnp.ones((16, 4)), P('data', None))\nx @ w",
    "NC803": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\na = jax.device_put(jnp.ones((4, 8, 16)), P('data'))\nb = jax.device_put(jnp.ones((4, 16, 2)), P('model'))\njnp.einsum('bij,bjk->bik', a, b)",
    "NC804": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\nx = jax.device_put(jnp.ones((8, 16)), P('data', None))\nw = jax.device_put(jnp.ones((16, 8)), P(None, 'data'))\nx @ w",
    "NC805": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\nx = jax.device_put(jnp.ones((8, 16)), P('data', None))\nx.reshape(16, 8)",
    "NC806": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\nids = jax.device_put(jnp.arange(8), P('data'))\njnp.take(jnp.ones((10, 16)), ids, axis=0)",
    "NC807": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\nx = jax.device_put(jnp.ones((8, 16)), P('data', None))\nlax.with_sharding_constraint(x, P('model'))",
    "NC808": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\nx = jnp.ones((8, 4))\njax.jit(lambda a: a * 2, in_shardings=P('data'))(x)",
    "NC809": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\nx = jax.device_put(jnp.ones((8, 16)), P('data', None))\nlax.scan(lambda c, _: (jax.sharding.reshard(c, P(None, 'model')), None), x, None, length=3)",
    "NC810": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\nx = jax.device_put(jnp.ones((8, 16)), P('data', None))\njax.shard_map(lambda v: v * 2, mesh=emesh, in_specs=P(), out_specs=P())(x)",
    "NC812": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\nother = jax.make_mesh((8,), ('x',))\nx = jax.device_put(jnp.ones((8, 4)), jax.sharding.NamedSharding(emesh, P('data')))\nwith jax.set_mesh(other):\n    y = x * 2",
    "NC813": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\nx = jax.device_put(jnp.ones((8, 16)), P(None, 'data'))\nw = jax.device_put(jnp.ones((16, 4)), P('data', None))\nu = jnp.dot(x, w, out_sharding=P(None, None, unreduced={'data'}))\nbad = u + 1",
    "NC811": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\ndef scale(x: f32[('8@data', 16)]) -> f32[('8@data', 16)]:\n    return x * 2\nscale(jnp.ones((8, 16)))",
    "NC821": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\nx = jax.device_put(jnp.ones((8, 16)), P('data', None))\njnp.cumsum(x, axis=0)",
    "NC822": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\nx = jax.device_put(jnp.ones((8, 16)), P('data', None))\njnp.pad(x, ((1, 0), (0, 0)))",
    "NC823": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\nx = jax.device_put(jnp.ones((8, 16)), P('data', None))\nlax.cond(True, lambda a: a * 2, lambda a: jax.sharding.reshard(a, P('model')), x)",
    "NC824": "amesh = jax.make_mesh((4, 2), ('data', 'model'), axis_types=(jax.sharding.AxisType.Auto,) * 2)\njax.set_mesh(amesh)\nx = jnp.ones((8, 16))\ny = jnp.dot(x, x.T, out_sharding=P('data'))",
    "NC825": "emesh = jax.make_mesh((4, 2), ('data', 'model'))\nx = jnp.ones((8, 16))\ny = lax.with_sharding_constraint(x, jax.sharding.NamedSharding(emesh, P('data')))",
    "NC826": "x = jnp.ones((8, 16))\ny = jax.device_put(x, P('data'))",
}

# code -> (line in the program, message, hint)
EXPECTED = {
    "NC001": (
        1,  # CPython's location and message (libcst's said line 2: where it gave up)
        "File does not parse: '(' was never closed",
        "make the file valid UTF-8 Python 3 source; only files that parse can be checked",
    ),
    "NC002": (
        1,
        "`# noqa` names NC201, which nothing reports on this line",
        "remove the code from the comment (`namedcheck check --fix` does), or move the comment to the first line "
        "of the diagnostic it is meant for",
    ),
    "NC003": (
        2,
        "Revealed type of `tokens` is `f32[Array, Dims(16, 64)]`",
        "remove the `reveal_type` / `reveal_locals` call once the type is known",
    ),
    "NC101": (
        1,
        "Named axes must be a dict {'name': size}; found a list ['batch', 8] after the positional shape (16,)",
        "named axes are a dict {'name': size}: write f32[(16,), {'batch': 8}]",
    ),
    "NC102": (
        1,
        "Negative size -1 in the positional shape; sizes are non-negative ints or symbols",
        "use a symbol such as 'N' for a size that is not known in advance",
    ),
    "NC103": (1, "Named axis 'batch' appears twice in the named shape", "name each axis once in a named shape"),
    "NC104": (
        1,
        "`...` or a variadic '*name' appears more than once in the positional shape; it may appear at most once",
        "keep a single `...`, standing for the leading dimensions",
    ),
    "NC105": (
        1,
        "Annotation part `seq` is not a literal; sizes and names must be written as ints and strings",
        "write a symbolic size as a string, e.g. f32[('N', 7)]",
    ),
    "NC201": (
        2,
        "Cannot broadcast positional shapes (128, 512) of `h` and (256,) of `b`: dimension -1 is 512 in `h` and 256 in `b`",
        "sizes must be equal or 1 when right-aligned; reshape or expand_dims one operand",
    ),
    "NC202": (
        2,
        "Named axis 'batch' has size 32 in `h` and size 16 in `g`",
        "a named axis has one size everywhere; named axes never stretch from size 1",
    ),
    "NC203": (
        2,
        "jnp.matmul contracts dimension 1 of `h` (size 512, shape (128, 512)) with dimension 0 of `w` (size 256, shape (256, 64)); the sizes must be equal",
        "transpose one operand, or check which axis should be contracted",
    ),
    "NC301": (
        2,
        "Positional shape mismatch: the return value is declared f32[(128, 256)] but inferred f32[(128, 512)]",
        "change the value or its annotation so that they agree",
    ),
    "NC302": (
        5,
        "Argument 'h' (`jnp.zeros(...)`) has positional shape (128, 256); `head` declares (128, 512)",
        "pass a value of the declared shape, or change the parameter's annotation",
    ),
    "NC303": (
        5,
        "Symbol 'D' of `gate` is bound to 4 by a dimension of argument 'a' (`jnp.zeros(...)`) and to 5 by a dimension of argument 'b' (`jnp.zeros(...)`)",
        "every use of 'D' in one call must have the same size",
    ),
    "NC304": (
        1,
        "Dtype mismatch: `ids` is declared i32[(8,)] but inferred f32[(8,)]",
        "convert the value with .astype(...), or change the annotation's dtype",
    ),
    "NC305": (
        4,
        "parameter 'kernel' of the model was made with shape (5, 1), but the layer applied here to these inputs makes "
        "it (3, 1) (flax raises ScopeParamShapeError)",
        "apply the model to inputs of the shape it was initialised with, or initialise (or build) it for these inputs",
    ),
    "NC401": (
        1,
        "xmap in_axes has 1 entry but the function is called with 2 arguments",
        "give one entry per argument (or a single entry for all of them)",
    ),
    "NC402": (
        1,
        "argument 0: in_axes maps positional axis 2 to 'batch', but the argument has 2 positional dimensions (8, 3)",
        "map each positional axis the argument has at most once, each to its own name",
    ),
    "NC403": (
        1,
        "Axis 'batch' has size 4 in argument 1 but 8 in argument 0",
        "pass arguments whose mapped axes have one size per name",
    ),
    "NC404": (
        1,
        "the result carries named axis 'batch', which out_axes does not place",
        "add 'batch' to out_axes, or reduce over it (e.g. psum) before returning",
    ),
    "NC405": (
        1,
        "out_axes ('batch', 'seq', ...) names 'seq', which neither in_axes nor axis_sizes defines (defined: 'batch')",
        "map 'seq' in in_axes, or give its size in axis_sizes",
    ),
    "NC406": (
        1,
        "axis_resources maps 'seq', which neither in_axes nor axis_sizes defines (defined: 'batch')",
        "assign resources only to names that in_axes or axis_sizes define",
    ),
    "NC407": (
        2,
        "argument 0: in_axes binds 'batch', which an enclosing map already binds",
        "use a fresh name for the inner map",
    ),
    "NC505": (
        1,
        "jax.make_mesh's mesh shape (-1, 2) has a negative size: it does not infer one from the device count "
        "(JAX raises 'Number of devices ... must equal the product of mesh_shape')",
        "compute the size from jax.device_count(), e.g. (jax.device_count() // 2, 2)",
    ),
    "NC204": (
        2,
        "`assert d_model % n_heads == 0` fails for the sizes that reach it: the program stops with an AssertionError here",
        "change the sizes that reach the assertion (the notes say where they are set), or the assertion",
    ),
    "NC205": (
        2,
        "`cfg` is the Python str 'dense', which has no attribute `width` (Python raises AttributeError)",
        "check the order of the arguments at the call that passed this value",
    ),
    "NC408": (
        3,
        "lax.scan: carry item 0 starts as f32[Array, Dims(2, 4)] but the body returns f32[Array, Dims(2, 8)]; a loop carry must keep its shape across iterations",
        "return carry item 0 with its initial shape (2, 4), or start it with the shape the body returns",
    ),
    "NC501": (
        1,
        "in_specs of shard_map: P('dta') names mesh axis 'dta', but the mesh has axes ('data', 'model')",
        "use one of 'data', 'model'",
    ),
    "NC502": (
        2,
        "Named axes 'a' and 'b' both appear in this value (f32[Array, Dims(a=4, b=4)]) but share mesh resource 'x' (axis_resources maps 'a' to 'x' and 'b' to 'x')",
        "reduce over 'a' or 'b' before they meet, or map them to different resources",
    ),
    "NC503": (
        2,
        "Named axis 'i' has size 6, not divisible by the 4 devices of its resources ('x',)",
        "pick a resource assignment whose size divides the axis size",
    ),
    "NC504": (
        1,
        "in_specs of shard_map: P(('data', 'data')) uses mesh axis 'data' more than once",
        "a mesh axis may split at most one dimension, once",
    ),
    "NC601": (
        5,
        "the result of shard_map varies over mesh axis 'data', but its out_specs P() leaves 'data' out (out_specs without an axis promise a value replicated over it); it is returned by `return v * 2`",
        "add 'data' to out_specs, or psum over 'data' before returning",
    ),
    "NC602": (
        2,
        "lax.fori_loop: the carry starts invariant over 'data' but the body returns it varying over 'data'; a loop carry must keep its varying set (inside the shard_map at line 14, whose in_specs=P('data') make its inputs vary)",
        "start from a varying carry: lax.pcast(init, ('data',), to='varying')",
    ),
    "NC603": (
        1,
        "lax.psum over ('data', 'model') of a value varying over ('data',) but invariant over ('model',); JAX rejects a partly varying input",
        "apply lax.pcast(x, ('model',), to='varying') first, or reduce over ('data',) only",
    ),
    "NC604": (
        1,
        "argument 0 of shard_map: dimension 0 has size 6, not divisible by the 4 devices of mesh axes ('data',) (P('data'), mesh {'data': 4, 'model': 2})",
        "make dimension 0 a multiple of 4, or split it over fewer mesh axes",
    ),
    "NC701": (2, "Axis 2 is out of range for jnp.sum of a value with 2 positional dimensions", "valid axes are -2..1"),
    "NC702": (
        2,
        "jnp.einsum 'n{k},{}->n' mentions named axis 'k' for another operand but skips it for `y`, which also has it",
        "add 'k' to the braces of that operand's term",
    ),
    "NC705": (
        2,
        "lax.psum names axis 'btach', which no enclosing map or mesh binds (bound here: 'batch')",
        "bind it with xmap/vmap(axis_name=...)/shard_map, or fix the name",
    ),
    "NC801": (
        5,
        "jnp.add got incompatible shardings for broadcasting: dimension 0 of `x` is split over mesh axis 'data' and of `y` over mesh axis 'model'",
        "jax.sharding.reshard one operand to the other's sharding first, e.g. reshard(y, P('data', None))",
    ),
    "NC802": (
        5,
        "jnp.matmul: contracting dimension 1 of `x` is split over mesh axis 'data' and dimension 0 of `w` over mesh axis 'data': it is ambiguous how the output should be sharded (f32[8,16@data] x f32[16@data,4])",
        "pass out_sharding=P(None, None) to jnp.matmul, or reshard one operand so that its contracting dimension is unsharded",
    ),
    "NC803": (
        5,
        "jnp.einsum: batch dimension 'b' is split over mesh axis 'data' in one operand and over mesh axis 'model' in the other",
        "reshard one operand so the batch dims agree",
    ),
    "NC804": (
        5,
        "jnp.matmul of f32[8@data,16] and f32[16,8@data] produces an illegally sharded result: dimensions 0 and 1 would both be split over mesh axis 'data' (P('data', 'data'))",
        "pass out_sharding= to the op, or jax.sharding.reshard an operand first",
    ),
    "NC805": (
        4,
        "jnp.reshape of argument 'a': f32[8@data,16] to (16, 8) is not supported for its sharding (the sharded dimension cannot be split or merged that way)",
        "pass out_sharding=P(...) to the reshape, or reshard the operand first",
    ),
    "NC806": (
        4,
        "jnp.take: the gather's out sharding cannot be resolved unambiguously: its indices `ids` are sharded (i32[8@data])",
        "index with x.at[ids].get(out_sharding=P(...)), or reshard the indices / operand to be unsharded there first",
    ),
    "NC807": (
        4,
        "with_sharding_constraint of x: with all mesh axes Explicit, with_sharding_constraint is an assertion, and the value's sharding P('data', None) (f32[8@data,16]) is not P('model', None)",
        "use jax.sharding.reshard(x, P('model', None)) to change the sharding",
    ),
    "NC808": (
        4,
        "argument 0 of jit(<lambda>): the sharding passed to jit, P('data', None), does not match the argument's committed sharding P(None, None) (f32[8,4])",
        "jax.device_put / reshard the argument to P('data', None) before the call, or drop in_shardings",
    ),
    "NC809": (
        4,
        "lax.scan: the carry enters as f32[8@data,16] and leaves the body as f32[8,16@model]: its sharding changes (P('data', None) -> P(None, 'model'))",
        "jax.sharding.reshard the body's carry output back to P('data', None)",
    ),
    "NC810": (
        4,
        "argument 0 of shard_map: in_specs P(None, None) does not match the argument's sharding P('data', None) (f32[8@data,16])",
        "leave in_specs out (shard_map takes the arguments' shardings), or reshard the argument to P(None, None) first",
    ),
    "NC812": (
        5,
        "jnp.multiply: `x` (f32[8@data,4]) is sharded over mesh {'data': 4, 'model': 2} (Explicit), but the context mesh set by jax.set_mesh is {'x': 8} (Explicit); JAX requires the two to match",
        "jax.sharding.reshard (or device_put) it onto the context mesh first, or run this under jax.set_mesh of its own mesh",
    ),
    "NC813": (
        6,
        "jnp.add: `u` (f32[8,4]) is unreduced over {'data'} while `1` is not: the add would need implicit communication",
        "jax.sharding.reshard the value (to a spec without unreduced=) first: that sums the partial results",
    ),
    "NC811": (
        5,
        "Argument 'x' (`jnp.ones(...)`) is sharded P(None, None) (f32[8,16]) but its annotation states P('data', None) (f32[8@data,16])",
        "jax.sharding.reshard the value to P('data', None), or correct the annotation",
    ),
    "NC821": (
        4,
        "jnp.cumsum accumulates along dimension 0 of `x`, which is split over mesh axis 'data' (f32[8@data,16]): the operand must be unsharded along it",
        "jax.sharding.reshard the operand so that dimension 0 is unsharded first: reshard(x, P(None, None))",
    ),
    "NC822": (
        4,
        "jnp.pad: pads dimension 0 of `x` (f32[8@data,16]) to size 9, which its 4 devices of mesh axis 'data' do not divide: JAX keeps the operand's sharding and does not implement an uneven one",
        "keep dimension 0 a multiple of 4, or reshard it unsharded first",
    ),
    "NC823": (
        4,
        "lax.cond: output 0 of branch 0 is f32[8@data,16] but of branch 1 f32[8@model,16]: branches must return outputs of equal types, sharding included",
        "jax.sharding.reshard branch 1's output to branch 0's sharding",
    ),
    "NC824": (
        4,
        "jnp.dot out_sharding=: P('data') names mesh axis 'data', which is Auto in mesh {'data': 4, 'model': 2} (Auto): a target sharding may name only Explicit axes",
        "leave 'data' out of the spec (the compiler places Auto axes), or make it Explicit (jax.sharding.explicit_axes, or axis_types= of the mesh)",
    ),
    "NC825": (
        3,
        "with_sharding_constraint: P('data') names mesh axis 'data', which is Explicit in mesh {'data': 4, 'model': 2} (Explicit): outside a context mesh whose axes are all Explicit, with_sharding_constraint takes only Auto axes",
        "use jax.sharding.reshard to give the value an Explicit sharding, or make the axis Auto",
    ),
    "NC826": (
        2,
        "device_put: P('data') is a bare PartitionSpec, which names axes of the context mesh, but no context mesh is set (this module calls no jax.set_mesh)",
        "pass jax.NamedSharding(mesh, P(...)) instead, or run this under jax.set_mesh(mesh)",
    ),
}


def test_every_code_has_a_pinned_message():
    assert set(EXPECTED) | {"NC000"} == set(CODES)


@pytest.mark.parametrize("code", sorted(EXPECTED))
def test_message_text(code):
    diags = [d for d in check_source(HEADER + PROGRAMS[code], "model.py", force=True) if d.code == code]
    assert diags, code
    line, message, hint = EXPECTED[code]
    assert (diags[0].line - HEADER.count("\n"), diags[0].message, diags[0].hint) == (line, message, hint)


def test_internal_error_message(monkeypatch):
    def boom(self):
        raise RecursionError

    monkeypatch.setattr(ModuleAnalyzer, "run", boom)
    [d] = check_source("import jax\n", "model.py", force=True)
    assert (d.code, d.line, d.message, d.hint) == (
        "NC000",
        1,
        "Internal error while analysing this file: the file nests too deeply for the analyzer "
        "(RecursionError); please report it with the file",
        "please report it with the file; `# namedcheck: ignore[NC000]` on the line silences it meanwhile",
    )


RUNTIME = [  # (program run under jax, error class, code, exact message, hint)
    (
        "xmap(lambda a, b: a, in_axes=(['i', ...],), out_axes=['i', ...])(x, x)",
        "AxisMappingError",
        "NC401",
        "xmap in_axes (['i', ...],) is not a pytree prefix of the arguments (array, array): 1 entry for 2 arguments",
        "give one axis mapping per array, or one mapping for a whole subtree",
    ),
    (
        "xmap(lambda a: a, in_axes='i', out_axes=['i', ...])(x)",
        "AxisMappingError",
        "NC401",
        "xmap in_axes: cannot read 'i' as an axis mapping: expected a list or a dict",
        "write ['i', ...] to map the leading axis to 'i'",
    ),
    (
        "xmap(lambda a: a, in_axes={0: 'i', 1: 'i'}, out_axes=['i', ...])(x)",
        "XmapError",
        "NC402",
        "xmap in_axes: axis name 'i' appears twice in one mapping ({0: 'i', 1: 'i'})",
        "give each mapped positional axis its own name",
    ),
    (
        "f32[(16,), ['batch', 8]]",
        "AnnotationError",
        "NC101",
        "Named axes must be a dict {'name': size}; found a list ['batch', 8] after the positional shape (16,)",
        "named axes are a dict {'name': size}: write f32[(16,), {'batch': 8}]",
    ),
]


@pytest.mark.parametrize(("program", "cls", "code", "message", "hint"), RUNTIME, ids=[r[0][:40] for r in RUNTIME])
def test_runtime_message_text(program, cls, code, message, hint):
    jnp = pytest.importorskip("jax.numpy")
    import namedcheck
    from namedcheck import f32, xmap

    with pytest.raises(Exception) as info:
        eval(program, {"xmap": xmap, "f32": f32, "x": jnp.ones((4, 3))})
    e = info.value
    assert type(e).__name__ == cls and isinstance(e, getattr(namedcheck, cls, Exception))
    assert (getattr(e, "code", None), e.message if hasattr(e, "message") else str(e), e.hint) == (code, message, hint)


INTERNAL_REPR = re.compile(
    r"\b(Const|Seq|ArrayType|AxisMapping|AxisEnv|Spec|MeshInfo|PyTreeDef|DimVal|DtypeRef|Pairs|"
    r"QualRef|FuncRef|MappedRef|ShardingVal|MeshVal)\(|\bUnknown\b|<[\w.]+ object at 0x"
)


def test_no_message_in_the_corpus_prints_an_internal_repr():
    root = Path(__file__).resolve().parent.parent
    files = sorted([*(root / "tests" / "cases").glob("*.py"), *(root / "examples").rglob("*.py")])
    leaks = [
        (p.name, d.line, d.message, d.hint)
        for p in files
        for d in check_source(p.read_text(), str(p), force=True)
        if INTERNAL_REPR.search(f"{d.message} {d.hint}")
    ]
    assert not leaks


DIMS_HEADER = "import jax.numpy as jnp\nfrom jax import Array\nfrom namedcheck import Dims, f32\n\n\n"


def test_types_print_as_the_annotation_is_written():
    """A message prints a type in the spelling its annotation is written in (the inferred type beside it too);
    a type no annotation states prints in the Dims spelling (NC408 above)."""
    program = "def head(h: f32[Array, Dims(128, 512)]) -> f32[Array, Dims(128, 256)]:\n    return h * 2\n"
    [d] = [d for d in check_source(DIMS_HEADER + program, "model.py", force=True) if d.code == "NC301"]
    assert d.message == (
        "Positional shape mismatch: the return value is declared f32[Array, Dims(128, 256)] but inferred "
        "f32[Array, Dims(128, 512)]"
    )
    literal = "def head(h: f32[(128, 512)]) -> f32[(128, 256)]:\n    return h * 2\n"
    [d] = [d for d in check_source(DIMS_HEADER + literal, "model.py", force=True) if d.code == "NC301"]
    assert "declared f32[(128, 256)] but inferred f32[(128, 512)]" in d.message


def test_runtime_errors_print_the_dims_spelling():
    jnp = pytest.importorskip("jax.numpy")
    from namedcheck import ShapeError

    ns: dict[str, object] = {}
    exec(  # (this module's annotations are strings: the function is defined where its names are)
        DIMS_HEADER + "from namedcheck import checked\n\n\n@checked\n"
        "def head(h: f32[Array, Dims(128, 512)]) -> f32[Array, Dims(128, 256)]:\n    return h * 2\n",
        ns,
    )
    head = ns["head"]
    with pytest.raises(ShapeError) as info:
        head(jnp.ones((128, 5)))
    assert str(info.value) == (
        "[NC302] head: parameter 'h' expects f32[Array, Dims(128, 512)], got f32[Array, Dims(128, 5)]: Argument 'h' "
        "has positional shape (128, 5); head declares (128, 512) (hint: pass a value of the declared shape, or change "
        "the parameter's annotation)"
    )
    with pytest.raises(ShapeError) as info:
        head(jnp.ones((128, 512)))
    assert info.value.message == (
        "head: Positional shape mismatch: the result is declared f32[Array, Dims(128, 256)] but inferred "
        "f32[Array, Dims(128, 512)]"
    )
