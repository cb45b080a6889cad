"""Whole-array comparisons (`allclose`, numpy's testing asserts): the operands must broadcast together
(NC201 / NC202); the result is one boolean (or None for an assert). `array_equal` and `array_equiv`
answer False for shapes that do not broadcast, so they have no rule."""

from __future__ import annotations

from typing import Any

from namedcheck.engine.ops.core import Call, rule
from namedcheck.engine.ops.elementwise import broadcast_values
from namedcheck.engine.values import ArrayType, Const


@rule("jax.numpy.allclose")
def allclose_rule(call: Call) -> Any:
    broadcast_values(call, ["a", "b"], "bool")
    return ArrayType.make("bool_", ())


# numpy's asserts require equal shapes (scalars aside): operands that do not even broadcast are wrong.
@rule("numpy.testing.assert_allclose")
def assert_allclose_rule(call: Call) -> Any:
    broadcast_values(call, ["actual", "desired"], "bool")
    return Const(None)


@rule("numpy.testing.assert_array_equal")
def assert_array_equal_rule(call: Call) -> Any:
    broadcast_values(call, ["actual", "desired"], "bool")
    return Const(None)
