import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental.maps import xmap
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

from namedcheck import f32


def right_declared(x: f32[(3,), {'batch': 8}]) -> f32[(3,)]:
    return lax.psum(x, 'batch')


def right_reduce_absent_bound_name(x: f32[(3,), {'batch': 8}], y: f32[(), {'classes': 10}]) -> None:
    n = lax.psum(1, 'classes')
    s = jnp.sum(x, axis='classes')  # legal: x is broadcast over 'classes' first


def helper_used_under_a_map(v):
    return lax.psum(v, 'i')  # bound by the xmap below: silent


def right_bound_by_map(x: f32[(4, 3)]) -> None:
    y = xmap(helper_used_under_a_map, in_axes=['i', ...], out_axes=[...])(x)  # reveal: f32[(3,)]


def annotated_helper(v: f32[(3,)]) -> f32[(3,)]:
    return lax.pmean(v, 'b')  # passed to vmap(axis_name='b') below: silent


def right_vmap_axis_name(x: f32[(5, 3)]) -> None:
    y = jax.vmap(annotated_helper, axis_name='b')(x)  # reveal: f32[(5, 3)]


def wrong_typo(x: f32[(3,), {'batch': 8}]) -> f32[(3,)]:
    return lax.psum(x, 'btach')  # expect: NC705


def wrong_named_reduction(x: f32[(3,), {'batch': 8}]) -> f32[(3,)]:
    return jnp.sum(x, axis='rows')  # expect: NC705


def wrong_in_map_body(x: f32[(4, 3)]) -> None:
    xmap(lambda v: lax.pmax(v, 'j'), in_axes=['i', ...], out_axes=['i', ...])(x)  # expect: NC705


mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))


def shard_body(v):
    return lax.psum(v, 'model')  # expect: NC501


jax.shard_map(shard_body, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.ones((8, 2)))


def normalise(r: f32[(3,)]) -> f32[(3,)]:
    return r - lax.pmean(r, 'rows')  # called from a vmap body that binds 'rows': silent


def right_called_inside_a_map(x: f32[(5, 3)]) -> None:
    y = jax.vmap(lambda r: normalise(r), axis_name='rows')(x)  # reveal: f32[(5, 3)]


def pair_product(a: f32[(), {'a': 4}], b: f32[(), {'b': 12}]) -> f32[(), {'a': 4, 'b': 12}]:
    return a * b  # expect: NC502


def uses_annotated_helper(a: f32[(), {'a': 4}], b: f32[(), {'b': 12}]) -> f32[()]:
    return jnp.sum(pair_product(a, b), axis=('a', 'b'))


with Mesh(np.array(jax.devices()[:4]), ('x',)):
    xmap(uses_annotated_helper, in_axes=(['a', ...], ['b', ...]), out_axes=[...],
         axis_resources={'a': 'x', 'b': 'x'})(jnp.ones(4), jnp.ones(12))
