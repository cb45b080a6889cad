"""An IfExp whose test is not known is a branch, as an `if` is: an arm that is not taken for the call's
shapes reports nothing there (numpyro's `rng_key if is_prng_key(rng_key) else rng_key[0]`), and its test
narrows a rank in each arm. An index past the end of a JAX array is clamped, not raised: not reported."""

import jax
import jax.numpy as jnp
import numpy as np

from namedcheck import f32


def is_key(key):
    try:
        if jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key):
            return key.shape == ()
        return key.shape == (2,) and key.dtype == np.uint32
    except AttributeError:
        return False


def sample(rng_key):
    key = rng_key if is_key(rng_key) else rng_key[0]
    return jax.random.normal(key, (3,))


def first(x):
    return x if jnp.ndim(x) == 0 else x[0]


def layers(key, hidden):
    keys = jax.random.split(key, len(hidden))
    dims = [2, *hidden, 1]
    return [jax.random.normal(keys[i], (a, b)) for i, (a, b) in enumerate(zip(dims[:-1], dims[1:]))]


def wrong_arm(x: f32[(3,)], flag: bool):
    return x[0, 0] if flag else x  # expect: NC203


def test_arms():
    assert sample(jax.random.key(0)).shape == (3,)
    assert sample(jax.random.split(jax.random.key(0), 2)).shape == (3,)
    assert first(jnp.float32(2.0)).shape == ()
    assert first(jnp.ones((4, 2))).shape == (2,)
    assert [w.shape for w in layers(jax.random.key(0), [8, 8])] == [(2, 8), (8, 8), (8, 1)]  # keys[2]: clamped


if __name__ == "__main__":
    test_arms()
    try:
        wrong_arm(jnp.ones(3), True)
    except IndexError as e:
        print("raises:", e)
