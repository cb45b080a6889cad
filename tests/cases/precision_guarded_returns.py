# Control flow the analyzer follows: a test whose value is known runs only the branch it takes, and the code
# after a branch that returns or raises sees only the paths that go on.
import jax
import jax.numpy as jnp

from namedcheck import f32

JTensor = jnp.ndarray


def shuffle(x, ids):
    # rank-1 state passes through; only rank >= 2 state is gathered along its leading dimension
    if not isinstance(x, JTensor) or len(x.shape) < 2:
        return x
    return jax.vmap(lambda s, i: jnp.take(s, i, axis=0))(x, ids)


def right_rank_guard() -> None:
    a = shuffle(jnp.zeros(4), jnp.zeros((4, 2), jnp.int32))  # reveal: f32[(4,)]
    b = shuffle(jnp.zeros((4, 3, 5)), jnp.zeros((4, 2), jnp.int32))


def project(x, w=None):
    if w is None:
        return x
    return x @ w


def right_optional_weight(x: f32[(8, 4)], w: f32[(4, 2)]) -> None:
    a = project(x)  # reveal: f32[(8, 4)]
    b = project(x, w)  # reveal: f32[(8, 2)]


def head(x, w):
    if x.ndim == 3:
        x = x.reshape(-1, x.shape[-1])
    elif x.ndim != 2:
        raise ValueError("x must be 2-d or 3-d")
    return x @ w  # expect: NC203


def wrong_head(x: f32[(2, 8, 4)], w: f32[(5, 2)]) -> None:
    a = head(x, w)


def known_branch(x, w):
    if x.shape[-1] == 4:
        return x @ w  # expect: NC203
    return x


def wrong_known_branch(x: f32[(8, 4)], w: f32[(3, 2)]) -> None:
    a = known_branch(x, w)


def right_short_circuit(x: f32[(8, 4)]) -> None:
    a = x.ndim == 2 and x.shape[0] == 8  # reveal: Const(value=True)
    b = x.ndim == 3 or x  # reveal: f32[(8, 4)]
    c = not (x.ndim == 3)  # reveal: Const(value=True)
