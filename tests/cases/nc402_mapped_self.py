# A method decorated by pmap / vmap gets `self` as its first argument: JAX rejects an instance of a plain
# class (neither an array nor a registered pytree) unless pmap marks it static (vmap: in_axes None).
# tests/test_map_arguments_under_jax.py runs every `right_*` / `wrong_*` function under JAX.
from dataclasses import dataclass
from functools import partial

import jax
import jax.numpy as jnp


class Trainer:
    def __init__(self, lr):
        self.lr = lr

    @partial(jax.pmap, axis_name='batch')
    def step(self, x):
        return x * self.lr

    @partial(jax.pmap, axis_name='batch', static_broadcasted_argnums=0)
    def step_static(self, x):
        return x * self.lr

    @jax.vmap
    def double(self, x):
        return x * 2

    @partial(jax.vmap, in_axes=(None, 0))
    def double_unmapped_self(self, x):
        return x * 2

    @partial(jax.pmap, static_broadcasted_argnums=0)
    def scaled(self, x, y):
        return x * y * self.lr

    def run(self, x):
        return self.step(x)  # expect: NC402


def wrong_pmap_method_maps_self():
    return Trainer(0.1).step(jnp.ones(2))  # expect: NC402


def wrong_vmap_method_maps_self():
    return Trainer(0.1).double(jnp.ones(2))  # expect: NC402


def wrong_method_calls_pmapped_method():
    return Trainer(0.1).run(jnp.ones(2))


def wrong_pmapped_method_missing_argument():
    return Trainer(0.1).scaled(jnp.ones(2))  # expect: NC402


def right_pmapped_method_all_arguments():
    out = Trainer(0.1).scaled(jnp.ones(2), jnp.ones(2))  # reveal: f32[(2,)]
    return out


def right_pmap_method_static_self():
    out = Trainer(0.1).step_static(jnp.ones((2, 3)))  # reveal: f32[(2, 3)]
    return out


def right_vmap_method_self_not_mapped():
    out = Trainer(0.1).double_unmapped_self(jnp.ones(4))  # reveal: f32[(4,)]
    return out


def right_pmap_bound_method():
    t = Trainer(0.1)
    return jax.pmap(lambda x: x * t.lr)(jnp.ones(2))


@jax.tree_util.register_pytree_node_class
class Scaler:
    def __init__(self, w):
        self.w = w

    def tree_flatten(self):
        return (self.w,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)

    @jax.vmap
    def apply(self, x):
        return x * self.w


def right_vmap_method_of_a_pytree():
    return Scaler(jnp.ones(3)).apply(jnp.ones(3))


@dataclass(frozen=True)
class Config:
    scale: float


def right_static_dataclass():
    return jax.pmap(lambda x, c: x * c.scale, static_broadcasted_argnums=1)(jnp.ones(2), Config(2.0))
