"""diffrax as a JAX user meets it: `diffrax.ODETerm(f)` holds a vector field that diffrax calls as `f(t, y, args)`
with a scalar `t` and `y` shaped like `y0`, and whose result must broadcast to `y0`'s shape leaf by leaf (diffrax
raises ValueError otherwise: NC203 at `diffeqsolve`, with a note at the vector field); `diffrax.SaveAt(t0=, t1=,
ts=, steps=)` says how many times are saved; `diffeqsolve(...)` is a solution whose `ys` has that count in front
of each leaf of `y0` and whose `ts` is that count (`SaveAt(t1=True)` when not given; `steps=True` saves
`max_steps` rows). Solvers, step-size controllers and adjoints do not change shapes: they are accepted as they
are. A vector field under `MultiTerm` / `ControlTerm`, `dense=`, `subs=` and `fn=` saves are not modelled."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import libcst as cst

from namedcheck.analyzer.refs import FuncRef, PartialRef, QualRef
from namedcheck.engine import dtypes
from namedcheck.engine.algebra import fmt_shape
from namedcheck.engine.codes import NC203
from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import X64
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, Seq

# solvers, step-size controllers, adjoints, terms other than ODETerm, Brownian motions and events: values that do
# not change the solution's shapes
_OPAQUE = frozenset(
    """Euler Heun Midpoint Ralston Bosh3 Tsit5 Dopri5 Dopri8 ImplicitEuler Kvaerno3 Kvaerno4 Kvaerno5 KenCarp3
    KenCarp4 KenCarp5 Sil3 ReversibleHeun LeapfrogMidpoint SemiImplicitEuler EulerHeun ItoMilstein
    StratonovichMilstein SEA SRA1 ShARK GeneralShARK SlowRK SPaRK PIDController ConstantStepSize StepTo
    ClipStepSizeController RecursiveCheckpointAdjoint DirectAdjoint BacksolveAdjoint ImplicitAdjoint
    ForwardMode MultiTerm ControlTerm WeaklyDiagonalControlTerm Event SteadyStateEvent""".split()
)
_BROWNIAN = {"VirtualBrownianTree": ("t0", "t1", "tol", "shape", "key"), "UnsafeBrownianPath": ("shape", "key")}
MODELLED = frozenset(
    {"diffrax.ODETerm", "diffrax.SaveAt", "diffrax.diffeqsolve"} | {f"diffrax.{n}" for n in (*_OPAQUE, *_BROWNIAN)}
)
_FUN = "<diffrax>."  # the analyzer's own functions (not a module path)
_MAX_STEPS = 4096  # diffeqsolve's default max_steps


@dataclass(frozen=True, slots=True)
class Term:
    """`diffrax.ODETerm(f)`: the vector field `f(t, y, args)`."""

    vf: Any


@dataclass(frozen=True, slots=True)
class SaveAt:
    """`diffrax.SaveAt(...)`: the times saved, as a count added to `max_steps` rows where `steps` (None: not known)."""

    count: Any
    steps: bool = False


@dataclass(frozen=True, slots=True)
class Solution:
    """What `diffeqsolve` returns: `ys` and `ts`."""

    ys: Any
    ts: Any


@dataclass(frozen=True, slots=True)
class Brownian:
    """A Brownian motion of one `shape` (a tuple of sizes): `bm.evaluate(t0, t1)` is an increment of that shape."""

    shape: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Opaque:
    """A solver, controller or adjoint: nothing about shapes."""

    name: str


def call(f: Any, name: str, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    """A call into diffrax this module follows; NotImplemented for any other name."""
    short = name.removeprefix("diffrax.")
    if short in _OPAQUE:
        return Opaque(short)
    if short in _BROWNIAN:
        params = dict(zip(_BROWNIAN[short], pos))
        shape = params.get("shape", kw.get("shape"))
        if len(pos) > len(_BROWNIAN[short]) or "levy_area" in kw or not isinstance(shape, Seq) or shape.kind == "dict":
            return Opaque(short)
        sizes = tuple(i.value if isinstance(i, Const) else None for i in shape.items)
        if not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in sizes):
            return Opaque(short)
        return Brownian(sizes)
    if name == f"{_FUN}evaluate":  # `bm.evaluate(t0, t1=None, left=True, use_levy=False)`
        bm, args = pos[0], pos[1:]
        if not isinstance(bm, Brownian) or not 1 <= len(args) <= 3 or set(kw) - {"t1", "left", "use_levy"}:
            return UNKNOWN
        if kw.get("use_levy", Const(False)) != Const(False):
            return UNKNOWN
        return ArrayType.make("f32" if f.env.flag(X64) is False else None, bm.shape)
    if name == "diffrax.ODETerm":
        vf = pos[0] if len(pos) == 1 and not kw else kw.get("vector_field") if not pos and len(kw) == 1 else None
        return Term(vf) if vf is not None else UNKNOWN
    if name == "diffrax.SaveAt":
        return _saveat(pos, kw)
    if name == "diffrax.diffeqsolve":
        return _diffeqsolve(f, pos, kw, node)
    return NotImplemented


def attribute(recv: Any, attr: str) -> Any:
    """`sol.ys` / `sol.ts` of a solution; NotImplemented for anything else."""
    if isinstance(recv, Solution):
        return recv.ys if attr == "ys" else recv.ts if attr == "ts" else UNKNOWN
    if isinstance(recv, Brownian):
        return PartialRef(QualRef(f"{_FUN}evaluate"), (recv,)) if attr == "evaluate" else UNKNOWN
    if isinstance(recv, Term | SaveAt | Opaque):
        return UNKNOWN
    return NotImplemented


def _flag(kw: dict[str, Any], name: str) -> bool | None:
    """A boolean setting (`steps=1` is every step, as `steps=True`; another count is not modelled)."""
    v = kw.get(name, Const(False))
    if isinstance(v, Const) and v.value in (0, 1) and isinstance(v.value, int):
        return bool(v.value)
    return None


def _saveat(pos: list[Any], kw: dict[str, Any]) -> Any:
    if pos or set(kw) - {"t0", "t1", "ts", "steps"}:
        return SaveAt(None)  # dense=, subs=, fn=: not modelled
    t0, t1, steps = _flag(kw, "t0"), _flag(kw, "t1"), _flag(kw, "steps")
    if t0 is None or t1 is None or steps is None:
        return SaveAt(None)
    ts = kw.get("ts", Const(None))
    n: Any = 0
    if isinstance(ts, ArrayType) and len(ts.shape) == 1 and not ts.has_ellipsis:
        n = ts.shape[0]
    elif isinstance(ts, Seq) and ts.kind != "dict":
        n = len(ts.items)
    elif not (isinstance(ts, Const) and ts.value is None):
        return SaveAt(None)
    if steps and (t1 or n != 0):
        return SaveAt(None)
    if n is None or not (t0 or t1 or steps or n != 0):
        return SaveAt(None)  # nothing saved: diffrax raises
    extra = int(t0) + int(t1)
    count = n + extra if isinstance(n, int) else n if not extra else None
    return SaveAt(count, steps)


_PARAMS = ("terms", "solver", "t0", "t1", "dt0", "y0", "args")


def _diffeqsolve(f: Any, pos: list[Any], kw: dict[str, Any], node: cst.CSTNode) -> Any:
    if len(pos) > len(_PARAMS):
        return UNKNOWN
    bound = dict(zip(_PARAMS, pos))
    for k, v in kw.items():
        if k in bound:
            return UNKNOWN
        bound[k] = v
    y0 = bound.get("y0")
    if y0 is None or "terms" not in bound:
        return UNKNOWN
    terms = bound["terms"]
    if isinstance(terms, Term):
        _check_vector_field(f, terms, y0, bound.get("args", Const(None)), node)
    saveat = bound.get("saveat", SaveAt(1))
    count = saveat.count if isinstance(saveat, SaveAt) else None
    if isinstance(saveat, SaveAt) and saveat.steps and count is not None:
        steps = bound.get("max_steps", Const(_MAX_STEPS))
        if not (isinstance(steps, Const) and isinstance(steps.value, int) and not isinstance(steps.value, bool)):
            count = None
        else:
            count = count + steps.value
    if count is None:
        return Solution(UNKNOWN, UNKNOWN)
    ys = _leaves(y0, lambda leaf: _saved(leaf, count))
    return Solution(ys, ArrayType.make("f32" if f.env.flag(X64) is False else None, (count,)))


def _leaves(tree: Any, fn: Any) -> Any:
    if isinstance(tree, Seq) and tree.kind == "dict":
        return Seq(tuple(Seq((p.items[0], _leaves(p.items[1], fn))) for p in tree.items), "dict")
    if isinstance(tree, Seq):
        return Seq(tuple(_leaves(x, fn) for x in tree.items), tree.kind)
    return fn(tree)


def _state(leaf: Any) -> Any:
    """A leaf of `y` as diffrax holds it: an array of `y0`'s shape (an integer one becomes floating)."""
    if isinstance(leaf, Const) and isinstance(leaf.value, int | float) and not isinstance(leaf.value, bool):
        return ArrayType.make(None, ())
    if not isinstance(leaf, ArrayType) or leaf.has_ellipsis or leaf.named:
        return UNKNOWN
    kind = dtypes.kind(leaf.dtype_code)
    if kind in ("f", "c") and leaf.dtype_code not in ("f64", "c128"):
        return leaf
    return ArrayType.make(None, leaf.shape)  # an integer one becomes floating; numpy's float64 may become float32


