"""optax as a JAX user meets it: an optimizer (`optax.adam(1e-3)`, `optax.chain(...)`, `optax.MultiSteps(...)`,
`optax.inject_hyperparams(optax.adamw)(...)`) is a value whose `init(params)` is a state mirroring the parameters
and whose `update(grads, state, params)` gives updates shaped like `grads` (optax's transformations keep every
leaf's shape) and the next state; `optax.apply_updates(params, updates)` adds them leaf by leaf, as
`p + u` cast to `p`'s dtype (NC201 where a pair does not broadcast); a schedule called with a step has the step's shape
(`constant_schedule(v)` is `v`). The state's own structure (moments, counters, `hyperparams`) is not modelled:
reading it is Unknown. A transformation written by the program (`optax.GradientTransformation(init, update)`,
`optax.stateless(f)`, `multi_transform`) is not modelled either."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import libcst as cst

from namedcheck.analyzer import equinox, origins
from namedcheck.analyzer.refs import InstanceRef, PartialRef, QualRef
from namedcheck.engine.algebra import broadcast_shapes
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import X64
from namedcheck.engine.trees import map_leaves
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, Seq, join

# optax's builders of a GradientTransformation from sizes and rates alone: each keeps the updates' shapes
# (listed from optax 0.2.8; the monitoring ones that return something else, `measure_with_ema` and
# `snapshot`, and the ones built from the program's functions are left out)
BUILDERS = frozenset(
    """adabelief adadelta adafactor adagrad adam adamax adamaxw adamw adan adaptive_grad_clip add_decayed_weights
    add_noise amsgrad apply_every centralize clip clip_by_block_rms clip_by_global_norm ema freeze fromage identity
    keep_params_nonnegative lamb lars lbfgs lion noisy_sgd normalize_by_update_norm novograd optimistic_adam
    optimistic_adam_v2 optimistic_gradient_descent polyak_sgd radam rmsprop rprop scale scale_by_adadelta
    scale_by_adam scale_by_adamax scale_by_adan scale_by_amsgrad scale_by_backtracking_linesearch scale_by_belief
    scale_by_distance_over_gradients scale_by_lbfgs scale_by_learning_rate scale_by_lion scale_by_novograd
    scale_by_optimistic_gradient scale_by_param_block_norm scale_by_param_block_rms scale_by_polyak scale_by_radam
    scale_by_rms scale_by_rprop scale_by_rss scale_by_schedule scale_by_sign scale_by_sm3 scale_by_stddev
    scale_by_trust_ratio scale_by_yogi scale_by_zoom_linesearch set_to_zero sgd sign_sgd signum sm3 trace yogi
    zero_nans""".split()
)
# wrappers of one inner transformation (its first argument, or this keyword): the result keeps its shapes
WRAPPERS = {"MultiSteps": "opt", "masked": "inner", "apply_if_finite": "inner", "flatten": "inner"}
WRAPPERS |= {"with_extra_args_support": "tx"}
SCHEDULES = frozenset(
    """cosine_decay_schedule cosine_onecycle_schedule exponential_decay join_schedules linear_onecycle_schedule
    linear_schedule piecewise_constant_schedule piecewise_interpolate_schedule polynomial_schedule sgdr_schedule
    warmup_constant_schedule warmup_cosine_decay_schedule warmup_exponential_decay_schedule""".split()
)
# where optax's public names are defined and re-exported (optax's own code and tests call them there)
_MODULES = frozenset(
    """optax optax.schedules optax.transforms optax._src.alias optax._src.base optax._src.linesearch
    optax._src.transform optax._src.update optax._src.combine optax._src.wrappers optax._src.clipping
    optax._src.constrain optax._src.schedule optax.schedules._inject optax.schedules._join optax.schedules._schedule
    optax.transforms._accumulation optax.transforms._adding optax.transforms._clipping optax.transforms._combining
    optax.transforms._conditionality optax.transforms._constraining optax.transforms._freezing
    optax.transforms._layouts optax.transforms._masking""".split()
)
_METHOD = "optax.GradientTransformation."
_SCHEDULE_VALUE = "optax.schedules.value"
_CONSTANT_VALUE = "optax.schedules.constant_value"


@dataclass(frozen=True, slots=True)
class Optimizer:
    """An optax GradientTransformation the checker models (`optax.adam(1e-3)`): who built it."""

    name: str

    def __repr__(self) -> str:
        return f"<optax {self.name}>"

    def join_with(self, other: Any) -> Any:
        """Two optimizers (`adam` on one branch, `sgd` on the other) both keep the updates' shapes."""
        return Optimizer("one of several") if isinstance(other, Optimizer) else UNKNOWN


