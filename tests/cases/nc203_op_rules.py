import jax
import jax.numpy as jnp

from namedcheck import f32, i32


def right_contractions(x: f32[(8, 3, 4)], w: f32[(4, 5)], v: f32[(4,)], m: f32[(8, 4, 6)]) -> None:
    a = x @ w  # reveal: f32[(8, 3, 5)]
    b = jnp.matmul(x, v)  # reveal: f32[(8, 3)]
    c = jnp.dot(x, w)  # reveal: f32[(8, 3, 5)]
    d = jnp.tensordot(x, w, axes=1)  # reveal: f32[(8, 3, 5)]
    e = jnp.tensordot(x, m, axes=((0, 2), (0, 1)))  # reveal: f32[(3, 6)]
    f = x @ m  # reveal: f32[(8, 3, 6)]
    g = jnp.outer(v, v)  # reveal: f32[(4, 4)]
    h = jnp.einsum('bij,jk->bik', x, w)  # reveal: f32[(8, 3, 5)]
    i = jnp.vdot(v, v)  # reveal: f32[()]


def right_shapes(x: f32[(6, 4)]) -> None:
    a = x.reshape(3, 8)  # reveal: f32[(3, 8)]
    b = jnp.reshape(x, (-1, 2))  # reveal: f32[(12, 2)]
    c = x.T  # reveal: f32[(4, 6)]
    d = jnp.transpose(x[None], (2, 0, 1))  # reveal: f32[(4, 1, 6)]
    e = jnp.concatenate([x, x], axis=1)  # reveal: f32[(6, 8)]
    f = jnp.stack([x, x, x])  # reveal: f32[(3, 6, 4)]
    g = jnp.expand_dims(x, -1)  # reveal: f32[(6, 4, 1)]
    h = jnp.squeeze(g, axis=2)  # reveal: f32[(6, 4)]
    k = jnp.swapaxes(x, 0, 1)  # reveal: f32[(4, 6)]
    m = jnp.moveaxis(jnp.zeros((2, 3, 4)), 0, -1)  # reveal: f32[(3, 4, 2)]
    n = x.ravel()  # reveal: f32[(24,)]
    o = jnp.broadcast_to(x[0], (5, 4))  # reveal: f32[(5, 4)]


def right_indexing(x: f32[(6, 4, 3)]) -> None:
    a = x[0]  # reveal: f32[(4, 3)]
    b = x[1:5, ::2]  # reveal: f32[(4, 2, 3)]
    c = x[..., -1]  # reveal: f32[(6, 4)]
    d = x[:, None, 2]  # reveal: f32[(6, 1, 3)]
    e = x[jnp.arange(3)]  # reveal: f32[(3, 4, 3)]
    n = x.shape[-1]
    f = jnp.zeros((n, x.shape[0]))  # reveal: f32[(3, 6)]


def right_creation() -> None:
    a = jnp.arange(10)  # reveal: i32[(10,)]
    b = jnp.arange(2, 10, 3)  # reveal: i32[(3,)]
    c = jnp.eye(3)  # reveal: f32[(3, 3)]
    d = jnp.full((2, 2), 7)  # reveal: i32[(2, 2)]
    e = jnp.zeros_like(c, dtype=jnp.int32)  # reveal: i32[(3, 3)]
    f = jnp.linspace(0.0, 1.0, 5)  # reveal: f32[(5,)]
    g = jnp.array([[1.0, 2.0], [3.0, 4.0]])  # reveal: f32[(2, 2)]


def wrong_dot(x: f32[(3, 4)], y: f32[(5, 6)]) -> None:
    z = jnp.dot(x, y)  # expect: NC203


def wrong_matmul_operator(x: f32[(3, 4)], y: f32[(3, 4)]) -> None:
    z = x @ y  # expect: NC203


def wrong_matmul_batch(x: f32[(2, 3, 4)], y: f32[(5, 4, 6)]) -> None:
    z = x @ y  # expect: NC201


def wrong_tensordot(x: f32[(3, 4)], y: f32[(5, 6)]) -> None:
    z = jnp.tensordot(x, y, axes=1)  # expect: NC203


def wrong_reshape(x: f32[(6, 4)]) -> None:
    a = x.reshape((5, 5))  # expect: NC203
    b = jnp.reshape(x, (-1, 7))  # expect: NC203
    c = jnp.reshape(x, (-1, -1))  # expect: NC203


