"""Python, generically: starred targets over `jax.random.split`, `for w, b in params`, lists and dicts built in
loops, `super()` in user class hierarchies, `self.param(name, init, shape, dtype)` and `Module(**cfg)` (a cfg
not known costs only the fields it may set); numpy as an array library with its 64-bit defaults (`np.random`'s
legacy samplers, `RandomState`, `Generator`, ops with a `jnp` twin), and numpy arrays inside `jit` (32-bit)."""

import json

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np


def right_starred_split():
    key = jax.random.key(0)
    key, *keys = jax.random.split(key, 4)
    count = len(keys)  # reveal: Const(value=3)
    x = jax.random.normal(keys[0], (2, 3))  # reveal: f32[(2, 3)]
    return x, count


def right_layers_loop():
    params = [(jnp.ones((4, 8)), jnp.zeros(8)), (jnp.ones((8, 2)), jnp.zeros(2))]
    x = jnp.ones((3, 4))
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    out = x  # reveal: f32[(3, 2)]
    return out


def wrong_layers_loop():
    params = [(jnp.ones((4, 8)), jnp.zeros(8)), (jnp.ones((4, 2)), jnp.zeros(2))]
    x = jnp.ones((3, 4))
    for w, b in params:
        x = x @ w + b  # expect: NC203
    return x


def right_built_in_loops():
    ws = []
    for i in range(3):
        ws.append(jnp.ones((i + 1, 2)))
    last = ws[2]  # reveal: f32[(3, 2)]
    named = {}
    for name in ["enc", "dec"]:
        named[name] = jnp.ones((2, 3))
    enc = named["enc"]  # reveal: f32[(2, 3)]
    return last, enc


def right_dict_of_zip():
    d = dict(zip(["enc", "dec"], [jnp.ones((2, 3)), jnp.ones((3, 4))]))
    dec = d["dec"]  # reveal: f32[(3, 4)]
    more = dict(d, head=jnp.ones(4))
    head = more["head"]  # reveal: f32[(4,)]
    return d["enc"] @ dec @ head


def wrong_dict_of_zip():
    d = dict(zip(["enc", "dec"], [jnp.ones((2, 3)), jnp.ones((3, 4))]))
    return d["dec"] @ d["enc"]  # expect: NC203


def wrong_built_in_loops():
    ws = []
    for i in range(3):
        ws.append(jnp.ones((i + 1, 2)))
    return ws[2] @ jnp.ones((3,))  # expect: NC203


class Base:
    def __init__(self, d):
        self.w = jnp.ones((d, 2))

    def __call__(self, x):
        return x @ self.w  # expect: NC203


class Child(Base):
    def __init__(self, d):
        super().__init__(d)
        self.b = jnp.zeros(2)

    def __call__(self, x):
        return super().__call__(x) + self.b


def right_super_call():
    y = Child(4)(jnp.ones((3, 4)))  # reveal: f32[(3, 2)]
    return y


def wrong_super_call():
    return Child(4)(jnp.ones((3, 5)))


def right_numpy_samplers():
    a = np.random.RandomState(0).randn(4, 5)  # reveal: f64[(4, 5)]
    b = np.random.default_rng(0).normal(size=(4, 5))  # reveal: f64[(4, 5)]
    c = np.random.rand(2, 3)  # reveal: f64[(2, 3)]
    d = np.random.randint(0, 4, (3, 2))  # reveal: i64[(3, 2)]
    e = np.random.default_rng(0).integers(0, 5, size=(2,))  # reveal: i64[(2,)]
    m = np.mean(a, axis=0)  # reveal: f64[(5,)]
    return a, b, c, d, e, m


def wrong_numpy_samplers():
    a = np.random.RandomState(0).randn(4, 5)
    return jnp.asarray(a) @ jnp.ones((4, 2))  # expect: NC203


def right_numpy_defaults():
    r = np.arange(3)  # reveal: i64[(3,)]
    z = np.zeros(3)  # reveal: f64[(3,)]
    f = np.zeros(3, dtype=float)  # reveal: f64[(3,)]
    s = np.ones((2, 2), dtype=np.float32)  # reveal: f32[(2, 2)]
    halves = np.arange(4) / 2  # reveal: f64[(4,)]
    on_device = jnp.asarray(z)  # reveal: f32[(3,)]
    cat = np.concatenate([z, z])  # reveal: f64[(6,)]
    return r, f, s, halves, on_device, cat


def _loss(a, b):
    return jnp.sum(a * b)


