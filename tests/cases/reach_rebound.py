"""Bindings the checker once inferred wrong against a real run (bench/shape_oracle.py): a method its class body
rebinds to a vmap of itself (under an `if` too: what the name holds once the class is complete is what calls
reach), a branch on `isinstance` of a value the call passes or of an instance of the program's classes (only
the branch it takes runs), an object's own `reshape(tensor, shape)` method, and shapes computed with
`jnp.shape` / `jnp.ndim` / `lax.broadcast_shapes` (a condition on them is known)."""

import equinox as eqx
import jax
import jax.numpy as jnp
from jax import lax

BATCHED = True


class Similarity(eqx.Module):
    proj: jax.Array

    def __init__(self, d, k):
        self.proj = jnp.ones((d, k))

    def score(self, row):
        h = row @ self.proj
        return jnp.dot(h, h)

    score = jax.vmap(score, in_axes=(None, 0))


class Gate(eqx.Module):
    w: jax.Array

    def __init__(self, d):
        self.w = jnp.ones((d,))

    def gate(self, row):
        return jnp.dot(row, self.w) * row

    if BATCHED:
        gate = jax.vmap(gate, in_axes=(None, 0))


class Mismatch(eqx.Module):
    w: jax.Array

    def __init__(self):
        self.w = jnp.ones((5,))

    def score(self, row):
        return jnp.dot(row, self.w)  # expect: NC203

    score = jax.vmap(score, in_axes=(None, 0))


def init_mass(z, dense):
    if isinstance(dense, list):
        return [init_mass(z, True) for _ in dense]
    if dense:
        inverse = jnp.eye(z.shape[0])
    else:
        inverse = jnp.ones(z.shape[0])
    return inverse


def right_rebound_method():
    s = Similarity(3, 4).score(jnp.ones((6, 3)))  # reveal: f32[(6,)]
    return s


def right_rebound_under_if():
    g = Gate(3).gate(jnp.ones((2, 3)))  # reveal: f32[(2, 3)]
    return g


def wrong_rebound_method():
    return Mismatch().score(jnp.ones((4, 3)))


def right_isinstance():
    m = init_mass(jnp.zeros(3), False)  # reveal: f32[(3,)]
    d = init_mass(jnp.zeros(3), True)  # reveal: f32[(3, 3)]
    return m, d


class NumpyBackend:
    """An array library behind an interface of its own (as einops' backends are): `reshape(x, shape)`."""

    def reshape(self, x, shape):
        return x.reshape(shape)


def apply_recipe(backend, tensor, init_shapes):
    # `backend` is any object with a `reshape` method; its arguments are an array and a shape, not sizes (known
    # here: the class has no `__init__`, its instance is built by `object` and its method followed)
    tensor = backend.reshape(tensor, init_shapes)  # reveal: f32[(3, 2)]
    flat = tensor.reshape(6)  # reveal: f32[(6,)]
    return flat


def right_backend_reshape():
    out = apply_recipe(NumpyBackend(), jnp.ones((2, 3)), (3, 2))  # reveal: f32[(6,)]
    return out


class CostFn:
    def __init__(self, scale=1.0):
        self.scale = scale


class SqEuclidean(CostFn):
    pass


class Cosine(CostFn):
    pass


class PointCloud:
    def __init__(self, x, cost_fn):
        self.x = x
        self.cost_fn = cost_fn

    def apply_cost(self, vec):
        if isinstance(self.cost_fn, SqEuclidean):
            norms = (self.x**2).sum(-1)
            return norms[:, None] * vec
        cost = self.x @ self.x.T
        return cost @ vec


def right_cost_by_class():
    out = PointCloud(jnp.ones((5, 3)), Cosine()).apply_cost(jnp.ones(5))  # reveal: f32[(5,)]
    sq = PointCloud(jnp.ones((5, 3)), SqEuclidean(2.0)).apply_cost(jnp.ones(5))  # reveal: f32[(5, 5)]
    return out, sq


def expand(x, shape):
    return jnp.reshape(x, shape)


def promote_shapes(*args):
    shapes = [jnp.shape(arg) for arg in args]
    num_dims = len(lax.broadcast_shapes(*shapes))
    shapes = [(1,) * (num_dims - len(s)) + s for s in shapes]
    return [expand(arg, s) if jnp.ndim(arg) < len(s) else arg for arg, s in zip(args, shapes)]


def right_promote():
    loc, scale = promote_shapes(jnp.zeros(3), 1.0)
    both = promote_shapes(jnp.zeros(3), jnp.ones((2, 3)))
    low = both[0]  # reveal: f32[(1, 3)]
    return loc, scale, low
