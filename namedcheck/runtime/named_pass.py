"""The named-shape pass: per jaxpr variable, the set of named axes the value carries.

A body traced per instance (`jax.make_jaxpr(..., axis_env=...)`) is a positional program plus named
collectives. Walking its equations with the named-axis rules of the model finds what xmap never
checked: two axes that share a mesh resource in one value (NC502) and results carrying a named axis
their `out_axes` do not place (NC404). The rules themselves are the engine's (`check_cooccurrence`,
`xmap_out`, and the collectives' rules of `jax.lax.psum` & co.); this module only translates jaxpr
equations into sets of names.

Sets are `frozenset[str]`, or None where a primitive is not understood: Unknown never raises.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from typing import Any

from jax._src import core
from jax._src import source_info_util as siu

from namedcheck.engine.errors import RuleError
from namedcheck.engine.maps import AxisEnv, check_cooccurrence
from namedcheck.engine.ops import run
from namedcheck.engine.stubs import op_table
from namedcheck.engine.values import ArrayType, Const, Seq
from namedcheck.errors import NamedAxisError

Names = frozenset[str] | None

# primitive -> (public op, the parameter naming the axes, keyword arguments from parameters)
_COLLECTIVES: dict[str, tuple[str, str, dict[str, str]]] = {
    "psum": ("jax.lax.psum", "axes", {}),
    "psum_invariant": ("jax.lax.psum", "axes", {}),
    "psum_local_transpose": ("jax.lax.psum", "axes", {}),  # pdot's sum (runtime/collectives.py)
    "pmax": ("jax.lax.pmax", "axes", {}),
    "pmin": ("jax.lax.pmin", "axes", {}),
    "axis_index": ("jax.lax.axis_index", "axis_name", {}),
    "all_gather": ("jax.lax.all_gather", "axis_name", {"axis": "all_gather_dimension", "tiled": "tiled"}),
}
_KEEP = {"ppermute", "pbroadcast", "pvary", "pcast", "all_to_all", "reduce_scatter", "psum_scatter"}


@functools.cache
def _ops() -> dict[str, Any]:
    return op_table()


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _axis_names(v: Any) -> tuple[str, ...]:
    items = v if isinstance(v, (tuple, list)) else (v,)
    return tuple(a for a in items if isinstance(a, str))


def user_line(eqn: Any) -> tuple[str | None, int | None]:
    """The user's source line of an equation (frames inside jax and namedcheck are skipped)."""
    try:
        for frame in siu.user_frames(eqn.source_info.traceback):
            if not os.path.abspath(frame.file_name).startswith(_PACKAGE_DIR):
                return frame.file_name, frame.start_line
    except Exception:  # source info is best effort
        pass
    return None, None


