"""Methods analysed on their own once their class is complete (a linen module's `self.param`), and instance
attributes a builder sets (`__init__` of nnx / equinox / plain classes, linen `setup`) read in other methods:
known where the builder sets them once, on every path, and nothing else assigns them; sizes computed from the
builder's parameters are not known there (the exact ones where the instance is built with known arguments)."""

import equinox as eqx
import flax.linen as nn
import jax
import jax.numpy as jnp
from flax import nnx

from namedcheck import f32


class Scale(nn.Module):
    @nn.compact
    def __call__(self, x):
        w = self.param("w", nn.initializers.ones, (3, 4))  # reveal: f32[(3, 4)]
        return x @ w


class Project(nn.Module):
    def setup(self):
        self.dense = nn.Dense(6)
        self.k = self.param("k", nn.initializers.ones, (4, 5))

    def __call__(self, x: f32[(2, 3)]):
        h = self.dense(x)  # reveal: f32[(2, 6)]
        return h, x @ self.k  # expect: NC203


class Affine(eqx.Module):
    w: jax.Array
    b: jax.Array

    def __init__(self, n, m):
        self.w = jnp.ones((n, m))
        self.b = jnp.zeros((m,))

    def weights(self):
        w = self.w  # reveal: f32[(3, 4)]
        return w

    def __call__(self, x):
        return x @ self.w + self.b


class Head(eqx.Module):
    proj: eqx.nn.Linear
    scale: jax.Array

    def __init__(self, key):
        self.proj = eqx.nn.Linear(8, 2, key=key)
        self.scale = jnp.ones((3,))

    def __call__(self, x: f32[(8,)]):
        h = self.proj(x)  # reveal: f32[(2,)]
        return h * self.scale  # expect: NC201


class Block(nnx.Module):
    def __init__(self, din, dout, rngs: nnx.Rngs):
        self.lin = nnx.Linear(din, dout, rngs=rngs)
        self.bias = nnx.Param(jnp.zeros((dout,)))
        self.gain = nnx.Param(jnp.ones((4,)))

    def __call__(self, x: f32[(2, 3)]):
        g = self.gain.value  # reveal: f32[(4,)]
        return self.lin(x) + self.bias.value


class Wide(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.lin = nnx.Linear(3, 4, rngs=rngs)

    def __call__(self, x: f32[(2, 5)]):
        return self.lin(x)  # expect: NC203


class Either(eqx.Module):
    w: jax.Array

    def __init__(self, wide):
        if wide:
            self.w = jnp.ones((3, 8))
        else:
            self.w = jnp.ones((3, 4))

    def __call__(self, x: f32[(2, 3)]):
        return x @ self.w + jnp.ones((2, 8))  # set on one path only: not known here


class Grows(nnx.Module):
    def __init__(self):
        self.state = nnx.Variable(jnp.zeros((3,)))

    def grow(self):
        self.state = nnx.Variable(jnp.zeros((5,)))

    def __call__(self, x: f32[(5,)]):
        return x + self.state.value  # assigned by another method too: not known here


class Twice(eqx.Module):
    w: jax.Array

    def __init__(self):
        self.w = jnp.ones((3,))
        self.w = jnp.ones((5,))

    def __call__(self, x: f32[(5,)]):
        return x + self.w  # assigned twice: not known here


class Base(eqx.Module):
    w: jax.Array

    def __init__(self):
        self.w = jnp.ones((3,))

    def __call__(self, x: f32[(4,)]):
        return x + self.w  # only a subclass's instances are called: silent


class Derived(Base):
    def __init__(self):
        self.w = jnp.ones((4,))


class Lora(nnx.Module):
    def __init__(self, rngs: nnx.Rngs):
        self.inner = nnx.Linear(3, 4, rngs=rngs)

    def __call__(self, x: f32[(2, 3)]):
        return self.inner(x) + jnp.ones((2, 6))  # the program replaces the layer (`m.inner = ...`): silent


class Swap(eqx.Module):
    inner: eqx.nn.Linear

    def __init__(self, key):
        self.inner = eqx.nn.Linear(3, 4, key=key)

    def __call__(self, x: f32[(3,)]):
        return self.inner(x) + jnp.ones((6,))  # the program replaces the layer (`eqx.tree_at`): silent


# A `make=` default hides which class is built from the checker (defaults are not values in a function
# analysed on its own): the methods are then known only from their own analysis.


def right_scale():
    m = Scale()
    params = m.init(jax.random.key(0), jnp.ones((2, 3)))
    y = m.apply(params, jnp.ones((2, 3)))  # reveal: f32[(2, 4)]
    return y


def right_affine():
    a = Affine(3, 4)
    w = a.weights()  # reveal: f32[(3, 4)]
    y = a(jnp.ones((2, 3)))  # reveal: f32[(2, 4)]
    return w, y


def right_block():
    y = Block(3, 4, nnx.Rngs(0))(jnp.ones((2, 3)))  # reveal: f32[(2, 4)]
    return y


def right_block_alone(make=Block):
    return make(3, 4, nnx.Rngs(0))(jnp.ones((2, 3)))


def right_either(make=Either):
    return make(True)(jnp.ones((2, 3)))


def right_grows(make=Grows):
    g = make()
    g.grow()
    return g(jnp.ones((5,)))


def right_twice(make=Twice):
    return make()(jnp.ones((5,)))


def right_derived(make=Derived):
    return make()(jnp.ones((4,)))


def wrong_project(make=Project):
    return make().init(jax.random.key(0), jnp.ones((2, 3)))


def wrong_head(make=Head):
    return make(jax.random.key(0))(jnp.ones((8,)))


def wrong_wide(make=Wide):
    return make(nnx.Rngs(0))(jnp.ones((2, 5)))


def right_surgery(make=Lora):
    m = make(nnx.Rngs(0))
    m.inner = nnx.Linear(3, 6, rngs=nnx.Rngs(1))
    return m(jnp.ones((2, 3)))


def right_tree_at(make=Swap):
    m = make(jax.random.key(0))
    m = eqx.tree_at(lambda s: s.inner, m, eqx.nn.Linear(3, 6, key=jax.random.key(1)))
    return m(jnp.ones((3,)))
