"""The op table: every op keyed by its public name, with its signature and its shape rule.

Two tiers, as in JAX: declarative signatures live in `stubs/*.pyi`; ops whose result depends on
argument values (axis=, shapes, specs) have a procedural rule registered here by name, or a rule
family (elementwise, ...) named by a decorator in the stub.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from namedcheck.engine.codes import NC203
from namedcheck.engine.errors import RuleError, Unprovable, rule_bug
from namedcheck.engine.maps import EMPTY_ENV, AxisEnv, Spec, check_cooccurrence, tree_leaves, union_varying
from namedcheck.engine.ops.core import (
    MISSING,
    RULE,
    UNKNOWN_INPUT,
    Call,
    Op,
    OpRecord,
    Param,
    Rule,
    family,
    rule,
    sharding_rule,
    vma_rule,
    with_varying,
)
from namedcheck.engine.ops.registry import lookup
from namedcheck.engine.ops.unreduced import contraction_out, through
from namedcheck.engine.signature import NORMAL, POSONLY, apply, bind
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, DimVal, DtypeRef, Seq


def run(
    op: Op,
    args: tuple[Any, ...] | list[Any],
    kwargs: dict[str, Any],
    labels: tuple[str, ...] = (),
    kwlabels: dict[str, str] | None = None,
    env: AxisEnv = EMPTY_ENV,
) -> Any:
    """Infer an op call's result. Raises RuleError for a provable violation; Unknown otherwise. A rule's own
    failure (anything but RuleError, Unprovable, NotLiteral) is a bug: under `errors.strict()` it propagates,
    otherwise it becomes an NC000 RuleError, reported at the call like any other."""
    try:
        return _run(op, args, kwargs, labels, kwlabels, env)
    except RuleError:
        raise
    except Exception as e:  # the rule's own failure: a bug, never silence
        raise rule_bug(op.name, e) from e


def _run(
    op: Op,
    args: tuple[Any, ...] | list[Any],
    kwargs: dict[str, Any],
    labels: tuple[str, ...],
    kwlabels: dict[str, str] | None,
    env: AxisEnv,
) -> Any:
    bound = bind(op.signature.params, args, kwargs)
    if bound is None:
        return UNKNOWN
    values, extra = bound
    names = [p.name for p in op.signature.params]
    lab = {names[i]: labels[i] for i in range(min(len(names), len(labels))) if labels[i]}
    lab.update(kwlabels or {})
    n_pos = len([p for p in op.signature.params if p.kind in (POSONLY, NORMAL)])
    lab.update({f"*{i}": text for i, text in enumerate(labels[n_pos:]) if text})  # varargs (`*operands`), by index
    inputs = [*args, *kwargs.values()]
    # outside shard_map nothing varies, whatever the inputs are
    # (a creation from sizes is invariant whatever its dtype argument is)
    exact = not env.manual or op.name in _STATIC_CREATION or not any(opaque(v) for v in inputs)
    call = Call(op.name, values, extra, lab, dict(op.options), env, exact)
    vin = union_varying(inputs)
    if "out_sharding" in call.args:
        from namedcheck.engine.ops.sharding_common import check_out_sharding_axes

        check_out_sharding_axes(call)
    try:
        if op.rule is None:
            result = apply(op.signature, values, code=NC203, labels=lab)
        else:
            result = op.rule(call)
        result = _vma(op, call, vin, result)
    except UNKNOWN_INPUT:
        # An input not known well enough (or of a kind the rule does not model): the shape is Unknown,
        # but inside shard_map the varying set still follows (JAX's rules hold whatever the shapes).
        return partial_result(op.name, call, vin, inputs)
    result = _partial_parts(result, inputs, exact)
    check_cooccurrence(result, env)
    return _sharded(op, call, inputs, result)


def _unknown_out_sharding(call: Call) -> bool:
    v = call.args.get("out_sharding")
    if v is None or (isinstance(v, Const) and v.value is None) or isinstance(v, Spec):
        return False
    return not isinstance(getattr(v, "spec", None), Spec)


def _sharded(op: Op, call: Call, inputs: list[Any], result: Any) -> Any:
    """The result's sharding over Explicit mesh axes from the op's sharding rule (`@sharding_rule`, beside its
    shape rule in the family module); unknown without a rule, inside shard_map, or when no input's sharding is
    known."""
    if (
        isinstance(result, Seq)
        and result.items
        and all(isinstance(i, ArrayType) for i in result.items)
        and len({len(i.shape) for i in result.items}) == 1
        and op.record.sharding is not None
    ):
        # ops returning arrays of one shape (top_k's values and indices) share the first one's sharding
        first = _sharded(op, call, inputs, result.items[0])
        return Seq(
            tuple(i.with_sharding(first.sharding) if i.sharding != first.sharding else i for i in result.items),
            result.kind,
        )
    if not isinstance(result, ArrayType):
        return result
    if _unknown_out_sharding(call):  # `out_sharding=spec` the checker cannot evaluate: the result's is unknown
        return result.with_sharding(None)
    mesh = None if call.env.manual else _operands_mesh(op, call, result)
    fn = op.sharding_rule
    known = any(isinstance(leaf, ArrayType) and leaf.sharding is not None for v in inputs for leaf in tree_leaves(v))
    shd = None
    # inside shard_map only the non-manual Explicit axes of a partly-Manual one are in the types
    manual = bool(call.env.manual) and (call.env.mesh is None or set(call.env.mesh.names) <= call.env.manual)
    if not manual and any(
        isinstance(leaf, ArrayType) and (leaf.unreduced or leaf.reduced) for v in inputs for leaf in tree_leaves(v)
    ):

        def rule() -> Any:
            try:
                return fn(call, result) if fn is not None and not result.has_ellipsis else None
            except UNKNOWN_INPUT:
                return None

        return through(op, call, result, rule)
    if (
        fn is not None
        and not manual
        and not result.has_ellipsis
        and (known or "out_sharding" in call.args and not call.env.manual)
    ):
        try:
            shd = fn(call, result)
        except UNKNOWN_INPUT:
            shd = None
        if shd is not None and len(shd) != len(result.shape):
            shd = None
    out = result.with_sharding(shd, mesh) if shd != result.sharding or mesh != result.mesh else result
    if shd is not None and "out_sharding" in call.args:  # `out_sharding=P(..., unreduced={...})`
        out = contraction_out(op.name, call, out)
    return out


# Ops that bind no primitive on their operand (the identity on real arrays, or a new array of its shape), and
# shaping ops that are the identity when the shape does not change: JAX checks no mesh there.
_NO_PRIMITIVE = {
    "jax.numpy.conj",
    "jax.numpy.conjugate",
    "jax.numpy.positive",
    "jax.numpy.real",
    "jax.lax.stop_gradient",
    "jax.device_put",
    "jax.numpy.asarray",
    "jax.numpy.array",
}
# `zeros_like(x)` keeps x's sharding and mesh; run eagerly under `set_mesh` of another mesh JAX places it on
# x's mesh, under jit it broadcasts onto x's sharding and checks that mesh against the context's (NC812)
_LIKE = {f"jax.numpy.{n}_like" for n in ("zeros", "ones", "empty", "full")}
_IDENTITY_IF_SAME_SHAPE = {
    f"jax.numpy.{n}" for n in ("transpose", "swapaxes", "permute_dims", "reshape", "squeeze", "concatenate", "moveaxis")
}


_LIKE_RESHAPED = ("shape", "device", "out_sharding")


def _operands_mesh(op: Op, call: Call, result: ArrayType) -> Any:
    """The operands' common mesh (NC812 when two differ, or one differs from `jax.set_mesh`'s) for an op that
    binds a primitive on them (the ops with a sharding rule and the elementwise family)."""
    from namedcheck.engine.placement import check_meshes

    if op.name in _LIKE:
        a = call.args.get("a")
        if not isinstance(a, ArrayType) or a.mesh is None or any(k in call.args for k in _LIKE_RESHAPED):
            return None
        return (
            a.mesh
            if call.env.eager
            else check_meshes([(call.label("a"), a)], call.env.mesh if call.env.mesh_set else None, call.short)
        )
    if op.name in _NO_PRIMITIVE or op.sharding_rule is None:
        return None
    arrays = [
        (call.label(n), leaf) for n, v in call.args.items() for leaf in tree_leaves(v) if isinstance(leaf, ArrayType)
    ]
    if not any(t.mesh is not None for _, t in arrays):
        return None
    if op.name in _IDENTITY_IF_SAME_SHAPE and len(arrays) == 1 and arrays[0][1].shape == result.shape:
        return None
    return check_meshes(arrays, call.env.mesh if call.env.mesh_set else None, call.short)


def _vma(op: Op, call: Call, vin: frozenset[str], result: Any) -> Any:
    vma = op.record.vma
    if vma is not None:
        return with_varying(result, vma(call, vin, result))
    return with_varying(result, vin) if vin else result


def opaque(v: Any) -> bool:
    """An input the engine knows nothing of (it may be an array varying over anything)."""
    if v is UNKNOWN:
        return True
    if isinstance(v, ArrayType):
        return not v.vary_exact
    if isinstance(v, Seq):
        return any(opaque(i) for i in v.items)
    return False


def _partial_parts(result: Any, inputs: list[Any], exact: bool) -> Any:
    """A result computed from partly known inputs is itself partly known: named axes an input may
    have unlisted stay possible, and a varying set computed from opaque inputs is a lower bound."""
    open_named = any(isinstance(leaf, ArrayType) and leaf.named_open for v in inputs for leaf in tree_leaves(v))
    if not (open_named or not exact):
        return result
    if isinstance(result, Seq):
        return Seq(tuple(_partial_parts(i, inputs, exact) for i in result.items), result.kind)
    if isinstance(result, ArrayType):
        return replace(result, named_open=result.named_open or open_named, vary_exact=result.vary_exact and exact)
    return result


_ARANGE = "jax.numpy.arange"
_STATIC_CREATION = {
    "jax.numpy.zeros",
    "jax.numpy.ones",
    "jax.numpy.empty",
    "jax.numpy.eye",
    "jax.numpy.identity",
    _ARANGE,
}


def partial_result(name: str, call: Call, vin: frozenset[str], inputs: list[Any]) -> Any:
    """What an op gives when its shape is not known: inside shard_map (manual axes in scope), an array
    of unknown shape whose varying set follows the op's VMA rule; elsewhere Unknown."""
    if not call.env.manual:
        return UNKNOWN
    if name in _STATIC_CREATION:  # shapes are static: the result is invariant whatever they are
        dt = call.args.get("dtype", MISSING)
        code = dt.code if isinstance(dt, DtypeRef) else "f32" if dt is MISSING and name != _ARANGE else None
        return ArrayType.partial(frozenset(), True, code)
    if not any(isinstance(leaf, ArrayType) for v in inputs for leaf in tree_leaves(v)):
        return UNKNOWN
    vma = lookup(name).vma
    try:
        varying = vma(call, vin, UNKNOWN) if vma is not None else vin
    except UNKNOWN_INPUT:
        return UNKNOWN
    return ArrayType.partial(varying, exact=call.exact)


