from functools import partial

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental.maps import xmap

from namedcheck import f32


def my_func(x: f32[(5,), {'batch': 20}]) -> f32[(5,), {'batch': 20}]:
    return x


def named_broadcasting(
        x: f32[(2, 1, 1), {'a': 2}],
        y: f32[(1, 3, 1), {'b': 3}],
        z: f32[(1, 1, 5), {'c': 5}]) \
        -> f32[(2, 3, 5), {'a': 2, 'b': 3, 'c': 5}]:
    return x + y + z


def named_batch_matrix_single_matrix(x: f32[(5,), {'b': 20, 'k': 7}], y: f32[(), {'k': 7, 'm': 11}]) \
        -> f32[(5,), {'b': 20, 'm': 11}]:
    return jnp.einsum('n{b,k},{k,m}->n{b,m}', x, y)


def right_tutorial_calls() -> None:
    x = jnp.zeros((20, 5))
    f = xmap(my_func, in_axes={0: 'batch'}, out_axes={1: 'batch'})
    y: f32[(5, 20)] = f(x)  # reveal: f32[(5, 20)]
    k = xmap(named_broadcasting,
             in_axes=(['a', ...], ['b', ...], ['c', ...]),
             out_axes=['a', 'b', 'c', ...])(jnp.ones((2, 2, 1, 1)), jnp.ones((3, 1, 3, 1)), jnp.ones((5, 1, 1, 5)))
    kk = k  # reveal: f32[(2, 3, 5, 2, 3, 5)]
    g = xmap(named_batch_matrix_single_matrix, in_axes=[{0: 'b', 2: 'k'}, ['k', 'm', ...]], out_axes={0: 'b', 2: 'm'})
    zx = g(jnp.ones((20, 5, 7)), jnp.ones((7, 11)))  # reveal: f32[(20, 5, 11)]
    vd = xmap(jnp.vdot, in_axes=({0: 'left'}, {1: 'right'}), out_axes=['left', 'right', ...])
    v = vd(jnp.ones((2, 5)), jnp.ones((5, 3)))  # reveal: f32[(2, 3)]


def right_reduce_inside(x: f32[(8, 4)]) -> None:
    total = xmap(lambda v: lax.psum(v, 'i'), in_axes=['i', ...], out_axes=[...])(x)  # reveal: f32[(4,)]
    per = xmap(lambda v: jnp.sum(v), in_axes=['i', ...], out_axes=['i', ...])(x)  # reveal: f32[(8,)]


@partial(xmap, in_axes=['b', ...], out_axes=['b', ...], axis_sizes={'h': 3})
def decorated(x: f32[(4,), {'b': 6}]) -> f32[(4,), {'b': 6}]:
    return x * 2


def right_decorator_form(x: f32[(6, 4)]) -> None:
    y = decorated(x)  # reveal: f32[(6, 4)]


def right_nested(x: f32[(2, 3, 4)]) -> None:
    def inner(v):
        return xmap(lambda w: w + lax.axis_index('j'), in_axes=['j', ...], out_axes=['j', ...])(v)
    r = xmap(inner, in_axes=['i', ...], out_axes=['i', ...])(x)  # reveal: f32[(2, 3, 4)]


def wrong_in_axes_structure(x: f32[(8, 4)], y: f32[(8, 4)]) -> None:
    f = xmap(lambda a, b: a + b, in_axes=(['i', ...],), out_axes=['i', ...])  # expect: NC401
    f(x, y)


def wrong_index_out_of_range(x: f32[(8,)]) -> None:
    xmap(lambda a: a, in_axes={2: 'i'}, out_axes=['i', ...])(x)  # expect: NC402


def wrong_name_repeated(x: f32[(8, 4)]) -> None:
    f = xmap(lambda a: a, in_axes=['i', 'i', ...], out_axes=['i', ...])  # expect: NC402
    f(x)


def wrong_two_sizes(x: f32[(5,)], y: f32[(7,)]) -> None:
    xmap(lambda a, b: a * b, in_axes=(['i', ...], ['i', ...]), out_axes=['i', ...])(x, y)  # expect: NC403