@dataclass(frozen=True, slots=True)
class OptState:
    """An optimizer's state (`tx.init(params)`): a pytree mirroring `params`, its structure not modelled."""

    params: Any

    def __repr__(self) -> str:
        return "<optax state>"

    def join_with(self, other: Any) -> Any:
        return OptState(join([self.params, other.params])) if isinstance(other, OptState) else UNKNOWN


def _short(name: str) -> str | None:
    """`adam` for `optax.adam` / `optax.schedules.linear_schedule`'s last part; None outside optax's modules."""
    mod, _, attr = name.rpartition(".")
    return attr if mod in _MODULES else None


def _arg(pos: list[Any], kw: dict[str, Any], name: str) -> Any:
    return pos[0] if pos else kw.get(name, UNKNOWN)


def call(f: Any, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """An optax call's value; NotImplemented for a name this module does not model."""
    if name.startswith(_METHOD):
        return _method(f, name[len(_METHOD) :], pos, kw)
    if name == _SCHEDULE_VALUE:  # a schedule's value at a step: the step's shape (a scalar for a count, a vector
        return _schedule_value(_arg(pos, kw, "count"))  # for an array of steps); its dtype is not modelled
    if name == _CONSTANT_VALUE:
        return pos[0] if pos else UNKNOWN
    short = _short(name)
    if short is None:
        return NotImplemented
    if short == "apply_updates":
        return apply_updates(f, pos, kw, node)
    if short in BUILDERS:
        return Optimizer(short)
    if short == "chain":
        return Optimizer(short) if not kw and all(isinstance(p, Optimizer) for p in pos) else UNKNOWN
    if short == "named_chain":
        ok = all(isinstance(p, Seq) and len(p.items) == 2 and isinstance(p.items[1], Optimizer) for p in pos)
        return Optimizer(short) if ok and not kw else UNKNOWN
    if short in WRAPPERS:
        return Optimizer(short) if isinstance(_arg(pos, kw, WRAPPERS[short]), Optimizer) else UNKNOWN
    if short == "inject_hyperparams":  # `inject_hyperparams(optax.adam)(learning_rate=...)` builds an adam
        inner = _arg(pos, kw, "inner_factory")
        if isinstance(inner, QualRef) and _short(inner.name) in BUILDERS:
            return inner
        return UNKNOWN
    if short == "constant_schedule":
        return PartialRef(QualRef(_CONSTANT_VALUE), (_arg(pos, kw, "value"),))
    if short in SCHEDULES:
        return PartialRef(QualRef(_SCHEDULE_VALUE), ())
    return NotImplemented


def _schedule_value(step: Any) -> Any:
    """A schedule at `step`: optax's schedules are elementwise in the step, so the value has the step's shape."""
    if isinstance(step, Const) and isinstance(step.value, int):
        return ArrayType(None, ())
    if isinstance(step, ArrayType) and not step.has_ellipsis:
        return ArrayType(None, step.shape)
    return UNKNOWN


def attribute(recv: Any, attr: str) -> Any:
    """`tx.init`, `tx.update`, `ms.gradient_transformation` of an optimizer; any attribute of a state is Unknown.
    NotImplemented for anything else."""
    if isinstance(recv, Optimizer):
        if attr in ("init", "update") or (attr == "gradient_transformation" and recv.name == "MultiSteps"):
            return PartialRef(QualRef(_METHOD + attr), (recv,))
        return UNKNOWN
    if isinstance(recv, OptState):
        return UNKNOWN
    return NotImplemented


def _method(f: Any, method: str, pos: list[Any], kw: dict[str, Any]) -> Any:
    tx, args = (pos[0], pos[1:]) if pos else (None, [])
    if not isinstance(tx, Optimizer):
        return UNKNOWN
    if method == "gradient_transformation":
        return tx
    if method == "init":
        params = _arg(args, kw, "params")
        return OptState(params) if params is not UNKNOWN else UNKNOWN
    if method != "update":
        return UNKNOWN
    grads = _arg(args, kw, "updates")
    state = args[1] if len(args) > 1 else kw.get("state", UNKNOWN)
    if not isinstance(grads, Seq | ArrayType | InstanceRef):
        return UNKNOWN
    known_f32 = f.env.flag(X64) is False  # without 64-bit types, float32 updates stay float32
    manual = bool(f.env.manual)  # inside shard_map the state's moments may vary over more axes than `grads`

    def like(leaf: Any) -> Any:
        if not isinstance(leaf, ArrayType):
            return leaf if isinstance(leaf, Const) and leaf.value is None else UNKNOWN
        dtype = leaf.dtype_code if leaf.dtype_code == "f32" and known_f32 else None
        made = ArrayType.make(dtype, leaf.shape, leaf.named_shape)
        return made.with_varying(leaf.varying, exact=leaf.vary_exact and not manual)

    # an equinox module's gradients (a built pytree instance): the same module, leaf by leaf
    updates = equinox.leafwise(grads, like) if isinstance(grads, InstanceRef) else map_leaves(grads, like)
    return Seq((updates, state if isinstance(state, OptState) else UNKNOWN), "tuple")


def apply_updates(f: Any, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """`optax.apply_updates(params, updates)`: `p + u` cast to `p`'s dtype, leaf by leaf over one tree (NC201
    where a pair does not broadcast); the parameters' tree where the updates are not known."""
    params = pos[0] if pos else kw.get("params", UNKNOWN)
    updates = pos[1] if len(pos) > 1 else kw.get("updates", UNKNOWN)
    if not isinstance(params, Seq | ArrayType):
        return UNKNOWN
    try:
        return applied(params, updates, "")
    except RuleError as e:
        err = RuleError(e.code, f"optax.apply_updates: {e.message}", e.hint)
        origins.relate_calls(err, [params, updates])
        f.report(node, err)
        return UNKNOWN


def applied(p: Any, u: Any, path: str) -> Any:
    if isinstance(p, Seq) and isinstance(u, Seq):
        if p.kind != u.kind or len(p.items) != len(u.items):
            return p
        if p.kind == "dict":
            keys = [k.items[0] if isinstance(k, Seq) and len(k.items) == 2 else None for k in p.items]
            ukeys = [k.items[0] if isinstance(k, Seq) and len(k.items) == 2 else None for k in u.items]
            if keys != ukeys or not all(isinstance(k, Const) for k in keys):
                return p
            items = tuple(
                Seq((key, applied(pair.items[1], upair.items[1], f"{path}[{key.value!r}]")), pair.kind)
                for pair, upair, key in zip(p.items, u.items, keys)
                if isinstance(key, Const)
            )
            return Seq(items, "dict")
        return Seq(tuple(applied(a, b, f"{path}[{i}]") for i, (a, b) in enumerate(zip(p.items, u.items))), p.kind)
    if not (isinstance(p, ArrayType) and isinstance(u, ArrayType)):
        return p
    if p.shape == u.shape:
        return p
    where = f"params{path}" if path else "params"
    shape = broadcast_shapes(p.shape, u.shape, f"the parameter {where}", "its update")
    return ArrayType.make(p.dtype_code, shape, p.named_shape)


__all__ = ["Optimizer", "OptState", "call", "attribute", "apply_updates", "applied"]
