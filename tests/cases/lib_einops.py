"""einops patterns as shape rules: the result's shape from the pattern and the input's shape; a pattern einops
rejects is NC702 at the pattern, sizes it rejects NC203. tests/test_einops_under_jax.py runs every function under
JAX and einops: the ones with an `expect` raise, the others run, and every `reveal` is the value's shape."""

import einops
import flax.linen as nn
import jax
import jax.numpy as jnp
from einops import pack, parse_shape, rearrange, reduce, repeat, unpack
from einops.layers.flax import Rearrange, Reduce


def split_heads():
    x = jnp.zeros((2, 12, 5))
    y = rearrange(x, "b (h d) n -> b h d n", h=3)  # reveal: f32[(2, 3, 4, 5)]
    z = rearrange(y, "b h d n -> b n (h d)")  # reveal: f32[(2, 5, 12)]
    return z


def ellipses():
    x = jnp.zeros((2, 3, 4, 5))
    a = rearrange(x, "b ... c -> b c ...")  # reveal: f32[(2, 5, 3, 4)]
    b = rearrange(x, "b ... -> b (...)")  # reveal: f32[(2, 60)]
    c = einops.reduce(x, "b ... c -> b c", "sum")  # reveal: f32[(2, 5)]
    return a, b, c


def unit_axes():
    x = jnp.zeros((2, 1, 4))
    a = rearrange(x, "b 1 n -> b n")  # reveal: f32[(2, 4)]
    b = rearrange(a, "b n -> b () n 1")  # reveal: f32[(2, 1, 4, 1)]
    c = reduce(x, "b c n -> b () ()", "max")  # reveal: f32[(2, 1, 1)]
    return b, c


def stacked_list():
    x = jnp.zeros((3, 4))
    y = rearrange([x, x], "s h w -> h (s w)")  # reveal: f32[(3, 8)]
    return y


def reductions():
    x = jnp.zeros((2, 6, 5))
    a = reduce(x, "b (c k) n -> b c", "mean", k=3)  # reveal: f32[(2, 2)]
    b = reduce(x, "b (c 2) n -> n c", "max")  # reveal: f32[(5, 3)]
    i = jnp.zeros((4, 6), dtype=jnp.int32)
    m = reduce(i, "a b -> b", "min")  # reveal: i32[(6,)]
    t = reduce(i > 0, "a b -> a", "any")  # reveal: bool_[(4,)]
    return a, b, m, t


def repeats():
    x = jnp.zeros((3, 4))
    a = repeat(x, "h w -> h w c", c=2)  # reveal: f32[(3, 4, 2)]
    b = repeat(x, "h w -> (h 2) (w k)", k=3)  # reveal: f32[(6, 12)]
    c = repeat(x, "h w -> h w 5")  # reveal: f32[(3, 4, 5)]
    return a, b, c


def einsums():
    q = jnp.zeros((2, 7, 16))
    k = jnp.zeros((2, 9, 16))
    s = einops.einsum(q, k, "b i d, b j d -> b i j")  # reveal: f32[(2, 7, 9)]
    t = einops.einsum(q, "... d -> ...")  # reveal: f32[(2, 7)]
    return s, t


def packs():
    a = jnp.zeros((2, 3, 5))
    b = jnp.zeros((2, 5))
    packed, shapes = pack([a, b], "b * n")
    p = packed  # reveal: f32[(2, 4, 5)]
    a2, b2 = unpack(packed, shapes, "b * n")
    c = a2 + a  # reveal: f32[(2, 3, 5)]
    d = b2 + b  # reveal: f32[(2, 5)]
    return p, c, d


def sizes_from_parse_shape():
    x = jnp.zeros((4, 3))
    y = jnp.zeros(20)
    z = rearrange(y, "(b n) -> b n", **parse_shape(x, "b _"))  # reveal: f32[(4, 5)]
    return z


def symbolic(n):
    x = jnp.zeros((n, 4 * n))
    y = rearrange(x, "a (h b) -> a h b", h=4)  # reveal: f32[('n', 4, 'n')]
    return y


