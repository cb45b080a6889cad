# vmap / pmap arguments: keyword arguments (always mapped over axis 0), in_axes as a tree prefix of the
# arguments, scalars where an axis is mapped, the function's own parameters, pmap's static arguments.
# tests/test_map_arguments_under_jax.py runs every `right_*` function under JAX (it must run) and every
# `wrong_*` one (it must raise).
from functools import partial

import jax
import jax.numpy as jnp


def add(x, y):
    return x + y


def scale(x, s):
    return x * s


def sum_pair(pair):
    a, b = pair
    return a + b


def first_item(d):
    return d['a']


# ---- keyword arguments: mapped over their leading axis, whatever in_axes says

def right_keyword_same_size():
    out = jax.vmap(add)(jnp.ones(3), y=jnp.ones(3))  # reveal: f32[(3,)]
    return out


def right_keyword_with_in_axes_one():
    out = jax.vmap(add, in_axes=1)(jnp.ones((2, 5)), y=jnp.ones(5))  # reveal: f32[(5, 2)]
    return out


def right_keyword_positional_unmapped():
    out = jax.vmap(add, in_axes=(None,))(jnp.ones(3), y=jnp.ones((4, 3)))  # reveal: f32[(4, 3)]
    return out


def right_pmap_keyword():
    out = jax.pmap(add)(jnp.ones((2, 3)), y=jnp.ones((2, 3)))  # reveal: f32[(2, 3)]
    return out


def wrong_keyword_size():
    return jax.vmap(add)(jnp.ones(3), y=jnp.ones(4))  # expect: NC403


def wrong_keyword_size_one():
    batch = 2
    x = jnp.ones(batch)
    return jax.vmap(add)(x, y=jnp.ones(1))  # expect: NC403


@jax.vmap
def shifted(x, y):
    return x + y


def shift_all(xs, n):
    offsets = jnp.arange(n + 1)
    return shifted(xs, y=offsets)  # expect: NC403


def wrong_decorated_keyword():
    return shift_all(jnp.ones(3), 3)


def wrong_keyword_scalar():
    return jax.vmap(add)(jnp.ones(3), y=1.0)  # expect: NC402


def right_axis_size_agrees():
    out = jax.vmap(add, in_axes=(0, None), axis_size=4)(jnp.ones((4, 3)), jnp.ones(3))  # reveal: f32[(4, 3)]
    return out


def wrong_axis_size():
    return jax.vmap(add, in_axes=(None, 0), axis_size=3)(jnp.ones(2), jnp.ones(4))  # expect: NC403


def wrong_pmap_keyword_size():
    return jax.pmap(add)(jnp.ones(2), y=jnp.ones(4))  # expect: NC403


# ---- in_axes: a tree prefix of the positional arguments

def right_in_axes_nested():
    out = jax.vmap(sum_pair, in_axes=((0, None),))((jnp.ones((4, 3)), jnp.ones(3)))  # reveal: f32[(4, 3)]
    return out


def right_in_axes_list():
    out = jax.vmap(scale, in_axes=[0, None])(jnp.ones((4, 3)), 2.0)  # reveal: f32[(4, 3)]
    return out


def right_in_axes_dict():
    d = {'a': jnp.ones((4, 3)), 'b': jnp.ones(2)}
    out = jax.vmap(first_item, in_axes=({'a': 0, 'b': None},))(d)  # reveal: f32[(4, 3)]
    return out


def wrong_in_axes_for_one_tuple_argument():
    pair = (jnp.ones(3), jnp.ones(3))
    return jax.vmap(sum_pair, in_axes=(0, 0))(pair)  # expect: NC401


def wrong_in_axes_nested_too_long():
    pair = (jnp.ones(3), jnp.ones(3))
    return jax.vmap(sum_pair, in_axes=((0, 0, 0),))(pair)  # expect: NC401


def wrong_in_axes_dict_keys():
    return jax.vmap(first_item, in_axes=({'b': 0},))({'a': jnp.ones(3)})  # expect: NC401


def wrong_in_axes_dict_not_in_tuple():
    return jax.vmap(first_item, in_axes={'a': 0})({'a': jnp.ones(3)})  # expect: NC401


def wrong_in_axes_length():
    return jax.vmap(add, in_axes=(0, 0, 0))(jnp.ones(3), jnp.ones(3))  # expect: NC401


def wrong_in_axes_container_for_array():
    return jax.vmap(scale, in_axes=((0, 0), None))(jnp.ones(3), 2.0)  # expect: NC401


def wrong_pmap_in_axes_length():
    return jax.pmap(add, in_axes=(0, 0, 0))(jnp.ones(2), jnp.ones(2))  # expect: NC401


# ---- scalars, missing parameters, sizes, static arguments

def right_scalar_not_mapped():
    out = jax.vmap(scale, in_axes=(0, None))(jnp.ones(3), 2.0)  # reveal: f32[(3,)]
    return out


def right_pmap_scalar_not_mapped():
    out = jax.pmap(scale, in_axes=(0, None))(jnp.ones(2), 2.0)  # reveal: f32[(2,)]
    return out


def wrong_python_scalar_mapped():
    return jax.vmap(scale)(jnp.ones(3), 2.0)  # expect: NC402


def wrong_rank0_array_mapped():
    return jax.vmap(jnp.sin)(jnp.float32(1.0))  # expect: NC402


def wrong_scalar_inside_a_tuple():
    return jax.vmap(sum_pair)((jnp.ones(3), 2.0))  # expect: NC402


def wrong_pmap_python_scalar():
    return jax.pmap(scale)(jnp.ones(2), 2.0)  # expect: NC402


def wrong_pmap_sizes():
    return jax.pmap(add)(jnp.ones(2), jnp.ones(4))  # expect: NC403


def wrong_too_few_arguments():
    return jax.vmap(add)(jnp.ones(3))  # expect: NC402


def wrong_pmap_too_few_arguments():
    return jax.pmap(scale)(jnp.ones(2))  # expect: NC402


def wrong_too_many_arguments():
    return jax.vmap(sum_pair)(jnp.ones(3), jnp.ones(3))  # expect: NC402


def right_default_parameter_left_out():
    out = jax.vmap(lambda x, k=2: x * k)(jnp.ones(3))  # reveal: f32[(3,)]
    return out


def right_static_argument():
    out = jax.pmap(scale, static_broadcasted_argnums=1)(jnp.ones(2), 3)  # reveal: f32[(2,)]
    return out


def right_static_argument_in_axes_for_the_others():
    out = jax.pmap(scale, in_axes=(0,), static_broadcasted_argnums=(1,))(jnp.ones(2), 3)  # reveal: f32[(2,)]
    return out


def wrong_static_argument_array():
    return jax.pmap(scale, static_broadcasted_argnums=1)(jnp.ones(2), jnp.ones(3))  # expect: NC402


def wrong_static_argument_list():
    return jax.pmap(scale, static_broadcasted_argnums=(1,))(jnp.ones(2), [1, 2])  # expect: NC402


@partial(jax.pmap, static_broadcasted_argnums=1)
def repeat_rows(x, n):
    return jnp.tile(x, n)


def right_decorated_static():
    out = repeat_rows(jnp.ones((2, 3)), 2)  # reveal: f32[(2, 6)]
    return out
