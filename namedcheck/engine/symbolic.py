"""Size arithmetic in symbols: `'N+1'`, `'2*D'`, `'D//H'`, `'B*T'`, `'784*config.batch_size'`.

An annotation's size expression is kept in a shape as its text without spaces; signature binding evaluates
it once its symbols are bound, and solves a linear one (`'N+1'` against 8 binds N=7). Sizes the analyzer
computes (`B * T`, `x.shape[0] // 2`) are polynomials kept as canonical text (below), so equal sizes are
equal strings and `differ` proves two sizes unequal whatever their symbols are.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from functools import cache
from typing import Any

_OPS: dict[type, Any] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b if b else None,
}


# Bounds on what size arithmetic keeps (a program squaring a size forty times, or an annotation of 5,000
# terms, would otherwise take exponential time or overflow the parser's recursion): past them a size is
# not a size expression (None: not known)
MAX_TEXT = 1000  # characters of a size expression parsed (real ones are below 100)
MAX_TERMS = 64  # terms of a polynomial
MAX_ATOMS = 256  # atom occurrences over all its terms
MAX_COEFFICIENT_BITS = 4096


def _bounded(p: Poly | None) -> Poly | None:
    """`p` when it is within the bounds above, else None."""
    if p is not None and (
        len(p) > MAX_TERMS
        or sum(len(m) for m in p) > MAX_ATOMS
        or any(c.bit_length() > MAX_COEFFICIENT_BITS for c in p.values())
    ):
        return None
    return p


def normalise(text: str) -> str:
    return "".join(text.split())


@cache
def parse(text: str) -> ast.expr | None:
    """The expression tree of a size expression, or None when it is not one (ints, symbols, + - * //)."""
    tree = _tree(text)
    return tree if tree is not None and _valid(tree) else None


def _valid(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int) and not isinstance(node.value, bool)
    if isinstance(node, ast.BinOp):
        return type(node.op) in _OPS and _valid(node.left) and _valid(node.right)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, ast.USub) and _valid(node.operand)
    return False


def symbols(text: str) -> set[str]:
    tree = parse(text)
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} if tree is not None else set()


def evaluate(text: str, env: Mapping[str, Any]) -> int | None:
    """The value of the expression with its symbols bound to ints in `env`; None when not all are."""
    tree = parse(text)
    return None if tree is None else _eval(tree, env)


