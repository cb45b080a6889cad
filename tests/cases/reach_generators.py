"""Data pipelines written as generators: batches sliced from arrays, sampled with numpy, yielded as dicts,
consumed by `next`, `for`, `enumerate`, `zip`, `itertools` and generator expressions."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np

X = np.linspace(-3.0, 3.0, 120, dtype=np.float32).reshape(60, 2)
Y = np.sin(X[:, :1])


def batches(x, y, batch_size):
    for i in range(0, len(x), batch_size):
        yield x[i : i + batch_size], y[i : i + batch_size]


def sample(x, y, batch_size):
    while True:
        idx = np.random.choice(len(x), size=batch_size)
        yield x[idx], y[idx]


def dict_batches(images, labels, batch_size, steps):
    for step in range(steps):
        start = step * batch_size
        yield {"image": images[start : start + batch_size], "label": labels[start : start + batch_size]}


def init(key, d_in, d_hidden, d_out):
    k1, k2 = jax.random.split(key)
    return {
        "w1": jax.random.normal(k1, (d_in, d_hidden)),
        "b1": jnp.zeros((d_hidden,)),
        "w2": jax.random.normal(k2, (d_hidden, d_out)),
    }


def apply(params, x):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return h @ params["w2"]


def loss(params, x, y):
    return jnp.mean((apply(params, x) - y) ** 2)


def right_first_batch():
    xb, yb = next(batches(X, Y, 20))
    first = xb  # reveal: f32[(20, 2)]
    return first, yb


def right_training_loop():
    params = init(jax.random.PRNGKey(0), 2, 16, 1)
    total = 0.0
    for xb, yb in batches(X, Y, 15):
        h = xb @ params["w1"]  # reveal: f32[(15, 16)]
        total = total + loss(params, xb, yb)
    return h, total


def wrong_batch_against_weight():
    params = init(jax.random.PRNGKey(0), 3, 16, 1)
    xb, _ = next(batches(X, Y, 20))
    return xb @ params["w1"]  # expect: NC203


def right_last_batch_shorter():
    w = jnp.ones((2, 4))
    for xb, _ in batches(X, Y, 25):  # 25, 25, then 10 rows
        out = xb @ w  # reveal: f32[(?, 4)]
    return out


def right_sampled_batches():
    params = init(jax.random.PRNGKey(1), 2, 8, 1)
    for step, (xb, yb) in enumerate(sample(X, Y, 32)):
        pred = apply(params, xb)  # reveal: f32[(32, 1)]
        if step == 3:
            break
    return pred


def wrong_sampled_batch():
    params = init(jax.random.PRNGKey(1), 4, 8, 1)
    xb, yb = next(sample(X, Y, 32))
    h = jnp.tanh(xb @ params["w1"])  # expect: NC203
    return jnp.mean((h @ params["w2"] - yb) ** 2)


def right_dict_batches_for_devices():
    images = jnp.ones((64, 28, 28))
    labels = jnp.zeros((64,), jnp.int32)
    for batch in dict_batches(images, labels, 16, 4):
        sharded = jax.tree.map(lambda a: a.reshape(8, -1, *a.shape[1:]), batch)
    per_device = sharded["image"]  # reveal: f32[(8, 2, 28, 28)]
    return per_device


def wrong_dict_batch_features():
    images = jnp.ones((64, 28, 28))
    labels = jnp.zeros((64,), jnp.int32)
    w = jnp.ones((28 * 28, 10))
    batch = next(dict_batches(images, labels, 16, 4))
    flat = jax.tree.map(lambda a: a.reshape(a.shape[0], -1), batch)
    logits = flat["image"] @ w
    return logits - jax.nn.one_hot(flat["label"][:, 0], 12)  # expect: NC201


def right_zip_two_pipelines():
    w = jnp.ones((2, 3))
    for (xa, _), (xb, _) in zip(batches(X, Y, 10), sample(X, Y, 10)):
        mixed = xa @ w + xb @ w  # reveal: f32[(10, 3)]
    return mixed


def right_itertools():
    w = jnp.ones((2, 5))
    for step, (xb, _) in zip(itertools.count(), itertools.islice(sample(X, Y, 12), 3)):
        out = xb @ w  # reveal: f32[(12, 5)]
    cycled = next(itertools.cycle(batches(X, Y, 30)))[0]  # reveal: f32[(30, 2)]
    repeated = [a @ w for a in itertools.repeat(jnp.ones((4, 2)), 2)]
    chained = list(itertools.chain([jnp.ones((3, 2))], [jnp.ones((5, 2))]))
    return out, cycled, repeated, chained


def wrong_itertools_repeat():
    w = jnp.ones((3, 5))
    outs = []
    for a in itertools.repeat(jnp.ones((4, 2)), 2):
        outs.append(a @ w)  # expect: NC203
    return outs


def right_generator_expression():
    scaled = (xb * 2.0 for xb, _ in batches(X, Y, 20))
    first = next(scaled)  # reveal: f32[(20, 2)]
    return first


def right_iter_next_on_lists():
    layers = [jnp.ones((2, 6)), jnp.ones((6, 1))]
    w0 = next(iter(layers))  # reveal: f32[(2, 6)]
    it = iter(layers)
    a = next(it)
    b = next(it)  # the second layer: not the first item's type
    return X @ w0, a, b @ jnp.ones((1, 3))


def two_shapes():
    yield jnp.ones((2, 3))
    yield jnp.ones((3, 2))


def right_yields_of_two_shapes():
    total = 0.0
    for a in two_shapes():
        total = total + (a @ a.T).sum()  # (2, 2), then (3, 3)
    return total


def both(first, second):
    yield from first
    yield from second


def right_yield_from():
    rows = both([jnp.ones((3,))], (jnp.zeros((3,)),))
    r = next(rows)  # reveal: f32[(3,)]
    return r


def growing(x):
    while True:
        yield x
        x = jnp.concatenate([x, x], axis=1)


def right_generator_state_changes():
    g = growing(jnp.ones((2, 4)))
    next(g)
    wider = next(g)  # (2, 8): later items are not the first's type
    return wider @ jnp.ones((8, 3))


class Loader:
    def __init__(self, images, labels, batch_size):
        self.images = images
        self.labels = labels
        self.batch_size = batch_size

    def __iter__(self):
        while True:
            idx = np.random.permutation(len(self.images))[: self.batch_size]
            yield {"image": self.images[idx], "label": self.labels[idx]}


class Counter:
    def __init__(self, start):
        self.start = start

    def __next__(self):
        return jnp.full((2,), self.start)


def right_loader_class():
    loader = Loader(np.ones((50, 8, 8), np.float32), np.zeros((50,), np.int32), 10)
    w = jnp.ones((64, 3))
    for step, batch in enumerate(loader):
        logits = batch["image"].reshape(10, -1) @ w  # reveal: f32[(10, 3)]
        if step == 2:
            break
    first = next(iter(loader))["label"]  # reveal: i32[(10,)]
    count = next(Counter(3))  # reveal: i32[(2,)]
    return logits, first, count


def wrong_loader_class():
    loader = Loader(np.ones((50, 8, 8), np.float32), np.zeros((50,), np.int32), 10)
    w = jnp.ones((8 * 8 * 3, 3))
    for batch in loader:
        return batch["image"].reshape(10, -1) @ w  # expect: NC203


def right_symbolic_rows(n=40):
    x = jnp.ones((n, 8))
    for xb, _ in batches(x, x[:, 0], 16):  # 16, 16, then n - 32 rows: the batch's rows are not known
        out = xb @ jnp.ones((8, 2))  # reveal: f32[(?, 2)]
    return out


def wrong_symbolic_rows(n=40):
    x = jnp.ones((n, 8))
    for xb, _ in batches(x, x[:, 0], 16):
        return xb @ jnp.ones((6, 2))  # expect: NC203