def wrong_axis_sizes(x: f32[(5,)]) -> None:
    xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', ...], axis_sizes={'i': 6})(x)  # expect: NC403


def wrong_missing_out_axis(x: f32[(8, 4)]) -> None:
    f = xmap(lambda a: a * 2, in_axes=['i', ...], out_axes=[...])  # expect: NC404
    f(x)


def wrong_out_axes_unknown_name(x: f32[(8, 4)]) -> None:
    f = xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', 'j', ...])  # expect: NC405
    f(x)


def wrong_resources_undefined(x: f32[(8, 4)]) -> None:
    f = xmap(lambda a: a, in_axes=['i', ...], out_axes=['i', ...], axis_resources={'k': 'x'})  # expect: NC406
    f(x)


def wrong_rebinding(x: f32[(2, 3, 4)]) -> None:
    def inner(v):
        return xmap(lambda w: w, in_axes=['i', ...], out_axes=['i', ...])(v)  # expect: NC407
    xmap(inner, in_axes=['i', ...], out_axes=['i', ...])(x)


def wrong_body_argument(x: f32[(20, 6)]) -> None:
    xmap(my_func, in_axes={0: 'batch'}, out_axes={1: 'batch'})(x)  # expect: NC302


def right_vmap(x: f32[(8, 3)], w: f32[(3, 2)]) -> None:
    y = jax.vmap(lambda r: r @ w)(x)  # reveal: f32[(8, 2)]
    z = jax.vmap(jnp.dot, in_axes=(0, None), out_axes=1)(x, w)  # reveal: f32[(2, 8)]
    s = jax.vmap(lambda r: r - lax.pmean(r, 'b'), axis_name='b')(x)  # reveal: f32[(8, 3)]


def wrong_vmap_sizes(x: f32[(8, 3)], y: f32[(7, 3)]) -> None:
    jax.vmap(lambda a, b: a + b)(x, y)  # expect: NC403


def wrong_vmap_structure(x: f32[(8, 3)], y: f32[(8, 3)]) -> None:
    f = jax.vmap(lambda a, b: a + b, in_axes=(0,))  # expect: NC401
    f(x, y)


def wrong_vmap_axis(x: f32[(8, 3)]) -> None:
    jax.vmap(lambda a: a, in_axes=2)(x)  # expect: NC402


def wrong_vmap_body(x: f32[(8, 3)], w: f32[(4, 2)]) -> None:
    jax.vmap(lambda r: r @ w)(x)  # expect: NC203


def right_vmap_pytrees(x: f32[(8, 3)], y: f32[(8, 5)], w: f32[(3, 2)]) -> None:
    pair = jax.vmap(lambda p: (p[0] @ w, p[1]))((x, y))
    a, b = pair
    aa = a  # reveal: f32[(8, 2)]
    params = {'w': w, 'b': jnp.zeros(2)}
    out = jax.vmap(lambda r, p: r @ p['w'] + p['b'], in_axes=(0, None))(x, params)  # reveal: f32[(8, 2)]


def wrong_vmap_pytree_sizes(x: f32[(8, 3)], y: f32[(7, 5)]) -> None:
    jax.vmap(lambda p: p[0])((x, y))  # expect: NC403


def xmap_dict_argument(w: f32[(4, 3)], b: f32[(4,)]) -> None:
    params = {'w': w, 'b': b}
    y = xmap(lambda p: p['w'].sum() + p['b'], in_axes=(['o', ...],), out_axes=['o', ...])(params)  # reveal: f32[(4,)]
    nested = {'layer': (w, {'bias': b})}
    z = xmap(lambda p: p['layer'][1]['bias'] * 2, in_axes=['o', ...], out_axes=['o', ...])(nested)  # reveal: f32[(4,)]


def wrong_xmap_dict_argument_sizes(w: f32[(4, 3)], b: f32[(5,)]) -> None:
    xmap(lambda p: p['w'].sum() + p['b'], in_axes=(['o', ...],), out_axes=['o', ...])({'w': w, 'b': b})  # expect: NC403
