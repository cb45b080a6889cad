"""Instances of the program's plain classes in branches: a class defining no `__init__` whose bases are the
program's own or `abc.ABC` is built by `object.__init__` (an instance, not an opaque value), and an instance is
never None, so `isinstance(cost, Sq)` and `cost is None` are decided and only the branch the call takes gives
the result's shape."""

import abc

import jax.numpy as jnp


class Cost(abc.ABC):
    @abc.abstractmethod
    def __call__(self, x, y): ...


class Translation(Cost):
    def h(self, z):
        return jnp.sum(z)


class Sq(Translation):
    def __call__(self, x, y):
        return jnp.vdot(x, y)


class Cosine(Cost):
    def __init__(self, ridge: float = 1e-8):
        super().__init__()
        self.ridge = ridge

    def __call__(self, x, y):
        return jnp.vdot(x, y)


class Plain(Cost):
    def __call__(self, x, y):
        return x


class Geometry:
    def __init__(self, x, cost_fn=None):
        self.x = x
        self.cost_fn = Sq() if cost_fn is None else cost_fn

    @property
    def squared(self):
        return isinstance(self.cost_fn, Sq)

    def cost(self):
        if self.squared:
            return jnp.zeros((3, 3))
        return jnp.ones((5,))


def right_default_cost():
    out = Geometry(jnp.ones((4, 2))).cost()  # reveal: f32[(3, 3)]
    return out


def right_other_cost():
    out = Geometry(jnp.ones((4, 2)), Cosine()).cost()  # reveal: f32[(5,)]
    return out


def right_no_init():
    out = Geometry(jnp.ones((4, 2)), cost_fn=Plain()).cost()  # reveal: f32[(5,)]
    return out @ jnp.ones((5,))


def right_picked():
    c = Cosine()
    picked = Sq() if c is None else c
    out = jnp.ones((2,)) if isinstance(picked, Translation) else jnp.ones((7,))  # reveal: f32[(7,)]
    return out


def wrong_other_cost():
    return Geometry(jnp.ones((4, 2)), Plain()).cost() @ jnp.ones((3,))  # expect: NC203
