# Reported: https://github.com/google-deepmind/deepmind-research/issues/291
# After attention the heads are merged with a reshape that takes its leading sizes from the value, not the query.
# class: reshape
import jax
import jax.numpy as jnp


def attend(query, key, value):
    logits = jnp.einsum("...thd,...Thd->...htT", query, key)
    weights = jax.nn.softmax(logits)
    attn = jnp.einsum("...htT,...Thd->...thd", weights, value)
    return jnp.reshape(attn, (*value.shape[:-2], -1))  # bug: attn has the query's length, not the value's


def run():
    b, tq, tk, h, d = 2, 3, 5, 4, 8
    q = jnp.ones((b, tq, h, d))
    kv = jnp.ones((b, tk, h, d))
    return attend(q, kv, kv)


if __name__ == "__main__":
    run()
