"""Knowledge that degrades gracefully: a construct costs only what it determines. An unknown callee's result is
unknown but its arguments keep their facts; branches join what they agree on; an unknown dtype leaves the shape,
an unknown size the rank and the other sizes; a branch on a shape's truth or a rank narrows the value there;
`lax.reshape`'s `out_sharding=`; a trace counter (`nonlocal n; n += 1` in a jitted function)."""

import json
import random

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import AxisType
from jax.sharding import PartitionSpec as P


def mystery(*args, **kwargs):
    return json.loads("3")


def right_unknown_callee():
    x = jnp.ones((3, 4))
    y = mystery(x)
    same = x  # reveal: f32[(3, 4)]
    parts = (x, jnp.zeros(2))
    mystery(parts)
    first = parts[0]  # reveal: f32[(3, 4)]
    return y, same, first


def right_shuffled_list():
    xs = [jnp.ones(2), jnp.ones(3)]
    random.shuffle(xs)  # a library function that may reorder the list: its items are no longer known
    first = xs[0]  # reveal: Unknown
    return first.sum()


def wrong_unknown_callee():
    x = jnp.ones((3, 4))
    mystery(x)
    return x @ jnp.ones((3,))  # expect: NC203


def right_branches_join(flag=True):
    if flag:
        w = jnp.ones((3, 4))
    else:
        w = jnp.zeros((3, 5))
    joined = w  # reveal: f32[(3, ?)]
    if flag:
        v = jnp.ones((3, 4), jnp.float32)
    else:
        v = jnp.ones((3, 4), jnp.int32)
    mixed = v  # reveal: Array[(3, 4)]
    return jnp.ones((2, 3)) @ joined, mixed


def wrong_branches_join(flag=True):
    if flag:
        w = jnp.ones((3, 4))
    else:
        w = jnp.zeros((3, 5))
    return jnp.ones((2,)) @ w  # expect: NC203


def right_unknown_dtype():
    dt = jnp.dtype(mystery() and "float32")
    k = jnp.ones((3, 4), dtype=dt)  # reveal: Array[(3, 4)]
    s = k.sum(0)  # reveal: Array[(4,)]
    base = jnp.asarray(3, dtype=dt)  # reveal: Array[()]
    again = jnp.asarray(k, dtype=dt)  # reveal: Array[(3, 4)]
    listed = jnp.asarray([[1, 2]], dtype=dt)  # reveal: Unknown
    return s, base, again, listed


def wrong_unknown_dtype():
    dt = jnp.dtype(mystery() and "float32")
    k = jnp.ones((3, 4), dtype=dt)
    return k @ jnp.ones((3,))  # expect: NC203


def right_unknown_size():
    n = mystery()
    a = jnp.ones((n, 4))
    c = a @ jnp.ones((4, 5))  # reveal: f32[('n', 5)]
    e = jnp.arange(n)  # reveal: Array[(?,)]
    return c, e


def wrong_unknown_size():
    n = mystery()
    a = jnp.ones((n, 4))
    return a @ jnp.ones((5, 5))  # expect: NC203


def table_row(i):
    return jnp.ones((3, 4))[i]


def pick(idx):
    if jnp.asarray(idx).shape:
        return jax.vmap(table_row)(idx)
    else:
        return table_row(idx)


def right_shape_truthiness():
    rows = pick(jnp.arange(2))  # reveal: f32[(2, 4)]
    row = pick(jnp.int32(1))  # reveal: f32[(4,)]
    n = mystery()
    some = pick(jnp.arange(n, dtype=jnp.int32))  # reveal: f32[(?, 4)]
    return rows, row, some


def doubled(x):
    if x.ndim == 0:
        return jnp.stack([x, x])
    return jnp.concatenate([x, x])


def right_rank_narrowing():
    s = jnp.asarray(json.loads("1.0"))
    if s.ndim == 0:
        scalar = s  # reveal: Array[()]
    if len(s.shape) == 1:
        s = s[0]
    pair = doubled(s)
    return pair


def wrong_rank_narrowing():
    s = jnp.asarray(json.loads("1.0"))
    if not s.shape:
        return jnp.concatenate([s, s])  # expect: NC203


def right_lax_reshape_out_sharding():
    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
    with jax.set_mesh(mesh):
        x = jax.device_put(jnp.ones((8, 16)), P("data", None))
        y = jax.lax.reshape(x, (16, 8), out_sharding=P("data"))  # reveal: f32[(16@data, 8)]
        z = jax.lax.reshape(x, (16, 8), None, out_sharding=P("data", None))  # reveal: f32[(16@data, 8)]
    return y, z


def wrong_lax_reshape_out_sharding():
    mesh = jax.make_mesh((4, 2), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
    with jax.set_mesh(mesh):
        x = jax.device_put(jnp.ones((8, 16)), P("data", None))
        return jax.lax.reshape(x, (16, 8))  # expect: NC805


def right_trace_counter():
    n = 0

    @jax.jit
    def f(x):
        nonlocal n
        n += 1
        return x * 2

    f(jnp.ones(3))
    assert n == 1
    f(jnp.ones(3))
    assert n == 1  # traced once: the second call runs the compiled function
    return n


def wrong_trace_counter():
    n = 0

    @jax.jit
    def f(x):
        return x * 2

    f(jnp.ones(3))
    assert n == 1  # expect: NC204


def right_linspace_between_arrays():
    a = np.linspace(np.zeros(3), np.ones(3), 100)  # reveal: Array[(100, 3)]
    b = a.reshape((10, 10, 3))
    d = jnp.linspace(jnp.zeros((2, 1)), jnp.ones(4), 5, axis=-1)  # reveal: Array[(2, 4, 5)]
    angles = np.linspace(-np.pi, np.pi, 10)  # reveal: f64[(10,)]
    grid = jnp.linspace(-jnp.pi, jnp.inf, 7)  # reveal: f32[(7,)]
    return b, d, angles, grid


def wrong_linspace_between_arrays():
    a = jnp.linspace(jnp.zeros(3), jnp.ones(3), 100)
    return a @ jnp.ones((100, 3))  # expect: NC203

