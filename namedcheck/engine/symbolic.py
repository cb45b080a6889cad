"""Size arithmetic in symbols: `'N+1'`, `'2*D'`, `'D//H'`, `'N-1'`.

A size expression is kept in a shape as its text without spaces (a symbol the op rules never look
inside: two such dims are equal only when written alike). Signature binding evaluates it once its
symbols are bound, and solves a linear one (`'N+1'` against 8 binds N=7).
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


def is_symbol(d: Any) -> bool:
    """A plain symbol such as 'N' (not an expression)."""
    return isinstance(d, str) and d.isidentifier()


def is_expression(d: Any) -> bool:
    return isinstance(d, str) and not d.isidentifier() and parse(d) is not None


def normalise(text: str) -> str:
    return "".join(text.split())


@cache
def parse(text: str) -> ast.expr | None:
    """The expression tree of a size expression, or None when it is not one (ints, symbols, + - * //)."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    return tree if _valid(tree) else None


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
    if isinstance(node, ast.Name):
        v = env.get(node.id)
        return v if isinstance(v, int) and not isinstance(v, bool) else None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, int) else None
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, env)
        return None if v is None else -v
    assert isinstance(node, ast.BinOp)
    a, b = _eval(node.left, env), _eval(node.right, env)
    return None if a is None or b is None else _OPS[type(node.op)](a, b)


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