# Public modules whose functions are compositions of primitives following JAX's standard VMA rule
# (the union of the inputs' varying sets), apart from the names below.
_STANDARD_MODULES = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.random.", "jax.scipy.", "jax.image.")
_NOT_STANDARD = (
    "psum",
    "pmean",
    "pmax",
    "pmin",
    "all_gather",
    "all_to_all",
    "ppermute",
    "pshuffle",
    "pbroadcast",
    "pswapaxes",
    "pcast",
    "pvary",
    "axis_index",
    "axis_size",
    "ragged",
    "scatter",
    "collective",
    "map",
    "scan",
    "loop",
    "cond",
    "switch",
    "custom",
    "callback",
    "debug",
    "checkpoint",
    "remat",
    "vectorize",
    "reduce",
    "associative",
    "sharding",
    "reshard",
    "device_put",
    "eval_shape",
)


# ...and functions that return Python values (dtypes, shapes, flags), not arrays.
_NOT_ARRAYS = {
    "dtype",
    "issubdtype",
    "finfo",
    "iinfo",
    "shape",
    "size",
    "ndim",
    "result_type",
    "promote_types",
    "can_cast",
    "isscalar",
    "iscomplexobj",
    "isrealobj",
    "broadcast_shapes",
    "Precision",
    "canonicalize_dtype",
}


