"""Function signatures over array types: binding a call, unifying symbols, lifting named axes.

Used for user functions with annotated parameters (NC302/NC303/NC304) and for declarative op
signatures from `stubs/` (which report NC203), and for declared-vs-inferred checks (NC301).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from namedcheck.engine import dtypes, spelling, symbolic
from namedcheck.engine.algebra import differ, fmt_shape, is_int, union_named
from namedcheck.engine.codes import NC301, NC302, NC303, NC304
from namedcheck.engine.errors import RuleError
from namedcheck.engine.jaxtyping import ANONYMOUS
from namedcheck.engine.placement import check_declared as check_declared_sharding
from namedcheck.engine.values import UNKNOWN, ArrayType, Const, Dim, DimVal, Seq

POSONLY, NORMAL, KWONLY, VARARGS, VARKW = "posonly", "normal", "kwonly", "varargs", "varkw"


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    kind: str = NORMAL
    has_default: bool = False
    annotation: Any = None  # ArrayType, or None when the parameter takes anything


@dataclass(frozen=True, slots=True)
class Signature:
    name: str
    params: tuple[Param, ...]
    returns: Any = None  # ArrayType, Seq of ArrayTypes, or None (not declared)

    @property
    def annotated(self) -> bool:
        return any(isinstance(p.annotation, ArrayType) for p in self.params)


def bind(
    params: Sequence[Param], args: Sequence[Any], kwargs: dict[str, Any]
) -> tuple[dict[str, Any], tuple[Any, ...]] | None:
    """Bind a call's arguments to parameters by Python's rules: (name -> value, extra varargs).

    Returns None when the call does not fit (arity or keyword errors are mypy's business, not ours).
    """
    out: dict[str, Any] = {}
    extra: tuple[Any, ...] = ()
    positional = [p for p in params if p.kind in (POSONLY, NORMAL)]
    varargs = next((p for p in params if p.kind == VARARGS), None)
    varkw = next((p for p in params if p.kind == VARKW), None)
    if len(args) > len(positional):
        if varargs is None:
            return None
        extra = tuple(args[len(positional) :])
    for p, a in zip(positional, args):
        out[p.name] = a
    by_name = {p.name: p for p in params if p.kind in (NORMAL, KWONLY)}
    for k, v in kwargs.items():
        if k in out or (k not in by_name and varkw is None):
            return None
        out[k] = v
    for p in params:
        if p.kind in (POSONLY, NORMAL, KWONLY) and p.name not in out and not p.has_default:
            return None
    return out, extra


def as_array(v: Any) -> Any:
    """An engine value as an ArrayType where it is one (Python scalars are weak 0-d arrays)."""
    if isinstance(v, ArrayType):
        return v
    if isinstance(v, Const):
        x = v.value
        if isinstance(x, bool):
            return ArrayType("bool_", ())
        if isinstance(x, int):
            return ArrayType("i*", ())
        if isinstance(x, float):
            return ArrayType("f*", ())
        if isinstance(x, complex):
            return ArrayType("c*", ())
        return UNKNOWN
    if isinstance(v, DimVal):
        return ArrayType("i*", ())
    if isinstance(v, Seq):
        items = [as_array(i) for i in v.items]
        if not items or any(not isinstance(i, ArrayType) for i in items):
            return UNKNOWN
        first = items[0]
        if any(i.shape != first.shape or i.named != first.named for i in items):
            return UNKNOWN
        dt = dtypes.materialize(dtypes.promote(*[i.dtype_code for i in items]))
        return ArrayType(dt, (len(items),) + first.shape, first.named)
    return UNKNOWN


class _Unifier:
    """Symbol bindings for one call: symbol -> (size, where it was bound)."""

    def __init__(self, fname: str) -> None:
        self.fname = fname
        self.sizes: dict[str, tuple[Dim, str]] = {}
        self.ellipsis: list[tuple[Dim, ...]] = []
        self.runs: dict[str, tuple[tuple[Dim, ...], str]] = {}  # variadic '*name' -> its dims, where bound
        self.pending: list[tuple[str, int, str, str]] = []  # expressions not yet solvable

    def dim(self, declared: Dim, actual: Dim, where: str, code: str) -> None:
        if isinstance(declared, str) and not declared.isidentifier():
            self.expression(declared, actual, where, code)
        elif isinstance(declared, str):
            if actual is None:
                return
            if declared in self.sizes:
                prev, prev_where = self.sizes[declared]
                if differ(prev, actual):
                    raise RuleError(
                        NC303,
                        f"Symbol {declared!r} of {self.fname} is bound to {prev} by {prev_where} "
                        f"and to {actual} by {where}",
                        hint=f"every use of {declared!r} in one call must have the same size",
                    )
                if isinstance(prev, str) and is_int(actual):
                    self.sizes[declared] = (actual, where)
            else:
                self.sizes[declared] = (actual, where)
        elif differ(declared, actual):
            raise RuleError(code, f"{where[0].upper()}{where[1:]} has size {actual}; {self.fname} declares {declared}")

    def subst(self, d: Dim) -> Dim:
        if isinstance(d, str) and not d.isidentifier():
            value = symbolic.evaluate(d, self.bound())
            return value if value is not None else self.symbolic(d)
        if isinstance(d, str):
            return self.sizes[d][0] if d in self.sizes else None
        return d

    def symbolic(self, declared: str) -> Dim:
        """A size expression with its symbols bound to sizes some of which are symbols (`'N+1'`, N bound to
        `'B'`: `'B+1'`); None when a symbol is not bound."""
        bound = self.bound()
        names = symbolic.symbols(declared)
        if not names or any(bound.get(n) is None for n in names):
            return None
        return symbolic.substitute(declared, {n: bound[n] for n in names})

    def bound(self) -> dict[str, Dim]:
        return {k: v for k, (v, _) in self.sizes.items()}

    def expression(self, declared: str, actual: Any, where: str, code: str, final: bool = False) -> None:
        """A size expression (`'N+1'`) against an actual size: checked when its symbols are bound, solved
        for its one unbound symbol when linear, otherwise left for the end of the call (then Unknown)."""
        if not is_int(actual):
            expected = self.symbolic(declared) if isinstance(actual, str) else None
            if expected is not None and differ(expected, actual):
                raise RuleError(
                    code,
                    f"{where[0].upper()}{where[1:]} has size {actual}; {self.fname} declares {declared!r} = {expected}",
                    hint=f"symbols bound so far: {self.bound() or 'none'}",
                )
            return
        value = symbolic.evaluate(declared, self.bound())
        if value is None:
            solved = symbolic.solve(declared, actual, self.bound())
            if solved is None:
                if not final:
                    self.pending.append((declared, actual, where, code))
                return
            sym, value = solved
            if value is not None:
                self.dim(sym, value, where, code)
                return
        if value is None or value != actual:
            shown = f"{declared!r} = {value}" if value is not None else f"{declared!r} (no integer solution)"
            raise RuleError(
                code,
                f"{where[0].upper()}{where[1:]} has size {actual}; {self.fname} declares {shown}",
                hint=f"symbols bound so far: {self.bound() or 'none'}",
            )

    def finish(self) -> None:
        """Check the expressions that became solvable once every argument was bound."""
        pending, self.pending = self.pending, []
        for declared, actual, where, code in pending:
            self.expression(declared, actual, where, code, final=True)

    def run(self, name: str, dims: tuple[Dim, ...], where: str) -> None:
        """Bind the variadic run `'*name'` to `dims`; one name has one run in a call (NC303). jaxtyping's
        anonymous run (`...`) binds nothing."""
        if name == ANONYMOUS:
            return
        if name not in self.runs:
            self.runs[name] = (dims, where)
            return
        prev, prev_where = self.runs[name]
        if ... in prev or ... in dims:
            return
        if len(prev) != len(dims) or any(differ(a, b) for a, b in zip(prev, dims)):
            raise RuleError(
                NC303,
                f"Variadic dimensions '*{name}' of {self.fname} are {fmt_shape(prev)} in "
                f"{prev_where} and {fmt_shape(dims)} in {where}",
                hint=f"every use of '*{name}' in one call must stand for the same dimensions",
            )


def _match_positional(
    u: _Unifier, declared: tuple[Dim, ...], actual: tuple[Dim, ...], what: str, code: str, variadic: str | None = None
) -> None:
    dv, av = ... in declared, ... in actual
    dh, dt = (declared[: declared.index(...)], declared[declared.index(...) + 1 :]) if dv else (declared, ())
    ah, at = (actual[: actual.index(...)], actual[actual.index(...) + 1 :]) if av else (actual, ())
    mismatch = RuleError(
        code,
        f"{what[0].upper()}{what[1:]} has positional shape {fmt_shape(actual)}; "
        f"{u.fname} declares {fmt_shape(declared)}",
    )
    if not dv and not av:
        if len(declared) != len(actual):
            raise RuleError(
                code,
                f"{what[0].upper()}{what[1:]} has {len(actual)} positional dimensions "
                f"{fmt_shape(actual)}; {u.fname} declares {len(declared)} {fmt_shape(declared)}",
            )
        pairs = list(zip(declared, actual))
    elif dv and not av:
        if len(actual) < len(dh) + len(dt):
            raise mismatch
        pairs = list(zip(dh, actual)) + list(zip(dt, actual[len(actual) - len(dt) :]))
        u.ellipsis.append(actual[len(dh) : len(actual) - len(dt)])
        if variadic:
            u.run(variadic, actual[len(dh) : len(actual) - len(dt)], what)
    elif av and not dv:
        if len(ah) + len(at) > len(declared):
            raise mismatch
        pairs = list(zip(declared, ah)) + list(zip(declared[len(declared) - len(at) :], at))
    else:
        pairs = list(zip(dh, ah)) + list(zip(reversed(dt), reversed(at)))
        u.ellipsis.append((...,))
        if variadic:
            u.run(variadic, (...,), what)
    for _i, (d, a) in enumerate(pairs):
        try:
            u.dim(d, a, f"a dimension of {what}", code)
        except RuleError as e:
            if e.code == code:
                raise RuleError(code, mismatch.message) from None
            raise


def check_argument(u: _Unifier, declared: ArrayType, actual: ArrayType, what: str, code: str) -> dict[str, Dim]:
    """Match one argument against its declared type; return the named axes it lifts."""
    if dtypes.definitely_different(declared.dtype_code, dtypes.materialize(actual.dtype_code)) and not dtypes.is_weak(
        actual.dtype_code
    ):
        raise RuleError(
            NC304, f"{what[0].upper()}{what[1:]} has dtype {actual.dtype}; {u.fname} declares {declared.dtype}"
        )
    if dtypes.outside_family(declared.family, actual.dtype_code):
        raise RuleError(
            NC304,
            f"{what[0].upper()}{what[1:]} has dtype {actual.dtype}; {u.fname} declares {_family_text(declared.family)}",
        )
    _match_positional(u, declared.shape, actual.shape, what, code, declared.variadic)
    check_declared_sharding(declared, actual, what)
    have = dict(actual.named)
    for name, size in declared.named:
        if name not in have and actual.named_open:
            continue  # its named axes are not all known
        if name not in have:
            raise RuleError(
                code,
                f"{what[0].upper()}{what[1:]} lacks named axis {name!r} that {u.fname} declares "
                f"(its named axes: {sorted(have) or 'none'})",
            )
        u.dim(size, have[name], f"named axis {name!r} of {what}", code)
    declared_names = {n for n, _ in declared.named}
    return {n: s for n, s in actual.named if n not in declared_names}


def _instantiate(u: _Unifier, t: Any, lifted: dict[str, Any]) -> Any:
    if isinstance(t, Seq):
        return Seq(tuple(_instantiate(u, i, lifted) for i in t.items), t.kind)
    if not isinstance(t, ArrayType):
        return UNKNOWN
    shape: list[Any] = []
    for d in t.shape:
        if d is ... and t.variadic in u.runs:
            shape.extend(u.runs[t.variadic][0])
        elif d is ... and t.variadic:
            shape.append(...)
        elif d is ...:
            if len(u.ellipsis) != 1 or ... in u.ellipsis[0]:
                return UNKNOWN
            shape.extend(u.ellipsis[0])
        else:
            shape.append(u.subst(d))
    if shape.count(...) > 1:
        return UNKNOWN
    named = {n: u.subst(s) for n, s in t.named}
    ret = replace(
        ArrayType.make(t.dtype_code, tuple(shape), named),
        family=t.family,
        sharding=t.sharding if t.sharding is not None and len(t.sharding) == len(shape) else None,
        spelling=t.spelling,
    )
    if lifted:
        merged = union_named([ret, ArrayType.make(None, (), lifted)], ["the declared result", "the lifted arguments"])
        ret = ret.with_named(merged)
    return ret


def apply(sig: Signature, bound: dict[str, Any], code: str = NC302, labels: dict[str, str] | None = None) -> Any:
    """Check bound arguments against a signature; return the instantiated result type."""
    u = _Unifier(sig.name)
    lifted_types: list[ArrayType] = []
    lifted_labels: list[str] = []
    for p in sig.params:
        if not isinstance(p.annotation, ArrayType) or p.name not in bound:
            continue
        actual = as_array(bound[p.name])
        if not isinstance(actual, ArrayType):
            continue
        label = (labels or {}).get(p.name)
        what = f"argument {p.name!r}" + (f" (`{label}`)" if label else "")
        extra = check_argument(u, p.annotation, actual, what, code)
        if extra:
            lifted_types.append(ArrayType.make(None, (), extra))
            lifted_labels.append(what)
    u.finish()
    lifted = union_named(lifted_types, lifted_labels) if lifted_types else {}
    if sig.returns is None:
        return UNKNOWN
    return _instantiate(u, sig.returns, lifted)


def compare_declared(declared: Any, actual: Any, what: str, lifted_ok: bool = False) -> None:
    """Declared annotation against an inferred value (NC301 / NC304). Symbols are never proven wrong.

    `lifted_ok`: the value was computed under a call's argument types, so named axes the declaration
    lacks may have been lifted through the call (vmap semantics) and are not a mismatch.
    """
    if isinstance(declared, Seq):
        if isinstance(actual, Seq) and len(actual.items) == len(declared.items):
            for i, (d, a) in enumerate(zip(declared.items, actual.items)):
                compare_declared(d, a, f"item {i} of {what}", lifted_ok)
        return
    if not isinstance(declared, ArrayType):
        return
    actual = as_array(actual)
    if not isinstance(actual, ArrayType):
        return
    if lifted_ok and any(n not in declared.named_shape for n, _ in actual.named):
        actual = actual.with_named({n: s for n, s in actual.named if n in declared.named_shape})
    # both in the spelling the annotation is written in (engine/spelling.py)
    shown = f"{what} is declared {spelling.shown(declared)} but inferred {spelling.shown(actual, declared.spelling)}"
    dtype_differs = dtypes.definitely_different(
        declared.dtype_code, dtypes.materialize(actual.dtype_code)
    ) and not dtypes.is_weak(actual.dtype_code)
    try:
        # under a call's arguments (lifted_ok) the sizes may hold the caller's symbols: only ints are compared
        shape = tuple(None if isinstance(d, str) else d for d in declared.shape) if lifted_ok else declared.shape
        _match_positional(_Rigid("the annotation"), shape, actual.shape, what, NC301)
    except RuleError:
        also = " (the dtype differs too)" if dtype_differs else ""
        raise RuleError(NC301, f"Positional shape mismatch: {shown}{also}") from None
    if dtype_differs:
        raise RuleError(NC304, f"Dtype mismatch: {shown}")
    if dtypes.outside_family(declared.family, actual.dtype_code):
        raise RuleError(NC304, f"Dtype mismatch: {shown} (not {_family_text(declared.family)})")
    dn, an = dict(declared.named), dict(actual.named)
    if set(dn) != set(an) and not (actual.named_open and set(an) <= set(dn)):
        missing, extra = sorted(set(dn) - set(an)) if not actual.named_open else [], sorted(set(an) - set(dn))
        detail = "; ".join(
            (
                [f"missing named {'axes' if len(missing) > 1 else 'axis'} {', '.join(map(repr, missing))}"]
                if missing
                else []
            )
            + (
                [f"unexpected named {'axes' if len(extra) > 1 else 'axis'} {', '.join(map(repr, extra))}"]
                if extra
                else []
            )
        )
        raise RuleError(NC301, f"Named shape mismatch: {shown} ({detail})")
    for n in dn:
        if n in an and differ(dn[n], an[n]):
            raise RuleError(NC301, f"Named axis {n!r} mismatch: {shown}")
    check_declared_sharding(declared, actual, what)


def _family_text(family: str | None) -> str:
    return f"a dtype of the {family} family ({', '.join(sorted(dtypes.FAMILIES.get(family or '', ())))})"


class _Rigid(_Unifier):
    """Symbols in a body annotation are rigid: they never bind, and prove a mismatch only where the sizes differ
    whatever the symbols are (`'n-1'` declared, `'n-2'` inferred, in a body analysed under its own parameters'
    annotations, where n is the parameters' n)."""

    def dim(self, declared: Dim, actual: Dim, where: str, code: str) -> None:
        if differ(declared, actual):
            raise RuleError(code, f"{where[0].upper()}{where[1:]} has size {actual}; {self.fname} declares {declared}")


def declared_value(declared: Any, actual: Any, manual: frozenset[str] = frozenset()) -> Any:
    """The value a name annotated `declared` holds after `x: declared = actual`. An annotation states dtype
    and shapes, never varying axes: the declared type takes the value's varying set (exact or a lower bound),
    stated sharding and type-level sharding; where the value is not known under manual mesh axes, its varying set is unknown."""
    if isinstance(declared, Seq):
        items = (
            actual.items
            if isinstance(actual, Seq) and len(actual.items) == len(declared.items)
            else (UNKNOWN,) * len(declared.items)
        )
        return Seq(
            tuple(declared_value(d, a, manual) if d is not None else a for d, a in zip(declared.items, items)),
            declared.kind,
        )
    if not isinstance(declared, ArrayType):
        return declared
    value = as_array(actual)
    if isinstance(value, ArrayType):
        same_rank = not value.has_ellipsis and not declared.has_ellipsis and len(value.shape) == len(declared.shape)
        sharding = declared.sharding if declared.sharding is not None else value.sharding if same_rank else None
        kept = (
            same_rank and sharding is not None and value.sharding is not None
        )  # an annotation states no mesh, no {U:}
        return replace(
            declared,
            varying=value.varying,
            vary_exact=value.vary_exact,
            spec=value.spec if same_rank else None,
            sharding=sharding,
            mesh=value.mesh if kept else None,
            unreduced=value.unreduced if kept else frozenset(),
            reduced=value.reduced if kept else frozenset(),
            # the same array when the annotation agrees with it: it keeps where it came from
            origin=value.origin if value.shape == declared.shape and value.dtype_code == declared.dtype_code else None,
        )
    return declared.with_varying(frozenset(), exact=False) if manual else declared
