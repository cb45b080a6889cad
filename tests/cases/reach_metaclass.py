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


class _Signed(type):
    """A metaclass that only records the signature of its classes' constructors (numpyro's distributions)."""

    def __init__(cls, *args, **kwargs):
        cls.__signature__ = None
        super().__init__(*args, **kwargs)


class Distribution(metaclass=_Signed):
    support_size = 3


class Categorical(Distribution):
    pass


probs = jnp.ones((Categorical.support_size,))  # reveal: f32[(3,)]


try:
    from a_plugin_not_installed import Registered  # a base the analysis cannot see (it may have a metaclass)
except ImportError:
    Registered = Choice


class Phase(Registered):
    warmup = "warmup"


assert Phase.warmup.is_default() is False  # a member here: nothing is claimed of it


def wrong_width():
    return jnp.ones((Widths.hidden,)) @ jnp.ones((3,))  # expect: NC203