def _saved(leaf: Any, count: Any) -> Any:
    y = _state(leaf)
    return y.with_shape((count, *y.shape)) if isinstance(y, ArrayType) else UNKNOWN


def _check_vector_field(f: Any, term: Term, y0: Any, args: Any, node: cst.CSTNode) -> None:
    """The vector field on one state: NC203 where a returned leaf does not broadcast to its `y0` leaf."""
    y = _leaves(y0, _state)
    t = ArrayType.make(None, ())
    out = f.call_value(term.vf, [t, y, args], {}, [None, None, None], {}, node)
    for got, want in _pairs(out, y):
        if not (isinstance(got, ArrayType) and isinstance(want, ArrayType)):
            continue
        if got.has_ellipsis or want.has_ellipsis or got.named or want.named:
            continue
        if _broadcasts(got.shape, want.shape) is not False:
            continue
        err = RuleError(
            NC203,
            f"the vector field returns shape {fmt_shape(got.shape)} for a state of shape {fmt_shape(want.shape)}; "
            f"diffrax broadcasts it to the state's shape and raises ValueError",
            "return the time derivative of y, with y's shape (f(t, y, args) is called with y shaped like y0)",
            data={"returned": list(_json(got.shape)), "state": list(_json(want.shape))},
        )
        vf = term.vf
        fn = vf.node if isinstance(vf, FuncRef) else None
        if fn is not None:
            err.relate(fn.name if isinstance(fn, cst.FunctionDef) else fn, "the vector field is defined here")
        f.report(node, err)
        return


def _pairs(out: Any, y: Any) -> list[tuple[Any, Any]]:
    if isinstance(out, Seq) and isinstance(y, Seq):
        if out.kind == "dict" or y.kind == "dict" or len(out.items) != len(y.items):
            return []
        return [p for a, b in zip(out.items, y.items) for p in _pairs(a, b)]
    return [(out, y)]


def _broadcasts(src: tuple[Any, ...], dst: tuple[Any, ...]) -> bool | None:
    """Whether `jnp.broadcast_to(src, dst)` works (None: not known)."""
    if len(src) > len(dst):
        return False
    unsure = False
    for a, b in zip(reversed(src), reversed(dst)):
        if isinstance(a, int) and isinstance(b, int):
            if a != b and a != 1:
                return False
        elif a != b and a != 1:
            unsure = True
    return None if unsure else True


def _json(shape: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(d if isinstance(d, int | str) else None for d in shape)
