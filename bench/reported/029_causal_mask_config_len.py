# Reported: https://github.com/google-deepmind/dm-haiku/issues/202
# The causal mask is built for the configured sequence length, not the length of the batch being run.
# class: attention
import dataclasses

import jax.numpy as jnp


@dataclasses.dataclass
class Config:
    seq_len: int = 8
    num_heads: int = 2


def attention_logits(q, k, cfg):
    logits = jnp.einsum("bthd,bThd->bhtT", q, k)
    mask = jnp.tril(jnp.ones((cfg.seq_len, cfg.seq_len)))
    return jnp.where(mask, logits, -1e9)  # bug: mask is (seq_len, seq_len), logits use the batch's length


def run():
    cfg = Config()
    b, t, d = 2, 6, 4
    q = jnp.ones((b, t, cfg.num_heads, d))
    return attention_logits(q, q, cfg)


if __name__ == "__main__":
    run()