def unknown_input(x):
    return rearrange(x, "b (h d) -> b h d", h=4)


def flax_layers():
    class Heads(nn.Module):
        @nn.compact
        def __call__(self, x):
            h = Rearrange("b (h d) -> b h d", sizes={"h": 4})(x)
            r = Reduce("b h d -> b d", "max")(h)
            return nn.Dense(3)(r)

    x = jnp.zeros((2, 12))
    params = Heads().init(jax.random.PRNGKey(0), x)
    y = Heads().apply(params, x)  # reveal: f32[(2, 3)]
    return y


def one_side_only():
    x = jnp.zeros((2, 3, 4))
    return rearrange(x, "b c n -> b c")  # expect: NC702


def wrong_rank():
    x = jnp.zeros((2, 3, 4))
    return rearrange(x, "b c -> c b")  # expect: NC702


def too_few_for_ellipsis():
    x = jnp.zeros((2,))
    return rearrange(x, "a b ... -> b a ...")  # expect: NC702


def does_not_divide():
    x = jnp.zeros((2, 12))
    return rearrange(x, "b (h d) -> b h d", h=5)  # expect: NC203


def size_given_differs():
    x = jnp.zeros((2, 12))
    return rearrange(x, "b c -> c b", c=10)  # expect: NC203


def unit_axis_not_one():
    x = jnp.zeros((2, 3, 4))
    return rearrange(x, "b 1 n -> b n")  # expect: NC203


def cannot_infer():
    x = jnp.zeros((2, 12))
    return rearrange(x, "b (h d) -> b h d")  # expect: NC702


def repeat_without_size():
    x = jnp.zeros((3, 4))
    return repeat(x, "h w -> h w c")  # expect: NC702


def reduce_new_axis():
    x = jnp.zeros((3, 4))
    return reduce(x, "h w -> h w c", "sum")  # expect: NC702


def malformed():
    x = jnp.zeros((3, 4))
    return rearrange(x, "h w -> w, h")  # expect: NC702


def duplicate_axis():
    x = jnp.zeros((3, 4))
    return rearrange(x, "h h -> h")  # expect: NC702


def unused_size():
    x = jnp.zeros((3, 4))
    return rearrange(x, "h w -> w h", c=2)  # expect: NC702


def anonymous_in_rearrange():
    x = jnp.zeros((3, 4))
    return rearrange(x, "h (w 2) -> h w")  # expect: NC702


def no_arrow():
    x = jnp.zeros((3, 4))
    return rearrange(x, "h w")  # expect: NC702


def einsum_unknown_output():
    q = jnp.zeros((2, 7))
    return einops.einsum(q, "b i -> b j")  # expect: NC702


def einsum_sizes():
    q = jnp.zeros((2, 7, 16))
    k = jnp.zeros((2, 9, 8))
    return einops.einsum(q, k, "b i d, b j d -> b i j")  # expect: NC203


def einsum_rank():
    q = jnp.zeros((2, 7))
    return einops.einsum(q, "b i d -> b i")  # expect: NC702


def pack_outer_differs():
    return pack([jnp.zeros((2, 3, 5)), jnp.zeros((2, 4))], "b * n")  # expect: NC203


def pack_rank():
    return pack([jnp.zeros((2, 3, 5)), jnp.zeros((2,))], "b * n")  # expect: NC702


def flax_layer_sizes():
    class Heads(nn.Module):
        @nn.compact
        def __call__(self, x):
            return Rearrange("b (h d) -> b h d", sizes={"h": 5})(x)  # expect: NC203

    return Heads().init(jax.random.PRNGKey(0), jnp.zeros((2, 12)))


def unpack_sizes():
    x = jnp.zeros((2, 9, 5))
    return unpack(x, [(3,), (2, 2)], "b * n")  # expect: NC203


split_heads()
ellipses()
unit_axes()
stacked_list()
reductions()
repeats()
einsums()
packs()
sizes_from_parse_shape()
flax_layers()
