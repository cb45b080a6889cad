"""chex's shape assertions as the `assert` statements they stand for.

`chex.assert_shape(x, (B, D))` is `assert x.shape == (B, D)`, `chex.assert_rank(x, 2)` is `assert x.ndim == 2`,
`chex.assert_axis_dimension(x, 1, D)` is `assert x.shape[1] == D`, and `chex.assert_equal_shape([a, b])` is
`assert a.shape == b.shape`: the statement runner checks the test they give (NC204 where it provably fails for
the sizes that reach it) and learns its equalities where it holds (analyzer/facts.py). Only the plain forms are
read: an expected shape holding `None` or `...`, a set of ranks, a list of inputs to `assert_shape`, or `dims=`
are not (the assertion is then unknown: nothing is reported or learned). A module that calls
`chex.disable_asserts` turns them all off."""

from __future__ import annotations

import libcst as cst

from namedcheck.analyzer.refs import QualRef
from namedcheck.analyzer.scope import FrameState
from namedcheck.engine.names import canonical_name

_PARAMS = {  # chex's parameter names, in order
    "chex.assert_shape": ("inputs", "expected_shapes"),
    "chex.assert_rank": ("inputs", "expected_ranks"),
    "chex.assert_axis_dimension": ("tensor", "axis", "expected"),
    "chex.assert_equal_shape": ("inputs",),
}


_NAMES = {name.rpartition(".")[2] for name in _PARAMS}


def assertion_test(f: FrameState, call: cst.BaseExpression) -> cst.BaseExpression | None:
    """The `assert` test a chex shape assertion stands for (built from the call's own argument nodes), or None
    for any other expression or a form not read."""
    if not isinstance(call, cst.Call):
        return None
    spelled = call.func.attr.value if isinstance(call.func, cst.Attribute) else getattr(call.func, "value", None)
    if spelled not in _NAMES:  # read by its spelling first: evaluating `xs.append` forgets the list
        return None
    func = f.ev(call.func)
    name = canonical_name(func.name) if isinstance(func, QualRef) else ""
    params = _PARAMS.get(name)
    if params is None or "disable_asserts" in (getattr(f.an, "source", None) or ""):
        return None
    args = _bound(call, params)
    if args is None:
        return None
    if name == "chex.assert_shape":
        inputs, expected = args.get("inputs"), args.get("expected_shapes")
        if inputs is None or isinstance(inputs, cst.List | cst.Tuple) or not _plain_shape(expected):
            return None
        assert isinstance(expected, cst.List | cst.Tuple)
        return _equal(_shape(inputs), cst.Tuple([cst.Element(e.value, comma=cst.Comma()) for e in expected.elements]))
    if name == "chex.assert_rank":
        inputs, rank = args.get("inputs"), args.get("expected_ranks")
        if inputs is None or isinstance(inputs, cst.List | cst.Tuple) or not isinstance(rank, cst.Integer | cst.Name):
            return None
        return _equal(cst.Attribute(inputs, cst.Name("ndim")), rank)
    if name == "chex.assert_axis_dimension":
        tensor, axis, expected = args.get("tensor"), args.get("axis"), args.get("expected")
        if tensor is None or axis is None or expected is None:
            return None
        return _equal(cst.Subscript(_shape(tensor), [cst.SubscriptElement(cst.Index(axis))]), expected)
    inputs = args.get("inputs")  # assert_equal_shape: every input's shape equal
    if not isinstance(inputs, cst.List | cst.Tuple) or len(inputs.elements) < 2:
        return None
    if any(isinstance(e, cst.StarredElement) for e in inputs.elements):
        return None
    shapes = [_shape(e.value) for e in inputs.elements]
    return cst.Comparison(shapes[0], [cst.ComparisonTarget(cst.Equal(), s) for s in shapes[1:]])


def _bound(call: cst.Call, params: tuple[str, ...]) -> dict[str, cst.BaseExpression] | None:
    """The call's arguments by parameter name; None where one is starred or not among `params` (`dims=`, ...)."""
    out: dict[str, cst.BaseExpression] = {}
    for i, a in enumerate(call.args):
        if a.star:
            return None
        if a.keyword is None:
            if i >= len(params):
                return None
            out[params[i]] = a.value
        elif a.keyword.value in params:
            out[a.keyword.value] = a.value
        else:
            return None
    return out


def _plain_shape(node: cst.BaseExpression | None) -> bool:
    """A literal shape of sizes: no `None`, no `...`, no starred entry."""
    if not isinstance(node, cst.List | cst.Tuple):
        return False
    for e in node.elements:
        if isinstance(e, cst.StarredElement) or isinstance(e.value, cst.Ellipsis):
            return False
        if isinstance(e.value, cst.Name) and e.value.value == "None":
            return False
    return True


def _shape(node: cst.BaseExpression) -> cst.Attribute:
    return cst.Attribute(node, cst.Name("shape"))


def _equal(left: cst.BaseExpression, right: cst.BaseExpression) -> cst.Comparison:
    return cst.Comparison(left, [cst.ComparisonTarget(cst.Equal(), right)])


__all__ = ["assertion_test"]