class NamedShapePass:
    """Propagates named-axis sets through a jaxpr and checks co-occurrence on every new value."""

    def __init__(self, sizes: dict[str, int], env: AxisEnv) -> None:
        self.sizes = sizes
        self.env = env
        self.producer: dict[Any, Any] = {}  # top-level outvar -> the equation that made it
        self.collective_axes: set[str] = set()  # names any collective of the body (or its calls) uses

    def run(self, jaxpr: core.Jaxpr, ins: Sequence[Names], top: bool = False) -> list[Names]:
        env: dict[Any, Names] = dict(zip(jaxpr.invars, ins))
        for v in jaxpr.constvars:
            env[v] = frozenset()

        def read(a: Any) -> Names:
            return frozenset() if isinstance(a, core.Literal) else env.get(a)

        for eqn in jaxpr.eqns:
            for key in ("axes", "axis_name"):
                self.collective_axes.update(_axis_names(eqn.params.get(key, ())))
            outs = self._eqn(eqn, [read(a) for a in eqn.invars])
            for v, s in zip(eqn.outvars, outs):
                env[v] = s
                if top:
                    self.producer[v] = eqn
                if s and len(s) > 1:
                    self._cooccurrence(eqn, v, s)
        return [read(v) for v in jaxpr.outvars]

    def _cooccurrence(self, eqn: Any, var: Any, names: frozenset[str]) -> None:
        aval = getattr(var, "aval", None)
        t = ArrayType.make(None, tuple(getattr(aval, "shape", ())), {n: self.sizes.get(n) for n in names})
        try:
            check_cooccurrence(t, self.env)
        except RuleError as e:
            filename, line = user_line(eqn)
            raise NamedAxisError(
                e.code, f"{e.message}, made by `{eqn.primitive.name}`", e.hint, filename, line
            ) from None

    def _eqn(self, eqn: Any, ins: list[Names]) -> list[Names]:
        name = eqn.primitive.name
        n_out = len(eqn.outvars)
        p = eqn.params
        if name in _COLLECTIVES:
            return self._collective(eqn, ins)
        if name in _KEEP:
            return ins[:n_out] if len(ins) >= n_out else [_union(ins)] * n_out
        if name == "scan":
            return self._scan(eqn, ins)
        if name == "while":
            return self._while(eqn, ins)
        if name == "cond":
            return self._cond(eqn, ins)
        sub = _call_jaxpr(eqn)
        if sub is not None:
            return self.run(sub, ins)
        if any(isinstance(v, (core.Jaxpr, core.ClosedJaxpr)) for v in p.values()):
            return [None] * n_out  # a higher-order primitive we do not model
        return [_union(ins)] * n_out

    def _collective(self, eqn: Any, ins: list[Names]) -> list[Names]:
        """Named collectives by the engine's rules for their public ops (`jax.lax.psum`, ...)."""
        op_name, names_param, extra = _COLLECTIVES[eqn.primitive.name]
        op = _ops().get(op_name)
        names = _axis_names(eqn.params.get(names_param))
        if op is None or not names:
            return [None] * len(eqn.outvars)
        axis = Const(names[0]) if len(names) == 1 else Seq(tuple(Const(n) for n in names))
        kwargs = {k: Const(eqn.params[param]) for k, param in extra.items() if param in eqn.params}
        env = AxisEnv(named=tuple(sorted(self.sizes.items())))
        operands = [(v, s) for v, s in zip(eqn.invars, ins)] or [(None, frozenset())]
        outs: list[Names] = []
        for var, have in operands[: len(eqn.outvars)]:
            if have is None:
                outs.append(None)
                continue
            args: list[Any] = [axis]
            if var is not None:
                shape = tuple(getattr(getattr(var, "aval", None), "shape", ()))
                args.insert(0, ArrayType.make(None, shape, {n: self.sizes.get(n) for n in have}))
            try:
                result = run(op, args, kwargs, env=env)
            except RuleError:
                result = None
            outs.append(frozenset(n for n, _ in result.named) if isinstance(result, ArrayType) else None)
        return outs

    def _scan(self, eqn: Any, ins: list[Names]) -> list[Names]:
        body = _open(eqn.params["jaxpr"])
        nc, nk = eqn.params["num_consts"], eqn.params["num_carry"]
        consts, carry, xs = ins[:nc], ins[nc : nc + nk], ins[nc + nk :]
        for _ in range(len(carry) + 2):
            outs = self.run(body, consts + carry + xs)
            new = [_join(a, b) for a, b in zip(carry, outs[:nk])]
            if new == carry:
                break
            carry = new
        return carry + outs[nk:]

    def _while(self, eqn: Any, ins: list[Names]) -> list[Names]:
        cond, body = _open(eqn.params["cond_jaxpr"]), _open(eqn.params["body_jaxpr"])
        cn, bn = eqn.params["cond_nconsts"], eqn.params["body_nconsts"]
        cconsts, bconsts, carry = ins[:cn], ins[cn : cn + bn], ins[cn + bn :]
        for _ in range(len(carry) + 2):
            pred = self.run(cond, cconsts + carry)[0]
            outs = self.run(body, bconsts + carry)
            new = [_join(_join(a, b), pred) for a, b in zip(carry, outs)]
            if new == carry:
                break
            carry = new
        return carry

    def _cond(self, eqn: Any, ins: list[Names]) -> list[Names]:
        index, ops = ins[0], ins[1:]
        results: list[Names] | None = None
        for branch in eqn.params["branches"]:
            outs = self.run(_open(branch), ops)
            results = outs if results is None else [_join(a, b) for a, b in zip(results, outs)]
        return [_join(r, index) for r in (results or [])]


def _open(j: Any) -> core.Jaxpr:
    return j.jaxpr if isinstance(j, core.ClosedJaxpr) else j


def _call_jaxpr(eqn: Any) -> core.Jaxpr | None:
    """The body of a call-like primitive (jit, remat, custom_jvp/vjp calls) whose inputs and outputs
    are the equation's own."""
    for key in ("jaxpr", "call_jaxpr", "fun_jaxpr"):
        j = eqn.params.get(key)
        if isinstance(j, (core.Jaxpr, core.ClosedJaxpr)):
            j = _open(j)
            if len(j.invars) == len(eqn.invars) and len(j.outvars) == len(eqn.outvars):
                return j
    return None


def _union(sets: Sequence[Names]) -> Names:
    out: frozenset[str] = frozenset()
    for s in sets:
        if s is None:
            return None
        out |= s
    return out


def _join(a: Names, b: Names) -> Names:
    return None if a is None or b is None else a | b
