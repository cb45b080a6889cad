"""What a value holds when code runs later than the module body: a loop's carry after the loop (its type, not
the number it started from), and a module-level container that functions change (an effect handler's stack): read
inside a function, it holds whatever ran before the call."""

import jax
import jax.numpy as jnp


def _first_above(t, ts, hint):
    return jax.lax.while_loop(lambda i: ts[i] <= t, lambda i: i + 1, hint)


def right_loop_carries_are_types_not_values():
    """A loop's result is its carry's type: a Python number it starts from is changed by the iterations."""
    ts = jnp.arange(5.0)
    idx = _first_above(2.5, ts, 0)
    assert idx == 3
    # the body and cond see a traced carry: `ts[5]` is a traced index there (JAX clamps it), not a static one
    last = jax.lax.while_loop(lambda i: (i < 5) & (ts[i] <= 2.5), lambda i: i + 1, 5)
    assert last == 5
    n = jax.lax.fori_loop(0, 3, lambda k, c: c + 1, 0)
    assert n == 3
    total, _ = jax.lax.scan(lambda c, x: (c + 1.0, x), 0.0, ts)
    assert total == 5.0
    both = jax.lax.fori_loop(0, 2, lambda k, c: (c[0] + 1, c[1] * 2), (0, jnp.ones((2, 3))))
    shape = both[1]  # reveal: f32[(2, 3)]
    return idx, shape


def wrong_loop_carry_shape():
    both = jax.lax.fori_loop(0, 2, lambda k, c: (c[0] + 1, c[1] * 2), (0, jnp.ones((2, 3))))
    return both[1] @ jnp.ones((2, 3))  # expect: NC203


_HANDLERS = []  # a stack that functions push onto and pop: its contents depend on what ran before a call
_TABLE = {"w": jnp.ones((3, 4))}  # read by functions, changed by none: known where they read it


class _Handler:
    def __enter__(self):
        _HANDLERS.append(self)

    def __exit__(self, *exc):
        _HANDLERS.pop()


def _maybe_subsample(data):
    if not _HANDLERS:
        return data
    return data[:2]


def _weights():
    return _TABLE["w"]


def right_global_stack_changed_by_functions():
    with _Handler():
        s = _maybe_subsample(jnp.ones(10))
        assert s.shape == (2,)
    return s


def wrong_global_read_in_function():
    return _weights() @ jnp.ones((3,))  # expect: NC203
