"""A class whose metaclass is the program's own (an enumeration, a registry) may make its body's names anything when
they are read from the class: `Mode.train` is not the string the body binds, so nothing is claimed of it; a plain
class (or one with abc's metaclass) keeps its body's constants."""

import abc

import jax.numpy as jnp


class _Members(type):
    """Reading a name from a class made by this metaclass gives a member wrapping the body's value."""

    def __getattribute__(cls, name):
        value = type.__getattribute__(cls, name)
        return _Member(name, value) if isinstance(value, str) else value


class _Member:
    def __init__(self, name, value):
        self.name = name
        self.value = value

    def is_default(self):
        return self.name == "train"


class Choice(metaclass=_Members):
    pass


class Mode(Choice):
    train = "train"
    evaluate = "evaluate"


class Widths(metaclass=abc.ABCMeta):
    hidden = 32


train = Mode.train  # reveal: Unknown
assert train.is_default()  # a member, not a str: no NC205
assert not Mode.evaluate.is_default()
h = jnp.zeros((Widths.hidden,))  # reveal: f32[(32,)]


def pick(mode):
    return jnp.ones((2,)) if mode.is_default() else jnp.zeros((2,))


chosen = pick(Mode.train)  # reveal: f32[(2,)]
