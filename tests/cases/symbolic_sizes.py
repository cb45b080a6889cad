"""Symbolic sizes: ints the checker cannot evaluate (parameters, config fields, `x.shape[i]` of an unannotated
array, `len(...)`) become symbols named after their source. One source is one size, arithmetic keeps
expressions, and element counts are compared as products of symbols (symbols stand for sizes >= 1)."""

import jax.numpy as jnp


def right(x, config, n: int, tokens):
    B, T = x.shape  # unknown: B and T are symbols
    h = jnp.zeros((B, T, config.d_model))  # reveal: f32[('B', 'T', 'config.d_model')]
    flat = h.reshape(B * T, config.d_model)  # reveal: f32[('B*T', 'config.d_model')]
    back = flat.reshape(B, T, -1)  # reveal: f32[('B', 'T', 'config.d_model')]
    heads = h.reshape(B, T, config.n_heads, config.d_model // config.n_heads)
    same = h + jnp.ones((B, T, config.d_model))  # reveal: f32[('B', 'T', 'config.d_model')]
    s = jnp.ones((n + 1, 4))  # reveal: f32[('n+1', 4)]
    both = jnp.concatenate([s, jnp.ones((n, 4))], axis=0)  # reveal: f32[('2*n+1', 4)]
    m = jnp.ones((len(tokens), 8))  # reveal: f32[('len(tokens)', 8)]
    stretched = jnp.ones((n, 1)) + jnp.ones((n + 1, 5))  # n may be 1: broadcasting is fine
    proj = h @ jnp.ones((config.d_model, 4))  # reveal: f32[('B', 'T', 4)]
    return flat, back, heads, same, both, m, stretched, proj


def wrong(x, config, n: int):
    B, T = x.shape
    h = jnp.zeros((B, T, config.d_model))
    bad = h.reshape(B, T, config.d_model + 1)  # expect: NC203
    worse = h.reshape(B * T * 2, config.d_model)  # expect: NC203
    mm = jnp.ones((4, n)) @ jnp.ones((n + 1, 3))  # expect: NC203
    cat = jnp.concatenate([jnp.ones((n, 4)), jnp.ones((n + 1, 3))], axis=0)  # expect: NC203
    return bad, worse, mm, cat


def unpacked(x, n_head: int):
    B, T, C = x.shape  # x is an array of rank 3: its sizes are B, T, C
    q = x.reshape(B, T, n_head, C // n_head)  # reveal: Array[('B', 'T', 'n_head', '(C//n_head)')]
    y = x @ jnp.ones((C, 3 * C))  # reveal: Array[('B', 'T', '3*C')]
    z = y.reshape(B, T, 3, C)  # reveal: Array[('B', 'T', 3, 'C')]
    return q, z


def unpacked_wrong(x):
    B, T, C = x.shape
    y = x @ jnp.ones((C, 3 * C))
    return y.reshape(B, T, 2, C)  # expect: NC203


def linked(x):
    h = x.reshape(-1, 784)
    n = h.shape[0]  # h's unknown dim 0 is now the symbol h.shape[0]
    z = jnp.zeros((n, 10))
    y = h @ jnp.ones((784, 10)) + z  # reveal: Array[('h.shape[0]', 10)]
    return y


def linked_wrong(x):
    h = x.reshape(-1, 784)
    n = h.shape[0]
    return h.reshape(n, 28, 29)  # expect: NC203


def layers_with_config_sizes(idx, config):
    import flax.linen as nn

    B, T = idx.shape
    pos = jnp.arange(0, T)[None]  # reveal: i32[(1, 'T')]
    tok = nn.Embed(config.vocab_size, config.n_embd)(idx)  # reveal: f32[('B', 'T', 'config.n_embd')]
    qkv = nn.Dense(3 * config.n_embd)(tok)  # reveal: f32[('B', 'T', '3*config.n_embd')]
    q, k, v = jnp.split(qkv, 3, axis=-1)
    att = jnp.where(pos[:, :, None] == 0, float("-inf"), q)  # reveal: f32[('B', 'T', 'config.n_embd')]
    return att, k, v


def layers_with_config_sizes_wrong(idx, config):
    import flax.linen as nn

    B, T = idx.shape
    tok = nn.Embed(config.vocab_size, config.n_embd)(idx)
    qkv = nn.Dense(3 * config.n_embd)(tok)
    return qkv.reshape(B, T, 2, config.n_embd)  # expect: NC203


def heads_merged(x, n_head: int):
    B, T, C = x.shape
    q = x.reshape(B, T, n_head, C // n_head)  # fine when n_head divides C
    y = q.reshape(B, T, C)  # reveal: Array[('B', 'T', 'C')]
    return y


def heads_merged_wrong(x, n_head: int):
    B, T, C = x.shape
    q = x.reshape(B, T, n_head, C // n_head)
    k = x.reshape(B, T, n_head, C // n_head + 1)  # expect: NC203
    return q.reshape(B, T, 2 * C), k  # expect: NC203


def last_dim_read(x):
    import flax.linen as nn

    C = x.shape[-1]  # x is an array whose last dimension is C (its rank unknown)
    h = nn.Dense(4 * C)(x)  # reveal: Array[(..., '4*x.shape[-1]')]
    out = nn.Dense(C)(nn.gelu(h))
    y = x + out  # reveal: Array[(..., 'x.shape[-1]')]
    return y


def last_dim_read_wrong(x):
    C = x.shape[-1]
    return x.reshape(-1, C) @ jnp.ones((C + 1, 4))  # expect: NC203


def masked_scores(att, cfg):
    B, H, T, S = att.shape
    mask = jnp.tril(jnp.ones((T, S), dtype=bool))
    x = jnp.where(mask, att, jnp.finfo(cfg.dtype).min)  # reveal: Array[('B', 'H', 'T', 'S')]
    y = jnp.where(mask, att, float("-inf"))  # reveal: Array[('B', 'H', 'T', 'S')]
    return x, y


def masked_scores_wrong(att, cfg):
    B, H, T, S = att.shape
    mask = jnp.tril(jnp.ones((T, S), dtype=bool))
    x = jnp.where(mask, att, jnp.finfo(cfg.dtype).min)
    return x @ jnp.ones((S + 1, 3))  # expect: NC203


def trailing_reduction(x):
    C = x.shape[-1]  # rank unknown, last dim C
    m = x.mean(axis=-1, keepdims=True)  # reveal: Array[(..., 1)]
    return x - m, C


def repeated_axes(x):
    a = jnp.expand_dims(x, axis=(-3, -3))  # expect: NC701
    b = jnp.sum(x, axis=(1, 1))  # expect: NC701
    return a, b


def shape_index(x):
    a = jnp.ones((2, 32))
    ok = a.shape[-1] + a.shape[1]
    L = a.shape[2]  # expect: NC701
    return ok, L


def literal_index_forms(x):
    c = x.shape[0x1]  # reveal: DimVal(dim='x.shape[1]')
    h = jnp.ones((c, 2))  # reveal: f32[('x.shape[1]', 2)]
    return h
