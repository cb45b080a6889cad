"""Every diagnostic code as one object (`Code`, a `str`): its title, its `namedcheck explain` text (what, wrong,
right), its default fix hint and the name of its automatic fixer, if any; each also a module constant (`NC203`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class Code(str):
    """A diagnostic code: the string itself (`"NC203"`, so comparisons, JSON and the result cache see a plain code)
    with its title, `namedcheck explain` text, wrong / right examples, default fix hint, and the name of the fixer
    that `namedcheck/edits/fixes.py` registers for it (None: no automatic fix)."""

    title: str  # type: ignore[assignment]  # shadows str.title(): a code's title is its one-line name
    explanation: str
    wrong: str
    right: str
    hint: str | None
    fix: str | None
    severity: str  # "error", or "note" for what the user asked to see (never fails a run)

    def __new__(
        cls,
        code: str,
        title: str,
        explanation: str,
        wrong: str,
        right: str,
        hint: str | None = None,
        fix: str | None = None,
        severity: str = "error",
    ) -> Code:
        self = super().__new__(cls, code)
        self.title, self.explanation, self.wrong, self.right, self.hint, self.fix = (
            title,
            explanation,
            wrong,
            right,
            hint,
            fix,
        )
        self.severity = severity
        return self

    @property
    def code(self) -> str:
        return str(self)

    def __reduce__(self) -> tuple[Any, ...]:  # pickled (worker processes) as the registered code of that name
        return (_registered, (str(self),))


_E = "emesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.set_mesh(emesh)\n"  # NC8xx examples: Explicit axes

_CODES: list[Code] = [
    Code(
        "NC000",
        "internal error",
        "namedcheck failed while analysing this file. The rest of the run goes on; please report it "
        "with the file that triggers it.",
        "",
        "",
        hint="please report it with the file; `# namedcheck: ignore[NC000]` on the line silences it meanwhile",
    ),
    Code(
        "NC001",
        "file does not parse",
        "The file is not valid Python 3 syntax, so nothing in it can be checked. The same code says a file "
        "was not checked for another reason given in the message: it cannot be read (not a regular file, "
        "no permission: the run exits 2), it is larger than max-file-size, it nests deeper than the analyzer's "
        "limit, or the process checking it crashed. A file whose analysis ran past its time-budget or "
        "memory-budget keeps what was found before and gets one NC001 at line 1 saying the rest is unchecked.",
        "def f(x:\n    return x\n",
        "def f(x):\n    return x\n",
        hint="make the file valid UTF-8 Python 3 source; only files that parse can be checked",
    ),
    Code(
        "NC002",
        "unused suppression",
        "A suppression comment names a namedcheck code that nothing reports on its line: `# noqa: NC201`, "
        "`# type: ignore[NC201]` or `# namedcheck: ignore[NC2]` where no NC201 (no NC2xx) is found. A "
        "diagnostic is silenced by a comment on its first line; bare `# noqa` and `# type: ignore` silence "
        "every code and another tool's codes (`E501`, `attr-defined`) are never judged. A line is judged only "
        "where its file was analysed in full: not in a file cut short by a budget, nor inside a function of a "
        "module that other project modules import (their calls may be what the comment is for).",
        "x = jnp.ones((2, 3))  # noqa: NC201\n",
        "x = jnp.ones((2, 3))\n",
        hint="remove the code from the comment (`namedcheck check --fix` does), or move the comment to the "
        "first line of the diagnostic it is meant for",
        fix="fix_nc002",
    ),
    Code(
        "NC003",
        "revealed type",
        "A note, not an error: `reveal_type(x)` shows the type namedcheck infers for `x` (dtype, shape, named "
        "axes, sharding) and `reveal_locals()` the types of the names bound in the current scope, as mypy and "
        "pyright do. Written bare (a type checker's builtin) or imported from `typing` / `typing_extensions`, "
        "where `reveal_type` returns its argument at run time. A function analysed on its own and at its calls "
        "shows one type per analysis. Notes never fail a run; remove the call when done.",
        "x = jnp.zeros((3, 4))\nreveal_type(x)  # note: Revealed type is `f32[Array, Dims(3, 4)]`\n",
        "x = jnp.zeros((3, 4))\n",
        hint="remove the `reveal_type` / `reveal_locals` call once the type is known",
        severity="note",
    ),
    Code(
        "NC101",
        "malformed annotation",
        "An array annotation is `dtype[Array, Dims(dims..., name=size)]`: the array type, then one `Dims(...)` "
        "holding the positional sizes in order and the named axes as keywords. The literal spelling "
        "`dtype[(dims...), {'name': size}]` (a tuple of sizes, then an optional dict of named axes) is read alike.",
        "x: f32[Array, 5]",
        "x: f32[Array, Dims(5)]",
        hint="write `dtype[Array, Dims(dims..., name=size)]`, e.g. f32[Array, Dims(5, 7, batch=20)]",
    ),
    Code(
        "NC102",
        "invalid size in annotation",
        "A size is a non-negative int or a symbol (an identifier string).",
        "x: f32[Array, Dims(-1, 7)]",
        "x: f32[Array, Dims('N', 7)]",
        hint="write a size as a non-negative int or a symbol such as 'N'",
    ),
    Code(
        "NC103",
        "named axis repeated in annotation",
        "Each axis name appears once in a named shape; named axes are unordered. Python itself rejects a "
        "keyword repeated in `Dims(b=2, b=3)`; the literal spelling's dict, or `**{...}`, can repeat one.",
        "x: f32[(), {'b': 2, 'b': 3}]",
        "x: f32[Array, Dims(b=2)]",
        hint="name each axis once in a named shape",
    ),
    Code(
        "NC104",
        "more than one `...` in a shape",
        "`...` (or a variadic `'*name'`) stands for any number of leading dimensions and may appear at most once.",
        "x: f32[Array, Dims(..., 3, ...)]",
        "x: f32[Array, Dims(..., 3)]",
        hint="keep a single `...`, standing for the leading dimensions",
    ),
    Code(
        "NC105",
        "annotation part is not a literal",
        "Sizes and axis names must be written literally so they can be checked before the program runs.",
        "x: f32[Array, Dims(n, 7)]",
        "x: f32[Array, Dims('n', 7)]",
        hint="write sizes as ints or quoted symbols ('N') and axis names as strings",
    ),
    Code(
        "NC201",
        "positional broadcasting mismatch",
        "Positional shapes broadcast right-aligned: each pair of sizes must be equal or one of them 1.",
        "a: f32[Array, Dims(3, 4)]\nb: f32[Array, Dims(5)]\na + b",
        "a: f32[Array, Dims(3, 4)]\nb: f32[Array, Dims(4)]\na + b",
        hint="make the right-aligned sizes equal or 1 (reshape, transpose or expand_dims one operand)",
    ),
    Code(
        "NC202",
        "named axis size conflict",
        "Named axes broadcast by name: the result carries every name of every operand, and a name must "
        "have one size everywhere. There is no size-1 stretching of named axes.",
        "x: f32[Array, Dims(b=4)]\ny: f32[Array, Dims(b=8)]\nx + y",
        "x: f32[Array, Dims(b=4)]\ny: f32[Array, Dims(c=8)]\nx + y  # f32[Array, Dims(b=4, c=8)]",
        hint="give the named axis one size everywhere; named axes never stretch from size 1",
    ),
    Code(
        "NC203",
        "op shape rule violated",
        "An op's own shape rule: contraction sizes of dot / matmul / tensordot / einsum, element counts "
        "of reshape, matching sizes for concatenate / stack, no more indices than dimensions (an index past "
        "the end is clamped by JAX, not raised: not reported), an einops composite axis "
        "`(h d)` that its dimension's size must equal or divide. Also what an op's "
        "arguments must be: an array cannot be indexed by a string (a dict of parameters was meant), and "
        "a `jax.random` sampler or `split` takes a key, not a Python number, a dict or non-uint32 data; "
        "both usually mean two swapped arguments.",
        "x: f32[Array, Dims(3, 4)]\ny: f32[Array, Dims(5, 6)]\njnp.dot(x, y)",
        "x: f32[Array, Dims(3, 4)]\ny: f32[Array, Dims(4, 6)]\njnp.dot(x, y)",
        hint="make the sizes fit the op's shape rule (contracted sizes equal, element counts equal, no more indices than dimensions)",
    ),
    Code(
        "NC204",
        "the program's own assertion fails",
        "An `assert` whose condition is false for the sizes the analysis knows (`assert cfg.D % cfg.H == 0` with "
        "D = 512 and H = 9): the program stops with an AssertionError there. Reported only where the assertion "
        "runs on every path (not under a condition), so the sizes are the ones that reach it.",
        "def attention(d_model: int = 512, heads: int = 9):\n    assert d_model % heads == 0\n\n\nattention()",
        "def attention(d_model: int = 512, heads: int = 8):\n    assert d_model % heads == 0\n\n\nattention()",
        hint="change the sizes that reach the assertion (the notes say where they are set), or the assertion",
    ),
    Code(
        "NC205",
        "attribute of a Python number or string",
        "An attribute read on a value the analysis knows to be a Python `str`, `int` or `float` that such values do "
        "not have (`cfg.fsdp_enabled` where `cfg` is the string `'embedding'`, `x.ndim` where `x` is the int 4): "
        "Python raises AttributeError. It usually means two arguments swapped at the call that passed the value "
        "(a note names it).",
        "def init(name, cfg):\n    return cfg.width\n\n\ninit(8, 'dense')",
        "def init(name, cfg):\n    return len(name)\n\n\ninit('dense', 8)",
        hint="check the order of the arguments at the call that passed this value",
    ),
    Code(
        "NC301",
        "value does not match its declared type",
        "An annotated assignment or a return whose inferred type differs from the annotation: "
        "positional sizes, rank or named axes.",
        "def f(x: f32[Array, Dims(3)]) -> f32[Array, Dims(4)]:\n    return x",
        "def f(x: f32[Array, Dims(3)]) -> f32[Array, Dims(3)]:\n    return x",
        hint="change the value or its annotation so that they agree",
    ),
    Code(
        "NC302",
        "argument does not match parameter annotation",
        "An argument's positional shape must match the parameter's, and every named axis the parameter "
        "declares must be present with its size. Extra named axes are lifted through the call "
        "(vmap semantics) and appear on the result.",
        "def g(x: f32[Array, Dims(3)]) -> f32[Array, Dims()]: ...\ny: f32[Array, Dims(4)]\ng(y)",
        "def g(x: f32[Array, Dims(3)]) -> f32[Array, Dims()]: ...\ny: f32[Array, Dims(3)]\ng(y)",
        hint="pass a value of the declared shape, or change the parameter's annotation",
    ),
    Code(
        "NC303",
        "symbol bound to two sizes",
        "A symbol in a signature is bound at the call and must have one size across all parameters.",
        "def g(x: f32[Array, Dims('N')], y: f32[Array, Dims('N')]) -> f32[Array, Dims()]: ...\ng(jnp.zeros(3), jnp.zeros(4))",
        "def g(x: f32[Array, Dims('N')], y: f32[Array, Dims('N')]) -> f32[Array, Dims()]: ...\ng(jnp.zeros(3), jnp.zeros(3))",
        hint="pass arguments that give each symbol one size",
    ),
    Code(
        "NC304",
        "dtype mismatch",
        "The inferred dtype clearly differs from the declared one (JAX promotion rules, weak Python "
        "scalars included; 32/64-bit pairs are not told apart since x64 is usually off).",
        "x: i32[Array, Dims(3)] = jnp.zeros(3)",
        "x: f32[Array, Dims(3)] = jnp.zeros(3)",
        hint="convert the value with .astype(...), or change the annotation's dtype",
    ),
    Code(
        "NC305",
        "parameters made for another shape",
        "A flax linen model's parameters are made by `init` for the inputs it is given (a Dense kernel is "
        "(input features, features)). `apply` with those parameters on inputs of another width, or on a model "
        "built with other sizes, makes layers expecting parameters of other shapes: flax raises "
        "ScopeParamShapeError. Parameters whose origin the checker did not see (a checkpoint) are not checked.",
        "import flax.linen as nn\nmodel = nn.Dense(1)\nvariables = model.init(jax.random.key(0), jnp.ones((2, 5)))\n"
        "model.apply(variables, jnp.ones((2, 3)))",
        "import flax.linen as nn\nmodel = nn.Dense(1)\nvariables = model.init(jax.random.key(0), jnp.ones((2, 5)))\n"
        "model.apply(variables, jnp.ones((2, 5)))",
        hint="apply the model to inputs of the shape it was initialised with, or initialise it for these inputs",
    ),
    Code(
        "NC401",
        "xmap / vmap in_axes or out_axes structure mismatch",
        "in_axes must mirror the arguments (and out_axes the results) as a pytree prefix: one axis mapping "
        "per array, or one mapping for a whole subtree. vmap / pmap in_axes is an int, None, or a tuple with one "
        "entry per positional argument (keyword arguments are always mapped over axis 0).",
        "f = xmap(lambda a, b: a + b, in_axes=(['i', ...],), out_axes=['i', ...])\nf(jnp.ones(3), jnp.ones(3))",
        "f = xmap(lambda a, b: a + b, in_axes=(['i', ...], ['i', ...]), out_axes=['i', ...])\n"
        "f(jnp.ones(3), jnp.ones(3))",
        hint="give one axis mapping per argument (in_axes) or result (out_axes), or one mapping for a whole subtree",
    ),
    Code(
        "NC402",
        "bad axis mapping",
        "An axis mapping names a positional axis the argument does not have, maps one positional axis twice, "
        "or repeats a name. For vmap / pmap also: an axis mapped in a scalar (a Python number or a 0-d array), "
        "a call that leaves out one of the function's parameters (or passes too many), and a "
        "static_broadcasted_argnums argument that is not hashable (an array, a list).",
        "xmap(lambda a: a, in_axes={2: 'i'}, out_axes=['i', ...])(jnp.ones(3))",
        "xmap(lambda a: a, in_axes={0: 'i'}, out_axes=['i', ...])(jnp.ones(3))",
        hint="map each positional axis the argument has at most once, each to its own name",
    ),
    Code(
        "NC403",
        "one mapped axis, two sizes",
        "Every argument (and axis_sizes) must agree on the size of a name an xmap or vmap binds.",
        "xmap(lambda a, b: a * b, in_axes=(['i', ...], ['i', ...]), out_axes=['i', ...])(jnp.ones(5), jnp.ones(7))",
        "xmap(lambda a, b: a * b, in_axes=(['i', ...], ['i', ...]), out_axes=['i', ...])(jnp.ones(5), jnp.ones(5))",
        hint="pass arguments whose mapped axes have one size per name",
    ),
    Code(
        "NC404",
        "a result carries a named axis missing from out_axes",
        "Every named axis an xmap binds that is still present on a result must be placed by out_axes; "
        "reduce over it (psum, sum with the name) if it should not be.",
        "xmap(lambda a: a * 2, in_axes=['i', ...], out_axes=[...])(jnp.ones(4))",
        "xmap(lambda a: lax.psum(a * 2, 'i'), in_axes=['i', ...], out_axes=[...])(jnp.ones(4))",
        hint="add the name to out_axes, or reduce over it (e.g. psum) before returning",
        fix="fix_nc404",
    ),
    Code(
        "NC405",
        "out_axes names an axis this xmap does not define",
        "out_axes may only place names the same xmap binds through in_axes or axis_sizes.",
        "xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', 'j', ...])(jnp.ones((4, 2)))",
        "xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', ...])(jnp.ones((4, 2)))",
        hint="place only names this xmap binds through in_axes or axis_sizes",
    ),
    Code(
        "NC406",
        "axis_resources names an undefined axis",
        "axis_resources may only assign resources to names this xmap defines (in_axes or axis_sizes).",
        "xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', ...], axis_resources={'k': 'x'})(jnp.ones(4))",
        "xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', ...], axis_resources={'i': 'x'})(jnp.ones(4))",
        hint="assign resources only to names that in_axes or axis_sizes define",
    ),
    Code(
        "NC407",
        "a nested map re-binds an enclosing name",
        "A name bound by an enclosing xmap / vmap cannot be bound again inside it.",
        "def inner(v):\n    return xmap(lambda w: w, in_axes=['i', ...], out_axes=['i', ...])(v)\n"
        "xmap(inner, in_axes=['i', ...], out_axes=['i', ...])(jnp.ones((2, 3)))",
        "def inner(v):\n    return xmap(lambda w: w, in_axes=['j', ...], out_axes=['j', ...])(v)\n"
        "xmap(inner, in_axes=['i', ...], out_axes=['i', ...])(jnp.ones((2, 3)))",
        hint="use a fresh name for the inner map",
    ),
    Code(
        "NC408",
        "loop carry changes its type",
        "A `lax.scan` / `fori_loop` / `while_loop` body must return its carry with the type it received: the same "
        "pytree structure (None, tuple, list, dict keys, NamedTuple / dataclass fields) and, leaf by leaf, the same "
        "shape and dtype. JAX raises a TypeError at trace time otherwise. A carry that starts as a Python scalar "
        "(weakly typed) may take the dtype the body returns; the checker stays silent there. A `while_loop`'s "
        "cond_fun must return a boolean scalar.",
        "lax.scan(lambda c, x: (c[None], x), jnp.zeros(3), jnp.ones((4, 2)))",
        "lax.scan(lambda c, x: (c * 2, x), jnp.zeros(3), jnp.ones((4, 2)))",
        hint="return the carry with the shape, dtype and structure of its initial value",
    ),
    Code(
        "NC501",
        "unknown mesh axis",
        "axis_resources, a PartitionSpec or a collective names a mesh axis the mesh in scope does not have: shard_map "
        "specs, `NamedSharding(mesh, P(...))`, and a bare `P(...)` given to `jit(in_shardings=/out_shardings=)`, "
        "`device_put`, `with_sharding_constraint` or `reshard` under the mesh in scope.",
        "jax.shard_map(lambda v: v, mesh=mesh, in_specs=P('z'), out_specs=P('z'))(jnp.ones(8))",
        "jax.shard_map(lambda v: v, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones(8))",
        hint="use an axis of the mesh in scope, or add the axis to the mesh",
        fix="fix_name",
    ),
    Code(
        "NC502",
        "named axes sharing a resource co-occur",
        "Two named axes mapped to the same mesh axis can never both appear in one value's named shape: "
        "the devices cannot hold both splits. Reduce one of them away before they meet.",
        "def both(a: f32[Array, Dims(a=4)], b: f32[Array, Dims(b=4)]) -> f32[Array, Dims()]:\n"
        "    return jnp.sum(a + b, axis=('a', 'b'))\n"
        "with Mesh(np.array(jax.devices()[:4]), ('x',)):\n"
        "    xmap(both, in_axes=(['a', ...], ['b', ...]), out_axes=[...], axis_resources={'a': 'x', 'b': 'x'})"
        "(jnp.ones(4), jnp.ones(4))",
        "def both(a: f32[Array, Dims(a=4)], b: f32[Array, Dims(b=4)]) -> f32[Array, Dims()]:\n"
        "    return jnp.sum(a, axis='a') + jnp.sum(b, axis='b')\n"
        "with Mesh(np.array(jax.devices()[:4]), ('x',)):\n"
        "    xmap(both, in_axes=(['a', ...], ['b', ...]), out_axes=[...], axis_resources={'a': 'x', 'b': 'x'})"
        "(jnp.ones(4), jnp.ones(4))",
        hint="reduce one of the two axes away before they meet, or map them to different mesh axes",
    ),
    Code(
        "NC503",
        "axis size not divisible by its resources",
        "A named axis split over mesh axes must have a size divisible by their total device count.",
        "with Mesh(np.array(jax.devices()[:4]), ('x',)):\n"
        "    xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', ...], axis_resources={'i': 'x'})(jnp.ones(6))",
        "with Mesh(np.array(jax.devices()[:4]), ('x',)):\n"
        "    xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', ...], axis_resources={'i': 'x'})(jnp.ones(8))",
        hint="make the axis size a multiple of the device count, or split it over fewer mesh axes",
    ),
    Code(
        "NC504",
        "mesh axis repeated in one mapping or PartitionSpec",
        "A resource assignment or a PartitionSpec may use each mesh axis once (shard_map specs, "
        "`NamedSharding(mesh, P(...))`, and specs given to jit shardings, `with_sharding_constraint` and `reshard`).",
        "jax.shard_map(lambda v: v, mesh=mesh, in_specs=P(('x', 'x')), out_specs=P('x'))(jnp.ones(8))",
        "jax.shard_map(lambda v: v, mesh=mesh, in_specs=P(('x', 'y')), out_specs=P(('x', 'y')))(jnp.ones(8))",
        hint="use each mesh axis at most once in one mapping or PartitionSpec",
    ),
    Code(
        "NC505",
        "mesh or map does not fit the device count",
        "With the run's device count known (`[tool.namedcheck] devices`, the program's own "
        "`XLA_FLAGS=--xla_force_host_platform_device_count=N`, or a mesh that lays out every device), a mesh "
        "built from the devices must fit it: `mesh_utils.create_device_mesh(shape)` needs the shape's product "
        "to equal the count, `jax.make_mesh(shape, names)` at most the count, and neither infers a -1. pmap "
        "maps its leading axis one index per device: a size larger than the count raises.",
        "# devices = 8 in [tool.namedcheck]\njax.pmap(lambda v: v * 2)(jnp.ones((16, 4)))",
        "# devices = 8 in [tool.namedcheck]\njax.pmap(lambda v: v * 2)(jnp.ones((8, 4)))",
        hint="size meshes and pmapped batches from jax.device_count()",
    ),
    Code(
        "NC601",
        "shard_map output varies over an axis its out_specs leaves out",
        "Leaving a mesh axis out of out_specs promises the output is the same on every device along it. A value "
        "that varies over the axis breaks that promise: add the axis to out_specs or psum over it "
        "(or pass check_vma=False if the value is replicated in a way JAX cannot see).",
        "jax.shard_map(lambda v: v * 2, mesh=mesh, in_specs=P('x'), out_specs=P())(jnp.ones(8))",
        "jax.shard_map(lambda v: lax.psum(v * 2, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())(jnp.ones(8))",
        hint="add the axis to out_specs, or psum over it before returning",
        fix="fix_nc601",
    ),
    Code(
        "NC602",
        "loop carry or branch outputs vary over different axes",
        "A scan / fori_loop / while_loop carry must keep its varying set through the body, and lax.cond branches "
        "must return outputs varying over the same axes. Cast the invariant side with "
        "lax.pcast(..., to='varying').",
        "def body(v):\n    return lax.fori_loop(0, 3, lambda i, c: c + v, jnp.zeros(v.shape))\n"
        "jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones(8))",
        "def body(v):\n"
        "    init = lax.pcast(jnp.zeros(v.shape), ('x',), to='varying')\n"
        "    return lax.fori_loop(0, 3, lambda i, c: c + v, init)\n"
        "jax.shard_map(body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones(8))",
        hint="cast the invariant side with lax.pcast(..., axes, to='varying')",
        fix="fix_nc602",
    ),
    Code(
        "NC603",
        "collective rejected for its input's varying set",
        "With JAX's default auto-pcast, psum / pmean over a tuple of axes reject a value that varies over only "
        "some of them, and pcast(..., to='varying') rejects a value already varying over the axes; with "
        "`jax_auto_pcast` off (`jax.config.update`), psum / pmean also reject a value invariant over an axis.",
        "jax.shard_map(lambda v: lax.psum(v, ('x', 'y')), mesh=mesh, in_specs=P('x'), out_specs=P())(jnp.ones(8))",
        "jax.shard_map(lambda v: lax.psum(v, 'x'), mesh=mesh, in_specs=P('x'), out_specs=P())(jnp.ones(8))",
        hint="cast the input with lax.pcast(..., to='varying') first, or reduce only over the axes it varies over",
    ),
    Code(
        "NC604",
        "bad shard_map or sharding spec",
        "An in_spec / out_spec is longer than the array's rank, names a mesh axis that is not manual here "
        "(axis_names=), or splits a dimension not divisible by its mesh axes, or the specs do not match the "
        "arguments' structure. The same rank and divisibility rule applies to a sharding placed on a value: "
        "`jax.device_put(x, sharding)`, `jax.jit(f, in_shardings=..., out_shardings=...)` (arguments where "
        "the function is called, results at `out_shardings=`), `with_sharding_constraint` (rank only: under "
        "jit it pads an uneven dimension), `reshard` and creation ops' `out_sharding=` / `device=` (extra "
        "trailing None entries are accepted there).",
        "jax.shard_map(lambda v: v, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones(6))",
        "jax.shard_map(lambda v: v, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones(8))",
        hint="give one spec per argument, no longer than its rank, splitting only dimensions its mesh axes divide",
    ),
    Code(
        "NC701",
        "axis argument out of range",
        "A reduction, collective or axis-taking op names a positional axis the value does not have.",
        "x: f32[Array, Dims(3, 4)]\njnp.sum(x, axis=2)",
        "x: f32[Array, Dims(3, 4)]\njnp.sum(x, axis=1)",
        hint="use an axis within the value's rank (negative axes count from the end)",
    ),
    Code(
        "NC702",
        "einsum spec error",
        "A named einsum spec (`'n{b,k},{k,m}->n{b,m}'`) is malformed, its letters do not match the "
        "operands' ranks, or it mentions a named axis for one operand that has it while skipping it for "
        "another operand that also has it. Also an einops pattern (`rearrange`, `reduce`, `repeat`, `einsum`, "
        "`pack`, `unpack`) einops rejects whatever the sizes are: an axis on one side only, an axis twice, a new "
        "axis without its size, a rank the pattern does not have.",
        "x: f32[Array, Dims(5, b=2, k=7)]\ny: f32[Array, Dims(k=7)]\njnp.einsum('n{k},{}->n', x, y)",
        "x: f32[Array, Dims(5, b=2, k=7)]\ny: f32[Array, Dims(k=7)]\njnp.einsum('n{k},{k}->n', x, y)",
        hint="match the spec's letters to the operands' ranks and mention a named axis for every operand that has it",
    ),
    Code(
        "NC705",
        "axis name bound by nothing",
        "A collective or named reduction names an axis no enclosing map (xmap, vmap axis_name, shard_map) or mesh "
        "binds, nor the named axes of the function's own parameter annotations. Code the module runs outside any "
        "map (its statements and what they call, jitted or not) and the body of a vmap / pmap without that "
        "axis_name bind nothing else; a function only analysed on its own is silent (it may run under a map).",
        "def f(x: f32[Array, Dims(3, batch=8)]) -> f32[Array, Dims(3)]:\n    return lax.psum(x, 'btach')",
        "def f(x: f32[Array, Dims(3, batch=8)]) -> f32[Array, Dims(3)]:\n    return lax.psum(x, 'batch')",
        hint="bind the name with an enclosing xmap, vmap(axis_name=...) or shard_map, or fix its spelling",
        fix="fix_name",
    ),
    # NC8xx: JAX's sharding rules over Explicit mesh axes (engine/ops/, `@sharding_rule`). The examples run
    # with `emesh = jax.make_mesh((4, 2), ('data', 'model'))` (Explicit axes) set by `jax.set_mesh`.
    Code(
        "NC801",
        "operands' shardings conflict",
        "Under Explicit mesh axes an array's sharding is part of its type. Elementwise ops merge their operands' "
        "shardings dimension by dimension and reject a dimension split over two different mesh axes; "
        "`jnp.where` of equal shapes (lax.select), `concatenate` and `stack` need identical shardings.",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\n"
        "y = jax.device_put(jnp.ones((8, 16)), P('model', None))\nx + y",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\n"
        "y = jax.device_put(jnp.ones((8, 16)), P(None, 'model'))\nx + y",
        hint="reshard one operand (jax.sharding.reshard) so that each dimension is split over one mesh axis",
    ),
    Code(
        "NC802",
        "contracting dimension sharded on both operands",
        "dot / matmul / einsum whose contracting dimension is split over mesh axes on both operands: it is "
        "ambiguous how the result is sharded. Pass `out_sharding=`, or reshard one operand (one side sharded "
        "is accepted).",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P(None, 'data'))\n"
        "w = jax.device_put(jnp.ones((16, 4)), P('data', None))\nx @ w",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P(None, 'data'))\n"
        "w = jax.device_put(jnp.ones((16, 4)), P('data', None))\njnp.matmul(x, w, out_sharding=P('data'))",
        hint="pass out_sharding= to the contraction, or reshard one operand so only one side is split",
        fix="fix_nc802",
    ),
    Code(
        "NC803",
        "batch dimensions sharded differently",
        "A batch dimension of a contraction is split over different mesh axes in its two operands.",
        _E
        + "a = jax.device_put(jnp.ones((4, 8, 16)), P('data'))\nb = jax.device_put(jnp.ones((4, 16, 2)), P('model'))\n"
        "jnp.einsum('bij,bjk->bik', a, b)",
        _E
        + "a = jax.device_put(jnp.ones((4, 8, 16)), P('data'))\nb = jax.device_put(jnp.ones((4, 16, 2)), P('data'))\n"
        "jnp.einsum('bij,bjk->bik', a, b)",
        hint="reshard one operand so that its batch dimensions are split like the other's",
    ),
    Code(
        "NC804",
        "result would use one mesh axis twice",
        "The result's sharding, as the op's rule computes it, splits two dimensions over the same mesh axis "
        "(an outer product of two arrays sharded over one axis, a sum of arrays sharded over one axis on "
        "different dimensions).",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\n"
        "w = jax.device_put(jnp.ones((16, 8)), P(None, 'data'))\nx @ w",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\n"
        "w = jax.device_put(jnp.ones((16, 8)), P(None, 'model'))\nx @ w",
        hint="pass out_sharding=, or reshard an operand so the result uses each mesh axis once",
    ),
    Code(
        "NC805",
        "reshape not supported for the operand's sharding",
        "Under Explicit axes a reshape of a sharded array may move size-1 dims, split one dimension (its mesh "
        "axes going to the major parts, each dividing its part) or merge dimensions of which only the leading "
        "ones are sharded; anything else needs `out_sharding=` or a reshard first.",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\nx.reshape(16, 8)",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\nx.reshape(4, 2, 16)",
        hint="pass out_sharding= to the reshape, or reshard the operand before reshaping",
        fix="fix_nc805",
    ),
    Code(
        "NC806",
        "gather needs an out sharding",
        "`jnp.take`, `x[ids]` or `x.at[ids].get()` with indices sharded over a mesh axis (even from an unsharded "
        "array), or along a sharded dimension, cannot resolve its output sharding: index with "
        "`x.at[ids].get(out_sharding=...)` or reshard first. Outside jit (module-level code and the functions it "
        "calls directly), `x[0]` or `x[:4]` of a sharded dimension is such a gather too (under jit a divisible "
        "slice is not).",
        _E + "ids = jax.device_put(jnp.arange(8), P('data'))\njnp.take(jnp.ones((10, 16)), ids, axis=0)",
        _E + "ids = jnp.arange(8)\njnp.take(jnp.ones((10, 16)), ids, axis=0)",
        hint="index with x.at[ids].get(out_sharding=...), or reshard the indices or the table first",
    ),
    Code(
        "NC807",
        "with_sharding_constraint asserts a different sharding",
        "When every mesh axis is Explicit, `with_sharding_constraint` does not move data: it asserts that the "
        "value already has the given sharding. Use `jax.sharding.reshard` to change it.",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\nlax.with_sharding_constraint(x, P('model'))",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\njax.sharding.reshard(x, P('model'))",
        hint="use jax.sharding.reshard to change a sharding; with_sharding_constraint only asserts it here",
        fix="fix_nc807",
    ),
    Code(
        "NC808",
        "jit in_shardings differ from a committed argument's",
        "An array placed with a sharding (device_put, reshard) or made by jnp under `jax.set_mesh` is committed "
        "to it; `jax.jit(f, in_shardings=...)` rejects it when the shardings differ.",
        _E + "x = jnp.ones((8, 4))\njax.jit(lambda a: a * 2, in_shardings=P('data'))(x)",
        _E + "x = jax.device_put(jnp.ones((8, 4)), P('data'))\njax.jit(lambda a: a * 2, in_shardings=P('data'))(x)",
        hint="reshard the argument to the jit's in_shardings first, or change in_shardings",
    ),
    Code(
        "NC809",
        "loop carry changes its sharding",
        "A `lax.scan` / `fori_loop` / `while_loop` carry must keep its type, sharding included: the body "
        "returns the carry with a different sharding than it entered with.",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\n"
        "lax.scan(lambda c, _: (jax.sharding.reshard(c, P(None, 'model')), None), x, None, length=3)",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\n"
        "lax.scan(lambda c, _: (c * 2, None), x, None, length=3)",
        hint="reshard the body's carry output back to the sharding the carry entered with",
        fix="fix_nc809",
    ),
    Code(
        "NC810",
        "shard_map in_specs differ from an argument's sharding",
        "Over an Explicit mesh, shard_map's in_specs must state each argument's own sharding (or be left out, "
        "and shard_map takes them from the arguments); a `jnp` array made under `jax.set_mesh` is replicated.",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\n"
        "jax.shard_map(lambda v: v * 2, mesh=emesh, in_specs=P(), out_specs=P())(x)",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\n"
        "jax.shard_map(lambda v: v * 2, mesh=emesh, in_specs=P('data'), out_specs=P('data'))(x)",
        hint="state the argument's own sharding in in_specs, or leave in_specs out",
    ),
    Code(
        "NC811",
        "sharding differs from the annotation's",
        "An annotation may state a sharding by naming the Explicit mesh axes that split each dimension, as JAX "
        "prints types: `f32[Array, Dims('8@data', 4)]` is `float32[8@data,4]`, every "
        "dimension written without `@` unsplit. A value whose sharding is known and differs (an argument, an "
        "annotated assignment, a returned value) is reported; `@checked` compares with `jax.typeof(x)`.",
        _E + "def f(x: f32[Array, Dims('8@data', 4)]) -> f32[Array, Dims('8@data', 4)]:\n    return x * 2\n"
        "f(jnp.ones((8, 4)))",
        _E + "def f(x: f32[Array, Dims('8@data', 4)]) -> f32[Array, Dims('8@data', 4)]:\n    return x * 2\n"
        "f(jax.device_put(jnp.ones((8, 4)), P('data')))",
        hint="jax.sharding.reshard the value to the annotation's sharding, or correct the annotation",
        fix="fix_nc811",
    ),
    Code(
        "NC812",
        "array used under another mesh",
        "An array sharded over Explicit axes carries its mesh (axis names, sizes and types). Under `jax.set_mesh` "
        "JAX applies an op only to arrays of the context mesh (one made by `jnp` under an earlier `set_mesh` "
        "included), and never to operands of two different meshes. `reshard` / `device_put` move an array; a "
        "legacy `with mesh:` sets no context mesh.",
        _E + "other = jax.make_mesh((8,), ('x',))\nx = jax.device_put(jnp.ones((8, 4)), P('data'))\n"
        "with jax.set_mesh(other):\n    y = x * 2",
        _E + "other = jax.make_mesh((8,), ('x',))\nx = jax.device_put(jnp.ones((8, 4)), P('data'))\n"
        "with jax.set_mesh(other):\n    y = jax.sharding.reshard(x, P('x')) * 2",
        hint="reshard or device_put the array onto the context mesh first, or run the op under its own mesh",
    ),
    Code(
        "NC813",
        "unreduced value used where JAX needs it reduced",
        "A contraction given `out_sharding=P(..., unreduced={'x'})` (its contracting dimensions split over 'x' alike "
        "on both sides, and only those axes) leaves a partial sum on each device (`{U:x}`). JAX lets an add of two "
        "such values, a product with a value `reduced` over 'x', sums, transposes, reshapes keep it unreduced; "
        "a contraction of it, a product of two, an add or product with a plain value, and ops without an unreduced "
        "rule (sin, mean, subtract, ...) are errors. `jax.sharding.reshard` reduces it.",
        _E
        + "x = jax.device_put(jnp.ones((8, 16)), P(None, 'data'))\nw = jax.device_put(jnp.ones((16, 4)), P('data', None))\n"
        "u = jnp.dot(x, w, out_sharding=P(None, None, unreduced={'data'}))\nu * 2",
        _E
        + "x = jax.device_put(jnp.ones((8, 16)), P(None, 'data'))\nw = jax.device_put(jnp.ones((16, 4)), P('data', None))\n"
        "u = jnp.dot(x, w, out_sharding=P(None, None, unreduced={'data'}))\njax.sharding.reshard(u, P(None, None)) * 2",
        hint="jax.sharding.reshard the unreduced value first (that sums the partial results)",
    ),
    Code(
        "NC821",
        "op along a sharded dimension",
        "A cumulative reduction (`cumsum`, `cumprod`, `lax.cummax`, ...), a sort (`sort`, `argsort`, `lax.sort`) "
        "or `lax.top_k` along a dimension split over mesh axes is rejected, and so is one over the flattened array "
        "(axis=None) of a sharded operand; `jnp.tile` of a sharded dimension and `jnp.repeat` along one need "
        "`out_sharding=` or a reshard first. `jnp.linalg`'s `inv`, `det`, `pinv` and `cholesky` take their matrix "
        "dimensions unsharded (`inv` and `cholesky` their batch dimensions too).",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\njnp.cumsum(x, axis=0)",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\njnp.cumsum(x, axis=1)",
        hint="reshard the operand so that the dimension the op runs along is unsharded, or pass out_sharding=",
    ),
    Code(
        "NC823",
        "cond / switch branches return different shardings",
        "`lax.cond` and `lax.switch` need their branches to return outputs of equal types, and under Explicit "
        "mesh axes the sharding is part of the type.",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\n"
        "lax.cond(True, lambda a: a * 2, lambda a: jax.sharding.reshard(a, P('model')), x)",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\n"
        "lax.cond(True, lambda a: a * 2, lambda a: a + 1, x)",
        hint="reshard one branch's output to the other's sharding",
    ),
    Code(
        "NC824",
        "target sharding names an Auto axis",
        "`jax.sharding.reshard` and an op's `out_sharding=` state an Explicit sharding: every mesh axis they name "
        "must be Explicit in the sharding's mesh (a bare `P(...)` takes the context mesh's types, where "
        "`auto_axes` makes its axes Auto). Auto axes are the compiler's to place; use `with_sharding_constraint` "
        "for them.",
        "amesh = jax.make_mesh((4, 2), ('data', 'model'), axis_types=(jax.sharding.AxisType.Auto,) * 2)\n"
        "jax.set_mesh(amesh)\njax.sharding.reshard(jnp.ones((8, 16)), P('data'))",
        "amesh = jax.make_mesh((4, 2), ('data', 'model'), axis_types=(jax.sharding.AxisType.Auto,) * 2)\n"
        "jax.set_mesh(amesh)\njax.jit(lambda v: lax.with_sharding_constraint(v, P('data')))(jnp.ones((8, 16)))",
        hint="leave the Auto axis out of the spec, or make it Explicit",
    ),
    Code(
        "NC825",
        "with_sharding_constraint names an Explicit axis",
        "Unless every axis of the context mesh (`jax.set_mesh`) is Explicit, `with_sharding_constraint` is a "
        "constraint for the compiler and takes only Auto axes: a sharding naming an Explicit axis of its mesh "
        "(one made by `jax.make_mesh`, whose axes are Explicit unless `axis_types=` says otherwise) is rejected, "
        "under a legacy `with mesh:` and with no context mesh too. `jax.sharding.reshard` gives a value an "
        "Explicit sharding.",
        "emesh = jax.make_mesh((4, 2), ('data', 'model'))\n"
        "lax.with_sharding_constraint(jnp.ones((8, 16)), jax.NamedSharding(emesh, P('data')))",
        "emesh = jax.make_mesh((4, 2), ('data', 'model'))\n"
        "jax.sharding.reshard(jnp.ones((8, 16)), jax.NamedSharding(emesh, P('data')))",
        hint="use jax.sharding.reshard for an Explicit sharding, or make the axis Auto",
        fix="fix_nc825",
    ),
    Code(
        "NC826",
        "PartitionSpec with no mesh in context",
        "A bare `P(...)` names mesh axes of the context mesh, and JAX raises where none is set: `device_put`, "
        "`reshard`, an op's `out_sharding=` and a call of `jax.jit(f, in_shardings=P(...))` need `jax.set_mesh` "
        "(a legacy `with mesh:` is not enough); `with_sharding_constraint` accepts a legacy `with mesh:` too. "
        "Reported in module-level code of a module that sets no context mesh anywhere.",
        "mesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.device_put(jnp.ones((8, 16)), P('data'))",
        "mesh = jax.make_mesh((4, 2), ('data', 'model'))\njax.device_put(jnp.ones((8, 16)), jax.NamedSharding(mesh, "
        "P('data')))",
        hint="pass jax.NamedSharding(mesh, P(...)), or run it under jax.set_mesh(mesh)",
    ),
    Code(
        "NC822",
        "result dimension not divisible by its mesh axes",
        "Padding or slicing a sharded dimension keeps its mesh axes, and JAX does not implement a sharding its "
        "devices do not divide evenly: the new size must stay a multiple of the mesh axes' size (an int index, "
        "a slice of length 1, counts as such a slice under jit; outside jit it is a gather, NC806).",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\njnp.pad(x, ((1, 0), (0, 0)))",
        _E + "x = jax.device_put(jnp.ones((8, 16)), P('data', None))\njnp.pad(x, ((2, 2), (0, 0)))",
        hint="keep the sharded dimension's new size a multiple of its mesh axes' size, or reshard it unsharded first",
    ),
]

CODES: dict[str, Code] = {c.code: c for c in _CODES}


def _registered(code: str) -> Code | str:
    return CODES.get(code, code)


# Each code as a constant, for `RuleError(NC203, ...)`.
NC000 = CODES["NC000"]
NC001 = CODES["NC001"]
NC002 = CODES["NC002"]
NC003 = CODES["NC003"]
NC101 = CODES["NC101"]
NC102 = CODES["NC102"]
NC103 = CODES["NC103"]
NC104 = CODES["NC104"]
NC105 = CODES["NC105"]
NC201 = CODES["NC201"]
NC202 = CODES["NC202"]
NC203 = CODES["NC203"]
NC204 = CODES["NC204"]
NC205 = CODES["NC205"]
NC301 = CODES["NC301"]
NC302 = CODES["NC302"]
NC303 = CODES["NC303"]
NC304 = CODES["NC304"]
NC305 = CODES["NC305"]
NC401 = CODES["NC401"]
NC402 = CODES["NC402"]
NC403 = CODES["NC403"]
NC404 = CODES["NC404"]
NC405 = CODES["NC405"]
NC406 = CODES["NC406"]
NC407 = CODES["NC407"]
NC408 = CODES["NC408"]
NC501 = CODES["NC501"]
NC502 = CODES["NC502"]
NC503 = CODES["NC503"]
NC504 = CODES["NC504"]
NC505 = CODES["NC505"]
NC601 = CODES["NC601"]
NC602 = CODES["NC602"]
NC603 = CODES["NC603"]
NC604 = CODES["NC604"]
NC701 = CODES["NC701"]
NC702 = CODES["NC702"]
NC705 = CODES["NC705"]
NC801 = CODES["NC801"]
NC802 = CODES["NC802"]
NC803 = CODES["NC803"]
NC804 = CODES["NC804"]
NC805 = CODES["NC805"]
NC806 = CODES["NC806"]
NC807 = CODES["NC807"]
NC808 = CODES["NC808"]
NC809 = CODES["NC809"]
NC810 = CODES["NC810"]
NC811 = CODES["NC811"]
NC812 = CODES["NC812"]
NC813 = CODES["NC813"]
NC821 = CODES["NC821"]
NC823 = CODES["NC823"]
NC822 = CODES["NC822"]
NC824 = CODES["NC824"]
NC825 = CODES["NC825"]
NC826 = CODES["NC826"]


def matches(code: str, patterns: list[str] | tuple[str, ...]) -> bool:
    """Whether a code is selected by any prefix pattern (`NC2` selects NC201, NC202, ...)."""
    return any(code.startswith(p.strip().upper()) for p in patterns if p.strip())


# ---- fix hints, rule families and help links (every output format carries them) ---------------

#: What to do about a code, for a diagnostic whose rule gives no more specific hint (each code's `hint`).
DEFAULT_HINTS: dict[str, str] = {c: c.hint for c in _CODES if c.hint}

#: The rule family of each code prefix (SARIF tags).
FAMILIES: dict[str, str] = {
    "NC0": "input",
    "NC1": "annotation",
    "NC2": "shape",
    "NC3": "signature",
    "NC4": "named-map",
    "NC5": "mesh-resources",
    "NC6": "shard-map",
    "NC7": "axes",
    "NC8": "sharding-types",
}

#: The reference that ships with the package: `namedcheck/docs` is the checkout's `docs/` (a link, as
#: `namedcheck/stubs` is `stubs/`), installed as package data; one heading per code in codes.md (`#nc202`).
#: No web address: namedcheck has no published repository or documentation site.
CODES_MD = Path(__file__).resolve().parent.parent / "docs" / "codes.md"


def default_hint(code: str) -> str | None:
    """The code's generic fix hint (None for an unknown code)."""
    c = CODES.get(code)
    return c.hint if c is not None else None


