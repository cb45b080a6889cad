# Types the mypy plugin gives arrays (type checking only; nothing here exists at runtime).
#
# A declared `f32[(5, 7), {'b': 2}]` is `Shaped[Literal["f32[(5, 7), {'b': 2}]"]]`: a subclass of
# jax.Array, invariant in its parameter, so two different declared shapes are incompatible.
# A declaration with symbols, `...` or any dtype is `Shaped[Any]`.
# An inferred value is `ShapedValue[Literal['f32[(5, 3)]'] | Any]`: the parameter shows the exact type
# (a variable keeps it for reveal_type) and, through the Any, accepts any other, so re-assigning a
# variable with another shape is legal; the engine checks inferred shapes against declarations.
from typing import Any, Generic, TypeVar

from jax import Array

_S = TypeVar("_S")
_V = TypeVar("_V", covariant=True)

class Shaped(Array, Generic[_S]): ...
class ShapedValue(Shaped[Any], Generic[_V]): ...