def _eval(node: ast.expr, env: Mapping[str, Any]) -> int | None:
    """The value of a size tree with its atoms (by their text) bound to ints in `env`; None when one is not."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, int) and not isinstance(node.value, bool) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _eval(node.operand, env)
        return None if v is None else -v
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        a, b = _eval(node.left, env), _eval(node.right, env)
        return None if a is None or b is None else _OPS[type(node.op)](a, b)
    if not _atom_ok(node):
        return None
    v = env.get(node.id if isinstance(node, ast.Name) else ast.unparse(node))
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def solve(text: str, value: int, env: Mapping[str, Any]) -> tuple[str, int | None] | None:
    """Solve `text == value` for its one unbound symbol when the expression is linear in it.

    Returns (symbol, solution) — solution None when no integer satisfies it (a provable mismatch) —
    or None when it cannot be solved (several unbound symbols, `//` or a product of unknowns)."""
    tree = parse(text)
    unbound = {s for s in symbols(text) if evaluate(s, env) is None}
    if tree is None or len(unbound) != 1:
        return None
    (sym,) = unbound
    linear = _linear(tree, sym, env)
    if linear is None or linear[0] == 0:
        return None
    a, b = linear  # a * sym + b == value
    q, r = divmod(value - b, a)
    return sym, q if r == 0 and q >= 0 else None


def _linear(node: ast.expr, sym: str, env: Mapping[str, Any]) -> tuple[int, int] | None:
    """(a, b) with node == a * sym + b, or None when not linear in `sym`."""
    if isinstance(node, ast.Name) and node.id == sym:
        return 1, 0
    if sym not in {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}:
        v = _eval(node, env)
        return None if v is None else (0, v)
    if isinstance(node, ast.UnaryOp):
        inner = _linear(node.operand, sym, env)
        return None if inner is None else (-inner[0], -inner[1])
    if not isinstance(node, ast.BinOp):
        return None
    left, right = _linear(node.left, sym, env), _linear(node.right, sym, env)
    if left is None or right is None:
        return None
    if isinstance(node.op, ast.Add):
        return left[0] + right[0], left[1] + right[1]
    if isinstance(node.op, ast.Sub):
        return left[0] - right[0], left[1] - right[1]
    if isinstance(node.op, ast.Mult) and (left[0] == 0 or right[0] == 0):
        return left[0] * right[1] + right[0] * left[1], left[1] * right[1]
    return None


# ---- sizes as polynomials ----------------------------------------------------------------------------
# A size a value carries is an int or the canonical text of a polynomial with int coefficients over atoms:
# identifiers (`B`), references the analyzer named a size after (`config.batch_size`, `x.shape[0]`,
# `len(xs)`), and floor divisions that do not divide exactly (`(D//H)`). Canonical text makes equal sizes
# equal strings, so every rule compares dims with `==`. Atoms stand for sizes of real arrays: the proofs
# below take a plain atom to be >= 1 and a floor division to be >= 0.

Monomial = tuple[str, ...]  # sorted atoms, repeated for powers
Poly = dict[Monomial, int]


def _atom_ok(node: ast.expr) -> bool:
    """A reference the analyzer names sizes after: `a`, `a.b.c`, `a.shape[0]`, `len(a)`."""
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _atom_ok(node.value)
    if isinstance(node, ast.Subscript):
        s = node.slice
        if isinstance(s, ast.UnaryOp) and isinstance(s.op, ast.USub):
            s = s.operand
        return _atom_ok(node.value) and isinstance(s, ast.Constant) and isinstance(s.value, int | str)
    if isinstance(node, ast.Call):
        return (
            isinstance(node.func, ast.Name)
            and node.func.id in ("len", "int")
            and len(node.args) == 1
            and not node.keywords
            and _atom_ok(node.args[0])
        )
    return False


@cache
def _tree(text: str) -> ast.expr | None:
    if len(text) > MAX_TEXT:  # deeper than the recursive walks below may go
        return None
    try:
        return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None


def poly(d: Any) -> Poly | None:
    """A size (int, symbol, size expression) as a polynomial; None when it is none of these."""
    if isinstance(d, bool):
        return None
    if isinstance(d, int):
        return {(): d} if d else {}
    if not isinstance(d, str):
        return None
    tree = _tree(d)
    return None if tree is None else _to_poly(tree)


def _to_poly(node: ast.expr) -> Poly | None:
    if isinstance(node, ast.Constant):
        return poly(node.value) if isinstance(node.value, int) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _to_poly(node.operand)
        return None if inner is None else _scale(inner, -1)
    if isinstance(node, ast.BinOp) and type(node.op) in (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv):
        a, b = _to_poly(node.left), _to_poly(node.right)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Add):
            return _bounded(_add(a, b))
        if isinstance(node.op, ast.Sub):
            return _bounded(_add(a, _scale(b, -1)))
        if isinstance(node.op, ast.Mult):
            return _bounded(_mul(a, b))
        return _bounded(_floordiv(a, b))
    if _atom_ok(node):
        return {(ast.unparse(node),): 1}
    return None


def _scale(p: Poly, k: int) -> Poly:
    return {m: c * k for m, c in p.items() if c * k}


def _add(a: Poly, b: Poly) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + c
    return {m: c for m, c in out.items() if c}


def _mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + ca * cb
    return {m: c for m, c in out.items() if c}


def _divide_exact(a: Poly, b: Poly) -> Poly | None:
    """a / b when b is one term dividing every term of a exactly (`B*T*D / D`, `4*N / 2`), else None."""
    if len(b) != 1:
        return None
    ((mb, cb),) = b.items()
    out: Poly = {}
    for ma, ca in a.items():
        rest = list(ma)
        for atom in mb:
            if atom not in rest:
                return None
            rest.remove(atom)
        if ca % cb:
            return None
        out[tuple(rest)] = ca // cb
    return out


def _floordiv(a: Poly, b: Poly) -> Poly | None:
    if not b:
        return None
    if not a:
        return {}
    exact = _divide_exact(a, b)
    if exact is not None:
        return exact
    if set(b) == {()} and set(a) == {()}:
        return poly(a[()] // b[()])
    return {("(" + text(a) + "//" + text(b) + ")",): 1}


def _mono_text(m: Monomial) -> str:
    return "*".join(m)


def text(p: Poly) -> str:
    """The canonical text of a polynomial: higher degree first, then by atoms; the constant last."""
    if not p:
        return "0"
    terms = sorted(p.items(), key=lambda mc: (-len(mc[0]), mc[0]))
    out = ""
    for m, c in terms:
        body = _mono_text(m)
        if not m:
            piece = str(abs(c))
        elif abs(c) == 1:
            piece = body
        else:
            piece = f"{abs(c)}*{body}"
        out += ("-" if c < 0 else "") + piece if not out else (" - " if c < 0 else " + ") + piece
    return normalise(out)


def size(p: Poly | None) -> Any:
    """A polynomial as a dim: an int when constant, else its canonical text (None stays None, and so does a
    polynomial past the bounds above)."""
    p = _bounded(p)
    if p is None:
        return None
    if set(p) <= {()}:
        return p.get((), 0)
    out = text(p)
    return out if len(out) <= MAX_TEXT else None


def canonical(d: Any) -> Any:
    """A dim in canonical form (`'T*B'` -> `'B*T'`); one that is not a size expression unchanged."""
    if isinstance(d, str):
        p = poly(d)
        out = size(p)
        return d if out is None else out
    return d


def arith(op: str, a: Any, b: Any) -> Any:
    """`a op b` on sizes (ints, symbols, expressions) for op in + - * //; None when not a size."""
    pa, pb = poly(a), poly(b)
    if pa is None or pb is None:
        return None
    if op == "+":
        return size(_add(pa, pb))
    if op == "-":
        return size(_add(pa, _scale(pb, -1)))
    if op == "*":
        return size(_mul(pa, pb))
    if op == "//":
        return size(_floordiv(pa, pb))
    return None