def wrong_concatenate(x: f32[(6, 4)], y: f32[(5, 3)]) -> None:
    z = jnp.concatenate([x, y], axis=0)  # expect: NC203


def wrong_stack(x: f32[(6, 4)], y: f32[(6, 3)]) -> None:
    z = jnp.stack([x, y])  # expect: NC203


def wrong_index(x: f32[(6, 4)]) -> None:
    a = x[6]  # JAX clamps an index past the end (it does not raise): not reported
    b = x[0, 0, 0]  # expect: NC203
    c = x[:, -5]


def wrong_squeeze(x: f32[(6, 4)]) -> None:
    y = jnp.squeeze(x, axis=0)  # expect: NC203


def wrong_einsum_sizes(x: f32[(3, 4)], y: f32[(5, 6)]) -> None:
    z = jnp.einsum('ij,jk->ik', x, y)  # expect: NC203


def edges(bins):
    if jnp.ndim(bins) == 1:
        return jnp.asarray(bins)[:-1]  # infeasible for bins=10: conditional code under a call is silent
    return jnp.linspace(0.0, 1.0, bins)


def right_branch_guarded_helper() -> None:
    e = edges(10)


def right_python_scalars() -> None:
    s = jnp.sum(3, axis=0)  # numpy accepts this; not provable for jnp either way
    b = jnp.array(True)
    c = jnp.array(1)[b]


def right_size_arithmetic(x: f32[('B', 'T', 64)]) -> None:
    b, t, d = x.shape
    heads = 4
    y = x.reshape(b, t, heads, d // heads)  # reveal: f32[('B', 'T', 4, 16)]
    z = jnp.zeros((b * 1, d * 2))  # reveal: f32[('B', 128)]
    w = jnp.zeros((t + 1,))  # reveal: f32[('T+1',)]


def wrong_size_arithmetic(x: f32[(6, 64)]) -> None:
    n, d = x.shape
    y = x.reshape(n, d // 3, 3)  # expect: NC203


def right_constant_folding() -> None:
    a = jnp.arange(8 * 16.).reshape(8, 16)  # reveal: f32[(8, 16)]
    b = jnp.zeros((2 ** 3,))


def build(spec, n):
    ops = [spec]
    for _ in range(n):
        ops.append(jnp.ones(3))
    return ops


def fill(xs):
    xs.append(jnp.ones(3))


def right_mutated_lists() -> None:
    a = jnp.einsum(*build('i,i->', 2))  # the list grew: not the one-element list it started as
    parts = [jnp.ones(3)]
    parts.append(jnp.ones(3))
    b = jnp.stack(parts)  # reveal: f32[(2, 3)]
    more = [jnp.ones(3)]
    fill(more)
    c = jnp.stack(more)  # reveal: Unknown
    d = {'w': jnp.ones(2)}
    d['w'] = jnp.ones(5)
    e = d['w']  # reveal: f32[(5,)]


def right_numpy_in_place_shape() -> None:
    import numpy as np
    a = np.zeros(6)
    a.shape = (2, 3)
    b = a + np.ones(3)
    c = np.zeros(4)
    c.resize((2, 2))
    d = c + np.ones(2)


def predict(params, x):
    return x @ params['w']  # expect: NC203


def swapped_arguments(x: f32[(8, 4)], w: f32[(4, 2)]) -> None:
    a = predict({'w': w}, x)
    b = predict(x, {'w': w})  # the call that brings an array where the dict was meant


def right_structured_numpy_fields() -> None:
    import numpy as np
    rec = np.zeros(3, dtype=[('a', 'f4'), ('b', 'i4')])
    a = rec['a']
    b = rec[0]['b']


def make_batch(key, n, d):
    kx, _ = jax.random.split(key)  # expect: NC203
    return jax.random.normal(kx, (n, d))


def right_keys() -> None:
    import numpy as np
    a = make_batch(jax.random.key(0), 16, 4)  # reveal: f32[(16, 4)]
    b = jax.random.normal(jax.random.PRNGKey(0), (2,))  # reveal: f32[(2,)]
    c = jax.random.uniform(np.array([0, 1], dtype=np.uint32), (3,))  # reveal: f32[(3,)]
    d = jax.random.randint(jax.random.split(jax.random.key(1))[0], (2,), 0, 5)  # reveal: i32[(2,)]


def swapped_key(x: f32[(16, 6)]) -> None:
    a = make_batch(16, jax.random.key(0), 4)
    b = jax.random.normal(x, (3,))  # expect: NC203