def right_numpy_items_and_grads():
    obs = np.array([[5, 6, 7], [7, 8, 9]])  # reveal: i64[(2, 3)]
    col = obs[:, 2]  # reveal: i64[(2,)]
    rho = np.ones((2, 3))
    ls_ = np.concatenate((rho[:, 1:], [[1.0], [1.0]]), axis=1)  # reveal: f64[(2, 3)]
    picked = jnp.ones((5, 2))[np.array([0, 1])]  # reveal: f32[(2, 2)]
    grad = jax.grad(_loss)(rho, rho)  # reveal: f32[(2, 3)]
    flat = jnp.reshape(obs, [-1])  # reveal: i64[(6,)]
    flat32 = jnp.reshape(jnp.asarray(obs), [-1])  # reveal: i32[(6,)]
    doubled = jax.lax.cond(True, lambda a: a * 2, lambda a: a, rho)  # reveal: f32[(2, 3)]
    return col, ls_, picked, grad, flat, flat32, doubled


def right_complex_parts():
    z = jnp.ones(3, dtype=jnp.complex64)
    norm = jnp.vdot(z, z).real  # reveal: f32[()]
    re = jnp.real(z)  # reveal: f32[(3,)]
    mag = jnp.abs(z)  # reveal: f32[(3,)]
    im = z.imag  # reveal: f32[(3,)]
    ints = jnp.abs(jnp.arange(3))  # reveal: i32[(3,)]
    return norm, re, mag, im, ints


NOT_CONNECTED = np.iinfo(np.int32).max  # reveal: Const(value=2147483647)
WEIGHTS = np.array([[NOT_CONNECTED, 9], [3, NOT_CONNECTED]])  # reveal: i64[(2, 2)]


def _step(acc, xs):
    r, d = xs
    acc = r + d * acc  # reveal: f32[()]
    return acc, acc


def right_numpy_into_scan():
    scanned = jax.lax.scan(_step, jnp.float32(0.0), (np.ones(3), np.zeros(3)))
    outs = scanned[1]  # reveal: f32[(3,)]
    return outs


@jax.jit
def double(x):
    y = x * 2  # reveal: f32[(3,)]
    return y


def right_numpy_into_jit():
    out = double(np.zeros(3))  # reveal: f32[(3,)]
    mapped = jax.vmap(lambda v: v + 1)(np.ones((2, 3)))  # reveal: f32[(2, 3)]
    return out, mapped


def _halve(count):
    return count // 2


def _schedule(scale):
    def at(count):
        return jnp.minimum(count, 10) * scale

    return at


def right_numpy_into_jit_call():
    # `jax.jit(f)` called: the function's numpy arguments are 32-bit inside; the plain `f` keeps numpy's widths
    jitted = jax.jit(_halve)(np.arange(4))  # reveal: i32[(4,)]
    plain = _halve(np.arange(4))  # reveal: i64[(4,)]
    steps = jax.jit(_schedule(0.5))(np.array([0, 10, 50]))  # reveal: f32[(3,)]
    return jitted, plain, steps


class Dense(nn.Module):
    features: int
    use_bias: bool = True
    param_dtype: jnp.dtype = jnp.float32

    @nn.compact
    def __call__(self, x):
        w = self.param("w", nn.initializers.lecun_normal(), (x.shape[-1], self.features), self.param_dtype)
        b = self.param("b", nn.initializers.zeros, (self.features,), dtype=self.param_dtype)
        return x @ w + b


def right_linen_params():
    key = jax.random.key(0)
    v = Dense(5).init(key, jnp.ones((2, 3)))
    w = v["params"]["w"]  # reveal: f32[(3, 5)]
    cfg = {"use_bias": False}
    y = Dense(7, name="d", **cfg).apply(v | {"params": {"w": jnp.ones((3, 7)), "b": jnp.ones(7)}}, jnp.ones((2, 3)))
    known = y  # reveal: f32[(2, 7)]
    m = Dense(features=6, **json.loads('{"use_bias": false}'))
    v2 = m.init(key, jnp.ones((2, 3)))
    w2 = v2["params"]["w"]  # reveal: Array[(3, 6)]
    return w, known, w2


def wrong_linen_params():
    key = jax.random.key(0)
    m = Dense(features=6, **json.loads('{"use_bias": false}'))
    v = m.init(key, jnp.ones((2, 3)))
    return v["params"]["w"] @ jnp.ones((3,))  # expect: NC203
