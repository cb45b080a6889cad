"""Calls into helpers the way library code is called from its tests: `**kwargs` taking the call's other keywords
(forwarded, read by key), instances of the program's classes without an `__init__` (built by `object`, their
methods and `__call__`, through `super()`), generic bases (`Env[State]`), `arg or Default()` of an instance;
numpy's `copy`, the array methods numpy and JAX share, and its other samplers (`binomial`, `poisson`, ...);
pytrees with key paths, `reduce`, `structure` / `unflatten`."""

import abc
from typing import Generic, TypeVar

import jax
import jax.numpy as jnp
import numpy as np


def _scaled(x, scale=None, bias=None):
    y = x * scale
    return y


def _forward(x, **kwargs):
    return _scaled(x, **kwargs)


def _by_key(x, **kwargs):
    s = kwargs["scale"]
    return x @ s  # expect: NC203


def right_kwargs_forwarded():
    x = jnp.ones((3, 4))
    out = _forward(x, scale=jnp.ones((1, 4)))  # reveal: f32[(3, 4)]
    got = _by_key(x, scale=jnp.ones((4, 2)), name="proj")  # reveal: f32[(3, 2)]
    return out, got


def wrong_kwargs_forwarded():
    x = jnp.ones((3, 4))
    return _by_key(x, scale=jnp.ones((3, 2)))


class _Doubler:
    def __call__(self, x):
        return x * 2

    def widen(self, x):
        return jnp.concatenate([x, x], axis=-1)


class _Widened(_Doubler):
    def __call__(self, x):
        h = super().__call__(x)
        return self.widen(h)


class _Base(abc.ABC):
    def project(self, x, w):
        return x @ w  # expect: NC203


class _Plain(object):
    def apply(self, x):
        return x.sum(axis=0)


def right_instances_without_init():
    x = jnp.ones((3, 4))
    a = _Doubler()(x)  # reveal: f32[(3, 4)]
    b = _Widened()(x)  # reveal: f32[(3, 8)]
    c = _Base().project(x, jnp.ones((4, 5)))  # reveal: f32[(3, 5)]
    d = _Plain().apply(x)  # reveal: f32[(4,)]
    return a, b, c, d


def wrong_instances_without_init():
    x = jnp.ones((3, 4))
    return _Base().project(x, jnp.ones((3, 5)))


T = TypeVar("T")


class _Env(abc.ABC, Generic[T]):
    def __init__(self):
        self.steps = 3


class _Source:
    def __init__(self, n):
        self.n = n

    def __call__(self, key):
        return jax.random.uniform(key, (self.n,))


class _Task(_Env[int]):
    def __init__(self, source=None):
        self.source = source or _Source(5)  # an instance of a class without `__bool__` / `__len__` is true
        super().__init__()

    def reset(self, key):
        return self.source(key)


def right_generic_base_and_or_default():
    key = jax.random.key(0)
    given = _Task(_Source(4)).reset(key)  # reveal: f32[(4,)]
    default = _Task().reset(key)  # reveal: f32[(5,)]
    jitted = jax.jit(_Task(_Source(2)).reset)(key)  # reveal: f32[(2,)]
    return given, default, jitted


def wrong_generic_base_and_or_default():
    key = jax.random.key(0)
    return _Task(_Source(4)).reset(key) + jnp.ones(5)  # expect: NC201


def right_numpy_copies_and_methods():
    a = np.zeros((4, 3))
    b = np.copy(a)  # reveal: f64[(4, 3)]
    c = jnp.copy(jnp.ones((2, 5)))  # reveal: f32[(2, 5)]
    d = a.copy()  # reveal: f64[(4, 3)]
    e = a.diagonal()  # reveal: f64[(3,)]
    f = a.argsort()  # reveal: i64[(4, 3)]
    g = a.take(np.array([0, 1]), axis=0)  # reveal: f64[(2, 3)]
    h = jnp.ones((3, 4)).repeat(2, axis=1)  # reveal: f32[(3, 8)]
    return b, c, d, e, f, g, h


def wrong_numpy_copies_and_methods():
    return np.copy(np.zeros((4, 3))) + jnp.ones(4)  # expect: NC201


def right_numpy_distributions():
    rng = np.random.RandomState(0)
    a = rng.binomial(1, 0.5, size=(4, 4))  # reveal: i64[(4, 4)]
    b = np.random.exponential(2.0, size=3)  # reveal: f64[(3,)]
    c = np.random.default_rng(0).poisson(3.0, size=(2, 5))  # reveal: i64[(2, 5)]
    d = rng.random_sample((3, 2))  # reveal: f64[(3, 2)]
    return a, b, c, d


def wrong_numpy_distributions():
    rng = np.random.RandomState(0)
    return rng.binomial(1, 0.5, size=(4, 4)) @ np.ones((3, 2))  # expect: NC203


def right_tree_paths_and_structures():
    params = {"w": jnp.ones((4, 3)), "b": [jnp.ones(3), None]}
    pairs, _ = jax.tree_util.tree_flatten_with_path(params)
    for _path, leaf in pairs:
        doubled = leaf * 2
    first = jax.tree_util.tree_leaves_with_path(params)[0][1]  # reveal: f32[(3,)]
    scaled = jax.tree_util.tree_map_with_path(lambda path, x: x.sum(0), params)
    w = scaled["w"]  # reveal: f32[(3,)]
    leaves, treedef = jax.tree.flatten(params)
    rebuilt = jax.tree.unflatten(treedef, [x[None] for x in leaves])
    b = rebuilt["b"][0]  # reveal: f32[(1, 3)]
    total = jax.tree.reduce(lambda a, c: a + c.sum(0), [jnp.ones((2, 3)), jnp.ones((5, 3))], jnp.zeros(3))
    out = total  # reveal: f32[(3,)]
    return doubled, first, w, b, out


def wrong_tree_paths_and_structures():
    params = {"w": jnp.ones((4, 3)), "b": jnp.ones(3)}
    leaves, treedef = jax.tree.flatten(params)
    rebuilt = jax.tree.unflatten(treedef, leaves)
    return rebuilt["w"] @ rebuilt["w"]  # expect: NC203