def product(dims: Any) -> Any:
    """The product of sizes: an int, a size expression, or None when some dim is not a size."""
    out: Poly | None = {(): 1}
    for d in dims:
        p = poly(d)
        if p is None or out is None:
            return None
        out = _bounded(_mul(out, p))
    return size(out)


def quotient(a: Any, b: Any) -> Any:
    """a / b when it divides exactly (`'B*T*D' / 'D'` is `'B*T'`), else None."""
    pa, pb = poly(a), poly(b)
    if pa is None or pb is None:
        return None
    q = _divide_exact(pa, pb)
    return None if q is None else size(q)


def _positive(p: Poly) -> bool:
    """p > 0 for every value of its atoms (plain atoms >= 1, floor divisions >= 0)."""
    if not p or any(c < 0 for c in p.values()):
        return False
    return any(not any(a.startswith("(") for a in m) for m in p)


def differ(a: Any, b: Any) -> bool:
    """Two sizes provably differ (their difference is positive or negative whatever the atoms are). A floor
    division times its divisor, `H*(D//H)`, lies between `D-H+1` and `D`: so `2*D` differs from `H*(D//H)`."""
    pa, pb = poly(a), poly(b)
    if pa is None or pb is None:
        return False
    d = _add(pa, _scale(pb, -1))
    if _positive(d) or _positive(_scale(d, -1)):
        return True
    low, high = _bounds(d)
    return low != d and (_positive(low) or _positive(_scale(high, -1)))


