"""einsum with positional letters and named axes in braces: `'n{b,k},{k,m}->n{b,m}'`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.algebra import broadcast_shapes, differ, fmt_shape, is_int, union_named
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Unprovable, rule
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import ArrayType, Const

_TERM = re.compile(r"^\s*([A-Za-z]*(?:\.\.\.)?[A-Za-z]*)\s*(?:\{([^{}]*)\})?\s*$")


@dataclass(frozen=True)
class Term:
    letters: str          # positional letters, '.' marks the ellipsis position
    names: tuple[str, ...]


def _bad(spec: str, why: str) -> RuleError:
    return RuleError("NC702", f"Invalid einsum spec {spec!r}: {why}",
                     hint="operands are letters for positional axes, then optional {name,...} for named axes, e.g. 'n{b,k},{k,m}->n{b,m}'")


def parse_term(spec: str, text: str) -> Term:
    m = _TERM.match(text)
    if not m:
        raise _bad(spec, f"cannot read operand {text.strip()!r}")
    letters = m.group(1).replace("...", ".")
    names = tuple(n.strip() for n in m.group(2).split(",") if n.strip()) if m.group(2) is not None else ()
    for n in names:
        if not n.isidentifier():
            raise _bad(spec, f"{n!r} is not an axis name")
    if len(set(names)) != len(names):
        raise _bad(spec, f"a named axis is repeated in {text.strip()!r}")
    return Term(letters, names)


def parse_spec(spec: str, n_operands: int) -> tuple[list[Term], Term | None]:
    spec_nospace = spec.replace(" ", "")
    if spec_nospace.count("->") > 1:
        raise _bad(spec, "more than one '->'")
    lhs, _, rhs = spec_nospace.partition("->")
    inputs = [parse_term(spec, t) for t in _split(lhs)]
    if len(inputs) != n_operands:
        raise _bad(spec, f"it names {len(inputs)} operand{'s' if len(inputs) != 1 else ''} but {n_operands} "
                         f"{'were' if n_operands != 1 else 'was'} given")
    out = parse_term(spec, rhs) if "->" in spec_nospace else None
    return inputs, out


def _split(lhs: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in lhs:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def einsum_type(spec: str, ops: list[ArrayType], labels: list[str], op: str = "jnp.einsum") -> ArrayType:
    inputs, out = parse_spec(spec, len(ops))
    sizes: dict[str, Any] = {}
    where: dict[str, str] = {}
    ell: tuple[Any, ...] | None = None
    for term, t, lab in zip(inputs, ops, labels):
        if t.has_ellipsis:
            raise Unprovable
        letters = term.letters.replace(".", "")
        if "." in term.letters:
            if len(letters) > len(t.shape):
                raise _bad(spec, f"operand {lab} has {len(t.shape)} positional dimensions but its term names {len(letters)}")
            i = term.letters.index(".")
            n_ell = len(t.shape) - len(letters)
            dims = list(t.shape[:i]) + list(t.shape[i + n_ell:])
            this_ell = tuple(t.shape[i:i + n_ell])
            if ell is None:
                ell = this_ell
            else:  # the `...` dims of all operands broadcast together
                try:
                    ell = broadcast_shapes(ell, this_ell, "the `...` of an earlier operand", f"the `...` of {lab}")
                except RuleError as e:
                    raise RuleError("NC203", f"{op} {spec!r}: {e.message}") from None
        else:
            if len(letters) != len(t.shape):
                raise _bad(spec, f"term {term.letters!r} has {len(letters)} letters but {lab} has "
                                 f"{len(t.shape)} positional dimension{'s' if len(t.shape) != 1 else ''} {fmt_shape(t.shape)}")
            dims = list(t.shape)
        for ch, d in zip(letters, dims):
            if ch in sizes and differ(sizes[ch], d) and 1 not in (sizes[ch], d):  # size 1 broadcasts
                raise RuleError("NC203", f"{op} {spec!r}: index {ch!r} has size {sizes[ch]} in {where[ch]} and "
                                         f"{d} in {lab}")
            if ch not in sizes or not is_int(sizes[ch]) or sizes[ch] == 1:
                sizes[ch], where[ch] = d, lab
        have = t.named_shape
        for n in term.names:
            if n not in have:
                raise RuleError("NC702", f"{op} {spec!r} mentions named axis {n!r} for {lab}, which has no such "
                                         f"axis (its named axes: {sorted(have) or 'none'})")
    mentioned = {n for term in inputs for n in term.names}
    for n in sorted(mentioned):
        for term, t, lab in zip(inputs, ops, labels):
            if n in t.named_shape and n not in term.names:
                raise RuleError("NC702", f"{op} {spec!r} mentions named axis {n!r} for another operand but skips "
                                         f"it for {lab}, which also has it",
                                hint=f"add {n!r} to the braces of that operand's term")
    named_all = union_named(ops, labels)
    if out is None:
        counts: dict[str, int] = {}
        for term in inputs:
            for ch in term.letters.replace(".", ""):
                counts[ch] = counts.get(ch, 0) + 1
        out = Term(("." if ell else "") + "".join(sorted(c for c, k in counts.items() if k == 1)), ())
    out_letters = out.letters.replace(".", "")
    if len(set(out_letters)) != len(out_letters):
        raise _bad(spec, f"an output index is repeated in {out.letters!r}")
    for ch in out_letters:
        if ch not in sizes:
            raise _bad(spec, f"output index {ch!r} appears in no input")
    for n in out.names:
        if n not in named_all:
            raise _bad(spec, f"output named axis {n!r} appears in no operand")
    shape: list[Any] = []
    for ch in out.letters:
        if ch == ".":
            shape.extend(ell or ())
        else:
            shape.append(sizes[ch])
    named = {n: s for n, s in named_all.items() if n in out.names or n not in mentioned}
    dt = dtypes.materialize(dtypes.promote(*[t.dtype_code for t in ops]))
    return ArrayType.make(dt, tuple(shape), named)


@rule("jax.numpy.einsum")
def einsum_rule(call: Call) -> Any:
    spec = call.get("subscripts")
    if not isinstance(spec, Const) or not isinstance(spec.value, str):
        raise Unprovable
    ops = [as_array(v) for v in call.extra]
    if any(not isinstance(t, ArrayType) for t in ops):
        raise Unprovable
    labels = [call.label(f"*{i}") if f"*{i}" in call.labels else f"operand {i + 1}" for i in range(len(ops))]
    return einsum_type(spec.value, ops, labels)
