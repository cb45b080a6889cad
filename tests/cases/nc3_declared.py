import jax
import jax.numpy as jnp

from namedcheck import f32, i32


def scale(x: f32[('N',)], y: f32[('N',)]) -> f32[('N',)]:
    return x * y


def per_example(x: f32[(5,), {'batch': 20}]) -> f32[(), {'batch': 20}]:
    return jnp.sum(x, axis=0)


def right_calls(a: f32[(7,)], b: f32[(5,), {'batch': 20, 'seq': 30}]) -> None:
    c = scale(a, a)  # reveal: f32[(7,)]
    d = per_example(b)  # reveal: f32[(), {'batch': 20, 'seq': 30}]
    e: f32[(), {'batch': 20, 'seq': 30}] = per_example(b)


def right_return(x: f32[('B', 3)]) -> f32[('B',)]:
    return x.sum(-1)


def right_grad(w: f32[(3, 4)], x: f32[(4,)]) -> None:
    def loss(w, x):
        return jnp.sum(jnp.tanh(w @ x))
    g = jax.grad(loss)(w, x)  # reveal: f32[(3, 4)]
    v, gs = jax.value_and_grad(loss, argnums=(0, 1))(w, x)
    gx: f32[(4,)] = gs[1]


@jax.jit
def jitted(x: f32[(3,)]) -> f32[(3,)]:
    return x + 1


def right_jit(x: f32[(3,)]) -> None:
    y = jitted(x)  # reveal: f32[(3,)]
    z = jax.jit(scale)(x, x)  # reveal: f32[(3,)]


def helper(u, v):
    return u @ v


def right_unannotated_helper(a: f32[(2, 3)], b: f32[(3, 4)]) -> None:
    c = helper(a, b)  # reveal: f32[(2, 4)]


def wrong_assignment(x: f32[(3, 4)]) -> None:
    y: f32[(4, 3)] = x  # expect: NC301
    z: f32[(3, 4), {'b': 2}] = x  # expect: NC301
    w: f32[(12,)] = x.reshape(-1)


def wrong_return(x: f32[(3,)]) -> f32[(4,)]:
    return x  # expect: NC301


def wrong_return_rank(x: f32[(3, 4)]) -> f32[(3,)]:
    return x.sum(axis=0)  # expect: NC301


def wrong_argument(a: f32[(7,)], b: f32[(6,)]) -> None:
    per_example(a)  # expect: NC302


def wrong_missing_named_axis(a: f32[(5,)]) -> None:
    per_example(a)  # expect: NC302


def wrong_named_axis_size(a: f32[(5,), {'batch': 10}]) -> None:
    per_example(a)  # expect: NC302


def wrong_symbol(a: f32[(7,)], b: f32[(6,)]) -> None:
    scale(a, b)  # expect: NC303


def wrong_dtype_assign() -> None:
    x: i32[(3,)] = jnp.zeros(3)  # expect: NC304
    y: f32[(3,)] = jnp.arange(3) * 1.5
    z: f32[(3,)] = jnp.arange(3) > 1  # expect: NC304


def wrong_dtype_argument(a: i32[(3,)]) -> None:
    scale(a, a)  # expect: NC304


def contract(u, v):
    return u @ v  # expect: NC203


def wrong_through_helper(a: f32[(2, 3)], b: f32[(4, 5)]) -> None:
    c = contract(a, b)


def wrong_helper_body(p: f32[(2, 3)]) -> None:
    q = inner_helper(p)


def inner_helper(u):
    return u + jnp.ones((4,))  # expect: NC201