def unmodelled(name: str, args: list[Any], kwargs: dict[str, Any], env: AxisEnv = EMPTY_ENV) -> Any:
    """An op without a rule: inside shard_map, an array of unknown shape varying over the union of
    its inputs' varying sets (exactly, when every input is known); otherwise Unknown."""
    if not env.manual or not name.startswith(_STANDARD_MODULES):
        return UNKNOWN
    short = name.rpartition(".")[2]
    if any(w in short for w in _NOT_STANDARD) or short in _NOT_ARRAYS:
        return UNKNOWN
    inputs = [*args, *kwargs.values()]
    leaves = [leaf for v in inputs for leaf in tree_leaves(v)]
    known_kinds = (ArrayType, Const, DimVal, DtypeRef)
    if not any(isinstance(leaf, ArrayType) for leaf in leaves) or any(
        leaf is not UNKNOWN and not isinstance(leaf, known_kinds) for leaf in leaves
    ):
        return UNKNOWN  # no array input, or a function / object input (its body may hold collectives)
    return ArrayType.partial(union_varying(inputs), exact=not any(opaque(v) for v in inputs))


def _load_rules() -> None:
    from namedcheck.engine.ops import (  # noqa: F401
        collectives,
        comparisons,
        conv,
        creation,
        einops_rules,
        einsum,
        elementwise,
        indexing,
        lax_ops,
        layers,
        linalg,
        nn,
        reductions,
        shaping,
        slicing,
        transforms,
        unreduced,
    )


_load_rules()

__all__ = [
    "Call",
    "Op",
    "OpRecord",
    "Param",
    "RULE",
    "Rule",
    "rule",
    "family",
    "vma_rule",
    "sharding_rule",
    "run",
    "unmodelled",
    "with_varying",
    "RuleError",
    "Unprovable",
    "MISSING",
    "UNKNOWN_INPUT",
]
