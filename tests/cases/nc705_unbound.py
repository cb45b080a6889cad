# Collectives over an axis name nothing binds: under jit, outside any map, inside a vmap / pmap without
# axis_name= or with another name. JAX raises `NameError: Found an unbound axis name`. A function only ever
# analysed on its own (it may run under a map elsewhere) stays silent.
# tests/test_map_arguments_under_jax.py runs every `right_*` function under JAX and every `wrong_*` one.
import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ('i',))


def total_over_batch(x):
    return lax.psum(x, axis_name='batch')  # expect: NC705


def wrong_pmap_without_axis_name():
    a = jnp.arange(4)[jnp.newaxis, :]
    return jax.pmap(total_over_batch)(a)


def mean_over_devices(g):
    return lax.pmean(g, axis_name='devices')  # expect: NC705


def wrong_pmap_other_axis_name():
    return jax.pmap(mean_over_devices, axis_name='data')(jnp.ones((2, 3)))


def rank_in_rows(r):
    return r + lax.axis_index('rows')  # expect: NC705


def wrong_vmap_without_axis_name():
    return jax.vmap(rank_in_rows)(jnp.ones((4, 3)))


def gather_rows(r):
    return lax.all_gather(r, 'rows')  # expect: NC705


def wrong_vmap_other_axis_name():
    return jax.vmap(gather_rows, axis_name='cols')(jnp.ones((4, 3)))


@jax.jit
def reduce_all(x):
    return lax.psum(x, 'i')  # expect: NC705


def wrong_jit_psum():
    return reduce_all(jnp.ones(2))


def largest(x):
    return lax.pmax(x, 'i')  # expect: NC705


def wrong_jit_call_psum():
    return jax.jit(largest)(jnp.ones(2))


def mean_over_i(x):
    return lax.pmean(x, 'i')  # expect: NC705


def wrong_jit_in_shardings_psum():
    return jax.jit(mean_over_i, in_shardings=NamedSharding(mesh, P('i')))(jnp.ones(8))


# ---- right: the name is bound where the function runs

def summed(x):
    return lax.psum(x, 'i')


def right_vmap_binds_it():
    out = jax.vmap(summed, axis_name='i')(jnp.ones(4))  # reveal: f32[(4,)]
    return out


def right_pmap_binds_it():
    out = jax.pmap(summed, axis_name='i')(jnp.ones((2, 3)))  # reveal: f32[(2, 3)]
    return out


def right_jit_under_vmap():
    out = jax.vmap(jax.jit(summed), axis_name='i')(jnp.ones(4))  # reveal: f32[(4,)]
    return out


def pmapped_inside(x):
    return jax.pmap(summed)(x)


def right_pmap_under_vmap_that_binds_it():
    out = jax.vmap(pmapped_inside, axis_name='i')(jnp.ones((3, 2)))  # reveal: f32[(3, 2)]
    return out


def right_shard_map_binds_it():
    out = jax.shard_map(summed, mesh=mesh, in_specs=P("i"), out_specs=P())(jnp.ones(8))
    return out


def right_make_jaxpr_binds_it():
    return jax.make_jaxpr(summed, axis_env=[('i', 4)])(jnp.ones(3))


staged = right_make_jaxpr_binds_it()  # module code: nothing around it binds 'i', but axis_env= does


def helper_for_a_map_elsewhere(x):
    return lax.psum(x, 'model')  # analysed on its own: it may run under a map that binds 'model'


@jax.jit
def jitted_for_a_map_elsewhere(x):
    return lax.pmean(x, 'model')  # jitted, never called here: silent


def step_for_a_map_elsewhere(x):
    return jax.jit(helper_for_a_map_elsewhere)(x)  # a function on its own: its caller may bind 'model'


# a map inside another: the inner map's body runs under both, and sees both names (a decorator stack, nested calls)
@functools.partial(jax.vmap, axis_name='outer')
@functools.partial(jax.vmap, axis_name='inner')
def stacked_positions(v):
    return lax.axis_index('outer') * 10 + lax.axis_index('inner') + v


def right_stacked_vmaps_bind_both_names():
    return stacked_positions(jnp.zeros((4, 2)))


def grid_position(v):
    return lax.axis_index('outer') * 10 + lax.axis_index('inner') + v


def right_nested_vmaps_bind_both_names():
    return jax.vmap(jax.vmap(grid_position, axis_name='inner'), axis_name='outer')(jnp.zeros((4, 2)))


inner_then_outer = jax.vmap(grid_position, axis_name='inner')  # wrapped below: its body runs under 'outer' too
both = jax.vmap(inner_then_outer, axis_name='outer')


def cell_position(v):
    return lax.axis_index('row') + v  # expect: NC705


def wrong_nested_vmaps_miss_a_name():
    return jax.vmap(jax.vmap(cell_position, axis_name='inner'), axis_name='outer')(jnp.zeros((4, 2)))



def row_total(x):
    return lax.psum(x, 'i')  # the inner map's 'i': JAX lets an inner map bind an enclosing map's name again


def right_inner_map_shadows_the_outer_name():
    out = jax.vmap(jax.vmap(row_total, axis_name='i'), axis_name='i')(jnp.ones((2, 3)))  # reveal: f32[(2, 3)]
    return out


if __name__ == '__main__':
    wrong_jit_psum()
    wrong_jit_call_psum()
    wrong_jit_in_shardings_psum()