def _bounds(p: Poly) -> tuple[Poly, Poly]:
    """Polynomials below and above p: each term `c*Y*(X//Y)*R` (Y one atom) replaced by its least and greatest
    value, `c*(X-Y+1)*R` and `c*X*R` (the other way round for c < 0). Other terms stay."""
    low: Poly = {}
    high: Poly = {}
    for m, c in p.items():
        term: Poly = {m: c}
        lo = hi = term
        divs = [a for a in m if a.startswith("(")]
        parts = _floordiv_parts(divs[0]) if len(divs) == 1 and m.count(divs[0]) == 1 else None
        if parts is not None and parts[1] in m:
            x, y = parts
            rest = list(m)
            rest.remove(divs[0])
            rest.remove(y)
            r: Poly = {tuple(rest): c}
            least, most = _add(x, {(y,): -1, (): 1}), x
            lo, hi = (_mul(r, least), _mul(r, most)) if c > 0 else (_mul(r, most), _mul(r, least))
        low, high = _add(low, lo), _add(high, hi)
    return low, high


def _floordiv_parts(atom: str) -> tuple[Poly, str] | None:
    """`(X//Y)` with Y one atom: (X as a polynomial, Y)."""
    tree = _tree(atom)
    if not (isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.FloorDiv)):
        return None
    x, y = _to_poly(tree.left), _to_poly(tree.right)
    if x is None or y is None or len(y) != 1:
        return None
    ((my, cy),) = y.items()
    return (x, my[0]) if cy == 1 and len(my) == 1 else None


def maybe_one(d: Any) -> bool:
    """A size that may be 1 (what broadcasting stretches); False only when provably not 1."""
    if isinstance(d, int) and not isinstance(d, bool):
        return d == 1
    return not differ(d, 1) if poly(d) is not None else True


def evaluate_size(d: Any, env: Mapping[str, int]) -> int | None:
    """A size's value with its atoms (`n`, `config.d`, `x.shape[0]`: by their text) bound in `env`; None when
    an atom is not bound or `d` is not a size."""
    if isinstance(d, int) and not isinstance(d, bool):
        return d
    tree = _tree(d) if isinstance(d, str) else None
    return None if tree is None else _eval(tree, env)


def substitute(d: Any, mapping: Mapping[str, Any]) -> Any:
    """A size with atoms (by their text) replaced by sizes (`'B*T'` with B=4 is `'4*T'`); canonical."""
    if not isinstance(d, str) or not mapping:
        return d
    tree = _tree(d)
    if tree is None or poly(d) is None:
        return mapping.get(d, d)
    out = _subst_tree(tree, mapping)
    return d if out is None else size(poly(out))


def _subst_tree(node: ast.expr, mapping: Mapping[str, Any]) -> str | None:
    if isinstance(node, ast.Constant):
        return str(node.value)
    if _atom_ok(node):
        text = ast.unparse(node)
        rep = mapping.get(text, text)
        return None if rep is None else f"({rep})"
    if isinstance(node, ast.UnaryOp):
        inner = _subst_tree(node.operand, mapping)
        return None if inner is None else f"(-{inner})"
    if isinstance(node, ast.BinOp):
        a, b = _subst_tree(node.left, mapping), _subst_tree(node.right, mapping)
        op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//"}.get(type(node.op))
        return None if a is None or b is None or op is None else f"({a}{op}{b})"
    return None


def atoms(d: Any) -> set[str]:
    """The atoms a size is a polynomial in (`'B*T+1'`: B and T); empty for an int or a non-size."""
    p = poly(d) if isinstance(d, str) else None
    return {a for m in p for a in m} if p else set()


def exceeds(a: Any, b: Any) -> bool:
    """a > b whatever the atoms are (`'n+1'` exceeds `'n'`, `'2*n'` exceeds 0); False when not provable."""
    pa, pb = poly(a), poly(b)
    return pa is not None and pb is not None and _positive(_add(pa, _scale(pb, -1)))


def remainder(a: Any, k: int) -> int | None:
    """a mod k when it is the same whatever the atoms are (`'3*n+1'` mod 3 is 1), else None."""
    p = poly(a)
    if p is None or k <= 0 or any(c % k for m, c in p.items() if m):
        return None
    return p.get((), 0) % k
