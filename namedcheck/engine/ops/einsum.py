"""einsum with positional letters and named axes in braces: `'n{b,k},{k,m}->n{b,m}'`.
Their sharding rules over Explicit mesh axes (`@sharding_rule`) follow the shape rules."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from namedcheck.engine import dtypes
from namedcheck.engine.algebra import broadcast_dim, broadcast_shapes, differ, fmt_shape, maybe_one, union_named
from namedcheck.engine.codes import NC203, NC702, NC803
from namedcheck.engine.errors import RuleError
from namedcheck.engine.ops.core import Call, Shd, Unprovable, rule, sharding_rule
from namedcheck.engine.ops.linalg import contract_sharding
from namedcheck.engine.ops.sharding_common import axes_desc, has_out_sharding, out_sharding
from namedcheck.engine.placement import of
from namedcheck.engine.signature import as_array
from namedcheck.engine.values import ArrayType, Const, Seq, literal

# linear: letters, then at most one ellipsis with letters after it; no two adjacent runs of one class (`[A-Za-z]*`
# twice, or `\s*` on both sides of an empty group) backtrack quadratically
_TERM = re.compile(r"([A-Za-z]*(?:\.\.\.[A-Za-z]*)?)\s*(?:\{([^{}]*)\})?")  # on the stripped term, whole


@dataclass(frozen=True)
class Term:
    letters: str  # positional letters, '.' marks the ellipsis position
    names: tuple[str, ...]


def _shown(spec: str, most: int = 80) -> str:
    """A spec as a message quotes it: at most `most` characters (a generated spec may be megabytes)."""
    return repr(spec) if len(spec) <= most else repr(spec[: most - 3] + "...")


def _bad(spec: str, why: str) -> RuleError:
    return RuleError(
        NC702,
        f"Invalid einsum spec {_shown(spec)}: {why}",
        hint="operands are letters for positional axes, then optional {name,...} for named axes, e.g. 'n{b,k},{k,m}->n{b,m}'",
        data={"at": "subscripts"},  # reported at the spec: the text to edit
    )


def parse_term(spec: str, text: str) -> Term:
    m = _TERM.fullmatch(text.strip())
    if not m:
        raise _bad(spec, f"cannot read operand {_shown(text.strip())}")
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
        raise _bad(
            spec,
            f"it names {len(inputs)} operand{'s' if len(inputs) != 1 else ''} but {n_operands} "
            f"{'were' if n_operands != 1 else 'was'} given",
        )
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
                raise _bad(
                    spec, f"operand {lab} has {len(t.shape)} positional dimensions but its term names {len(letters)}"
                )
            i = term.letters.index(".")
            n_ell = len(t.shape) - len(letters)
            dims = list(t.shape[:i]) + list(t.shape[i + n_ell :])
            this_ell = tuple(t.shape[i : i + n_ell])
            if ell is None:
                ell = this_ell
            else:  # the `...` dims of all operands broadcast together
                try:
                    ell = broadcast_shapes(ell, this_ell, "the `...` of an earlier operand", f"the `...` of {lab}")
                except RuleError as e:
                    raise RuleError(NC203, f"{op} {spec!r}: {e.message}") from None
        else:
            if len(letters) != len(t.shape):
                raise _bad(
                    spec,
                    f"term {term.letters!r} has {len(letters)} letters but {lab} has "
                    f"{len(t.shape)} positional dimension{'s' if len(t.shape) != 1 else ''} {fmt_shape(t.shape)}",
                )
            dims = list(t.shape)
        for ch, d in zip(letters, dims):
            if ch in sizes and differ(sizes[ch], d) and not maybe_one(sizes[ch]) and not maybe_one(d):  # 1 broadcasts
                raise RuleError(
                    NC203, f"{op} {spec!r}: index {ch!r} has size {sizes[ch]} in {where[ch]} and {d} in {lab}"
                )
            if ch not in sizes:
                sizes[ch], where[ch] = d, lab
            elif (both := broadcast_dim(sizes[ch], d)) != sizes[ch]:  # cannot raise: a clash was reported above
                sizes[ch], where[ch] = both, lab
        have = t.named_shape
        for n in term.names:
            if n not in have:
                raise RuleError(
                    NC702,
                    f"{op} {spec!r} mentions named axis {n!r} for {lab}, which has no such "
                    f"axis (its named axes: {sorted(have) or 'none'})",
                )
    mentioned = {n for term in inputs for n in term.names}
    for n in sorted(mentioned):
        for term, t, lab in zip(inputs, ops, labels):
            if n in t.named_shape and n not in term.names:
                raise RuleError(
                    NC702,
                    f"{op} {spec!r} mentions named axis {n!r} for another operand but skips "
                    f"it for {lab}, which also has it",
                    hint=f"add {n!r} to the braces of that operand's term",
                )
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


def _positional(text: str) -> str:
    """A spec's characters outside named-axis braces, without spaces and dots."""
    out, depth = "", 0
    for ch in text:
        depth += ch == "{"
        if depth == 0 and ch not in " .":
            out += ch
        depth -= ch == "}" and depth > 0
    return out