def family(code: str) -> str:
    """The rule family a code belongs to (`NC202` -> `shape`)."""
    return FAMILIES.get(code[:3], "other")


def help_uri(code: str) -> str | None:
    """A `file:` URI of the code's section in the installed docs/codes.md (`...#nc202`), which resolves on the
    machine that ran the check; None where that file is missing (a package installed without its data)."""
    try:
        path = CODES_MD.resolve()
        if not path.is_file():
            return None
    except OSError:
        return None
    return f"{path.as_uri()}#{code.lower()}"


def help_text(code: str, markdown: bool = False) -> str:
    """`namedcheck explain CODE` as plain text or markdown (title, explanation, wrong and right examples)."""
    c = CODES[code]
    if not markdown:
        parts = [f"{c.code}: {c.title}", c.explanation]
        parts += [
            f"{label}:\n" + "\n".join("    " + ln for ln in src.splitlines())
            for label, src in (("Wrong", c.wrong), ("Right", c.right))
            if src
        ]
        if c.hint:
            parts.append(f"Fix: {c.hint}.")
        return "\n\n".join(parts)
    parts = [f"**{c.code}: {c.title}**", c.explanation]
    parts += [
        f"{label}:\n\n```python\n{src.rstrip()}\n```" for label, src in (("Wrong", c.wrong), ("Right", c.right)) if src
    ]
    if c.hint:
        parts.append(f"Fix: {c.hint}.")
    return "\n\n".join(parts)


def codes_markdown() -> str:
    """docs/codes.md: one section per code, anchored by the code (`#nc202`), as SARIF's helpUri links it."""
    out = [
        "# Diagnostic codes",
        "",
        "Generated from `namedcheck/engine/codes.py` (`python -m namedcheck.cli.output --codes-md > docs/codes.md`); "
        "`namedcheck explain CODE` prints the same text. The examples assume `import jax`, "
        "`import jax.numpy as jnp`, `import numpy as np`, `from jax import Array, lax`, "
        "`from jax.sharding import Mesh, PartitionSpec as P` and `from namedcheck import Dims, f32, i32, xmap`.",
        "",
    ]
    for c in _CODES:
        out += [f"## {c.code}", "", help_text(c.code, markdown=True), ""]
    return "\n".join(out)
