# Size arithmetic in symbols: evaluated once the symbols are bound; a linear one is solved.
import jax.numpy as jnp

from namedcheck import f32


def shift(x: f32[('N+1',)]) -> f32[('N',)]:
    return x[1:]


def split_heads(x: f32[('T', 'D')], heads: f32[('H',)]) -> f32[('H', 'T', 'D//H')]:
    return jnp.transpose(x.reshape(x.shape[0], heads.shape[0], -1), (1, 0, 2))


def concat_halves(a: f32[('N',)], b: f32[('N',)]) -> f32[('2*N',)]:
    return jnp.concatenate([a, b])


def diff(x: f32[('N',)], d: f32[('N-1',)]) -> f32[('N-1',)]:
    return x[1:] - x[:-1] + d


def callers() -> None:
    y = shift(jnp.ones(8))  # reveal: f32[(7,)]
    h = split_heads(jnp.ones((10, 64)), jnp.ones(4))  # reveal: f32[(4, 10, 16)]
    c = concat_halves(jnp.ones(3), jnp.ones(3))  # reveal: f32[(6,)]
    d = diff(jnp.ones(5), jnp.ones(4))  # reveal: f32[(4,)]
    del y, h, c, d
    diff(jnp.ones(5), jnp.ones(5))  # expect: NC302


def pair(x: f32[('2*D',)], y: f32[('D',)]) -> None:
    pass


def unknown_product(x: f32[('N*M',)]) -> f32[('N*M',)]:
    return x


def more_callers() -> None:
    pair(jnp.ones(8), jnp.ones(4))
    pair(jnp.ones(8), jnp.ones(3))  # expect: NC303
    pair(jnp.ones(7), jnp.ones(3))  # expect: NC302
    u = unknown_product(jnp.ones(12))  # reveal: f32[(?,)]
    del u


def wrong_expression(x: f32[('N**2',)]) -> None:  # expect: NC102
    pass