def check_spec(spec: str, n_operands: int, op: str = "jnp.einsum") -> None:
    """What a spec alone decides, whatever the operands' shapes: JAX raises when the number of input terms
    differs from the number of operands, and when an output letter appears in no input term or twice in the
    output (positional letters only; a named einsum's braces are checked with the operands' types)."""
    text = spec.replace(" ", "")
    if text.count("->") > 1:
        return
    lhs, arrow, rhs = text.partition("->")
    terms = _split(lhs)
    if n_operands and len(terms) != n_operands:
        raise _bad(
            spec,
            f"it names {len(terms)} operand{'s' if len(terms) != 1 else ''} but {n_operands} "
            f"{'were' if n_operands != 1 else 'was'} given",
        )
    if not arrow:
        return
    inputs, outputs = set(_positional(lhs)) - {","}, _positional(rhs)
    for ch in outputs:
        if ch not in inputs:
            raise _bad(spec, f"output index {ch!r} appears in no input")
        if outputs.count(ch) > 1:
            raise _bad(spec, f"output index {ch!r} is repeated in the output")


@rule("jax.numpy.einsum")
def einsum_rule(call: Call) -> Any:
    spec = call.get("subscripts")
    if not isinstance(spec, Const) or not isinstance(spec.value, str):
        raise Unprovable
    check_spec(spec.value, len(call.extra))
    ops = [as_array(v) for v in call.extra]
    if any(not isinstance(t, ArrayType) for t in ops):
        raise Unprovable
    labels = [call.label(f"*{i}") if f"*{i}" in call.labels else f"operand {i + 1}" for i in range(len(ops))]
    return einsum_type(spec.value, ops, labels)


# ---- sharding over Explicit mesh axes (JAX's sharding rules: the result's sharding, NC8xx) ----------------


@sharding_rule("jax.numpy.einsum")
def einsum_sharding(call: Call, result: ArrayType) -> Shd | None:
    """Plain-letter einsum of one or two operands (`'ij,jk->ik'`): letters in both operands and not in
    the output contract, letters in both and in the output are batch dims."""
    spec = literal(call.get("subscripts"))
    ops = [as_array(v) for v in call.extra] if call.extra else []
    if not ops and isinstance(call.args.get("operands"), Seq):
        ops = [as_array(v) for v in call.args["operands"].items]
    if not isinstance(spec, str) or "->" not in spec or "." in spec or not ops:
        raise Unprovable
    lhs, outs = spec.replace(" ", "").split("->")
    terms = lhs.split(",")
    if len(terms) != len(ops) or not all(isinstance(t, ArrayType) for t in ops):
        raise Unprovable
    if any(len(set(t)) != len(t) or not t.isalpha() for t in terms) or len(set(outs)) != len(outs):
        raise Unprovable
    shds = [of(t) for t in ops]
    if any(s is not None and len(s) != len(t) for t, s in zip(terms, shds)):
        raise Unprovable  # a term that does not match its operand's rank (the type rule reports it)
    if len(ops) > 2:
        return _einsum_many(terms, outs, shds, has_out_sharding(call))
    if any(s is None for s in shds):  # an operand's sharding not known: out_sharding= decides, if given
        return out_sharding(call, len(outs)) if has_out_sharding(call) else None
    entry: dict[str, tuple[str, ...]] = {}
    for term, s in zip(terms, shds):
        for letter, e in zip(term, s or ()):
            if letter in entry and letter in outs and entry[letter] != e and entry[letter] and e:
                raise RuleError(
                    NC803,
                    f"{call.short}: batch dimension {letter!r} is split over "
                    f"{axes_desc(entry[letter])} in one operand and over {axes_desc(e)} "
                    f"in the other",
                    hint="reshard one operand so the batch dims agree",
                )
            entry.setdefault(letter, e)  # a batch dim sharded on one side: dot_general takes the first's
    if any(letter not in entry for letter in outs):  # an output letter only an unsharded-unknown operand holds
        if has_out_sharding(call):
            return out_sharding(call, len(outs))
        raise Unprovable
    out = [entry[letter] for letter in outs]
    if len(ops) == 1:
        return out_sharding(call, len(outs)) if has_out_sharding(call) else tuple(out)
    pairs = [(terms[0].index(c), terms[1].index(c)) for c in terms[0] if c in terms[1] and c not in outs]
    call.labels.setdefault("a", call.labels.get("operands", "") or "the first operand")
    call.labels.setdefault("b", "the second operand")
    return contract_sharding(call, "a", "b", pairs, out, ops[0], ops[1], len(outs))


def _einsum_many(terms: list[str], outs: str, shds: list[Shd | None], given_out: bool) -> Shd:
    """einsum of three or more operands, contracted pairwise in opt_einsum's order. Known only where the
    order cannot matter: no contracted letter is sharded, every operand holding an output letter splits it
    alike (a batch dim sharded on one side takes the lhs's, so the order would decide), and the result uses
    each mesh axis once; the output letters keep that sharding."""
    if given_out or any(s is None for s in shds):
        raise Unprovable
    entry: dict[str, tuple[str, ...]] = {}
    for term, s in zip(terms, shds):
        assert s is not None
        for letter, e in zip(term, s):
            if letter not in outs and e or entry.setdefault(letter, e) != e:
                raise Unprovable
    out = tuple(entry[letter] for letter in outs)
    axes = [a for e in out for a in e]
    if len(axes) != len(set(axes)):
        raise Unprovable
    return out
