"""A block that switches the default PRNG (`with jax.default_prng_impl("rbg")`, as haiku's tests do): a raw key
there has 4 uint32 words, not threefry's 2, so a key this module makes is not known to be uint32[2]."""

import jax


def right_rbg_keys():
    with jax.default_prng_impl("rbg"):
        key = jax.random.PRNGKey(42)
        words = key.reshape(2, 2)
        assert key.shape == (4,)
    return words


def right_typed_keys():
    with jax.enable_custom_prng():
        key = jax.random.PRNGKey(0)
        one = key.reshape(1)
    return one


def right_new_style():
    k = jax.random.key(3).reshape(1)  # reveal: Array[(1,)]
    return k


def wrong_new_style():
    return jax.random.key(3).reshape(2)  # expect: NC203
