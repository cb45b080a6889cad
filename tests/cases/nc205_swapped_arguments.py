"""Arguments swapped at a call: the callee reads an attribute of a Python string or number (NC205), with a note
at the call that passed it."""

import dataclasses
import enum

import jax.numpy as jnp
import numpy as np


@dataclasses.dataclass
class Cfg:
    fsdp: bool = True
    width: int = 8


def init(layer_type, cfg):
    scale = 2 if cfg.fsdp else 1  # expect: NC205
    return jnp.ones((cfg.width, scale))


def size_of(shape):
    n = np.prod(shape)
    return n.item()  # numpy's scalar has .item: not reported


def label(name):
    return name.upper()  # a str method


class Kind(enum.Enum):
    DENSE = "dense"


def describe(kind):
    return kind.value  # an Enum member, not its value: not reported


def build(cfg):
    a = init("embedding", cfg)
    b = init(cfg, "embedding")
    return a, b


if __name__ == "__main__":
    size_of((2, 3))
    label("dense")
    describe(Kind.DENSE)
    build(Cfg())
