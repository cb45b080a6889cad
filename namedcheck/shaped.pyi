# The type the mypy plugin gives an annotated array: `f32[(5, 7), {'b': 2}]` is
# `Shaped[Literal["f32[(5, 7), {'b': 2}]"]]`. A subclass of jax.Array, so it goes wherever an array
# goes; invariant in its parameter, so two different shapes are incompatible. Type checking only.
from typing import Generic, TypeVar

from jax import Array

_S = TypeVar("_S")

class Shaped(Array, Generic[_S]): ...
