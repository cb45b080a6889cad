# Types the mypy plugin gives arrays (type checking only; nothing here exists at runtime).
#
# A declared `f32[(5, 7), {'b': 2}]` is `Shaped[Literal["f32[(5, 7), {'b': 2}]"]]`: a subclass of
# jax.Array, invariant in its parameter, so two different declared shapes are incompatible.
# A declaration with symbols, `...` or any dtype is `Shaped[Any]`.
# An inferred value is `ShapedValue` carrying its exact type as a literal "last known value" (what
# reveal_type shows); like an int literal's, it is dropped when a variable or container takes the
# value, and the engine checks inferred shapes against declarations.
from typing import Any, Generic, TypeVar

from jax import Array

_S = TypeVar("_S")

class Shaped(Array, Generic[_S]): ...
class ShapedValue(Shaped[Any]): ...
