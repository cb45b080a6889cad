# NC408: a lax.scan / fori_loop / while_loop body returns its carry with another type than it received.
# Every `wrong_*` program raises a TypeError under JAX, every `right_*` program runs
# (tests/test_carry_under_jax.py runs them; those with parameters take ARGS[name]()).
import dataclasses
import functools
from typing import NamedTuple

import flax.struct
import jax
import jax.numpy as jnp
from jax import lax


class State(NamedTuple):
    h: jax.Array
    n: jax.Array


class Other(NamedTuple):
    h: jax.Array
    n: jax.Array


@functools.partial(jax.tree_util.register_dataclass, data_fields=["w", "b"], meta_fields=[])
@dataclasses.dataclass
class Params:
    w: jax.Array
    b: jax.Array


@flax.struct.dataclass
class Layer:
    w: jax.Array
    k: int = flax.struct.field(pytree_node=False, default=1)


# ---- structure -------------------------------------------------------------------------------------


def wrong_none_to_int():
    def step(carry, x):
        return 0, x  # expect: NC408

    return lax.scan(step, None, jnp.arange(5))


def right_none_stays_none():
    def step(carry, x):
        return None, x * 2

    return lax.scan(step, None, jnp.arange(5))


def wrong_scalar_to_tuple():
    return lax.scan(lambda c, x: ((c, c), x), jnp.zeros(()), jnp.ones(3))  # expect: NC408


def wrong_tuple_to_array():
    def step(c, x):
        a, b = c
        return jnp.stack([a, b]), x  # expect: NC408

    return lax.scan(step, (jnp.zeros(()), jnp.zeros(())), jnp.ones(3))


def right_tuple_kept():
    def step(c, x):
        a, b = c
        return (a + x, b * x), x

    return lax.scan(step, (jnp.zeros(()), jnp.ones(())), jnp.ones(3))


def wrong_dict_key_added():
    def step(c, x):
        return {"h": c["h"], "total": c["h"].sum()}, x  # expect: NC408

    return lax.scan(step, {"h": jnp.zeros(3)}, jnp.ones(4))


def right_dict_keys_reordered():
    def step(c, x):
        return {"n": c["n"] + 1, "h": c["h"] * x}, x

    return lax.scan(step, {"h": jnp.zeros(3), "n": jnp.zeros(())}, jnp.ones(4))


def wrong_namedtuple_as_tuple():
    def step(s, x):
        return (s.h + x, s.n), None  # expect: NC408

    return lax.scan(step, State(jnp.zeros(3), jnp.zeros(())), jnp.ones((4, 3)))


def wrong_other_namedtuple():
    def step(s, x):
        return Other(s.h + x, s.n), None  # expect: NC408

    return lax.scan(step, State(jnp.zeros(3), jnp.zeros(())), jnp.ones((4, 3)))


def wrong_int_to_none():
    return lax.fori_loop(0, 3, lambda i, c: None, 0)  # expect: NC408


# ---- shapes ----------------------------------------------------------------------------------------


def wrong_reshape_component():
    def body(carry, _):
        count, total = carry
        return (count + 1, total.reshape(1, 1)), None  # expect: NC408

    init = (jnp.array(0, "int32"), jnp.array(0.0, "float32"))
    return lax.scan(body, init, None, length=3)


def right_reshape_back():
    def body(carry, _):
        count, total = carry
        return (count + 1, total.reshape(1, 1).reshape(())), None

    init = (jnp.array(0, "int32"), jnp.array(0.0, "float32"))
    return lax.scan(body, init, None, length=3)


def wrong_dict_field_shape():
    def step(c, x):
        return {"h": c["h"][None], "n": c["n"]}, None  # expect: NC408

    return lax.scan(step, {"h": jnp.zeros(3), "n": jnp.zeros(())}, None, length=2)


def wrong_namedtuple_field_shape():
    def step(s, x):
        return State(s.h.sum(), s.n), None  # expect: NC408

    return lax.scan(step, State(jnp.zeros(3), jnp.zeros(())), None, length=2)


def right_namedtuple_kept():
    def step(s, x):
        return State(s.h + x, s.n + 1), s.h.sum()

    return lax.scan(step, State(jnp.zeros(3), jnp.zeros(())), jnp.ones((4, 3)))


def right_namedtuple_replace():
    return lax.scan(lambda s, x: (s._replace(h=s.h + x), None), State(jnp.zeros(3), jnp.zeros(())), jnp.ones((2, 3)))


def right_namedtuple_keywords_and_splat():
    def step(s, x):
        return State(n=s.n, h=s.h * x), State(*s).h

    return lax.scan(step, State(jnp.zeros(3), jnp.zeros(())), jnp.ones((2, 3)))


def right_struct_replace():
    return lax.scan(lambda p, x: (p.replace(w=p.w + x), None), Layer(jnp.zeros(3)), jnp.ones((2, 3)))


def right_struct_static_field():
    return lax.scan(lambda p, x: (Layer(p.w + x, p.k), None), Layer(jnp.zeros(3), 2), jnp.ones((2, 3)))


def wrong_struct_field_shape():
    return lax.scan(lambda p, x: (Layer(p.w[None], p.k), None), Layer(jnp.zeros(3), 2), None, length=2)  # expect: NC408


def wrong_dataclass_field_shape():
    def step(p, x):
        return Params(p.w @ p.w.T, p.b), None  # expect: NC408

    return lax.scan(step, Params(jnp.ones((2, 3)), jnp.zeros(3)), None, length=2)


def right_dataclass_kept():
    def step(p, x):
        return Params(p.w * 0.5, p.b + x), None

    return lax.scan(step, Params(jnp.ones((2, 3)), jnp.zeros(3)), jnp.ones((4, 3)))


def wrong_fori_shape():
    return lax.fori_loop(0, 3, lambda i, c: c[None], jnp.zeros(3))  # expect: NC408


def wrong_while_concat():
    def grow(c):
        return jnp.concatenate([c, c])  # expect: NC408

    return lax.while_loop(lambda c: c.sum() < 10, grow, jnp.ones(2))


def right_while_kept():
    return lax.while_loop(lambda c: c.sum() < 10, lambda c: c * 2, jnp.ones(2))


def wrong_reverse_scan():
    return lax.scan(lambda c, x: (c[None], None), jnp.zeros(()), None, length=2, reverse=True)  # expect: NC408


def wrong_unrolled_scan():
    return lax.scan(lambda c, x: (c[None], None), jnp.zeros(()), None, length=2, unroll=2)  # expect: NC408


def right_scan_ys_change_shape():
    return lax.scan(lambda c, x: (c + x, x[None]), jnp.zeros(()), jnp.ones(3))


# ---- dtypes and weak types ---------------------------------------------------------------------------


def wrong_bf16_carry_matmul():
    def layer(h, w):
        return h @ w, None  # expect: NC408

    return lax.scan(layer, jnp.ones((2, 4), jnp.bfloat16), jnp.ones((3, 4, 4), jnp.float32))


def right_bf16_carry_cast_back():
    def layer(h, w):
        return (h @ w).astype(jnp.bfloat16), None

    return lax.scan(layer, jnp.ones((2, 4), jnp.bfloat16), jnp.ones((3, 4, 4), jnp.float32))


def wrong_python_float_to_int():
    return lax.scan(lambda c, x: (x, None), 0.0, jnp.ones(3, jnp.int32))  # expect: NC408


def wrong_int_carry_plus_half():
    return lax.fori_loop(0, 3, lambda i, c: c + 0.5, jnp.zeros((), jnp.int32))  # expect: NC408


def wrong_int_counts_become_float():
    counts = jnp.zeros(4, dtype=jnp.int32)

    def step(c, x):
        return c + x, None  # expect: NC408

    return lax.scan(step, counts, jnp.ones((3, 4)))


def wrong_string_dtype_tuple_item():
    def step(c, x):
        n, total = c
        return (n + 0.5, total + x), None  # expect: NC408

    return lax.scan(step, (jnp.array(0, "int32"), jnp.zeros(())), jnp.ones(3))


def wrong_cast_int_carry_plus_half():
    def step(c, x):
        return c + 0.5 * x, None  # expect: NC408

    return lax.scan(step, jnp.array(0).astype(jnp.int32), jnp.ones(3))


def wrong_cast_item_in_dict():
    def step(c, x):
        return {"n": c["n"] + 0.5, "h": c["h"]}, None  # expect: NC408

    return lax.scan(step, {"h": jnp.zeros(2), "n": jnp.array(0).astype(jnp.int32)}, jnp.ones(3))


def right_int_made_float_is_weak():
    init = jnp.zeros((), jnp.int32) + 0.5  # a weak float32: JAX promotes it to the body's bfloat16

    def step(c, w):
        return (c * w).astype(jnp.bfloat16), None

    return lax.scan(step, init, jnp.ones(3, jnp.bfloat16))


def right_python_int_to_float():
    return lax.scan(lambda c, x: (c + x, None), 0, jnp.ones(3))  # a weak carry takes the body's dtype


def right_python_int_plus_half():
    return lax.fori_loop(0, 3, lambda i, c: c + 0.5, 0)


def right_weak_array_to_float():
    return lax.scan(lambda c, x: (c + x, None), jnp.array(0), jnp.ones(3))  # jnp.array(0) is weak too


def right_weak_full_to_float():
    return lax.scan(lambda c, x: (c + x, None), jnp.full((3,), 0), jnp.ones((2, 3)))


def wrong_int_to_bool():
    return lax.scan(lambda c, x: (c > 0, None), 0, None, length=2)  # expect: NC408


def wrong_bool_to_int():
    return lax.scan(lambda c, x: (c + 1, None), jnp.zeros((), bool), None, length=2)  # expect: NC408


def wrong_float_to_python_int():
    return lax.scan(lambda c, x: (1, None), jnp.zeros(()), None, length=2)  # expect: NC408


def right_float_to_python_float():
    return lax.scan(lambda c, x: (1.0, None), jnp.zeros(()), None, length=2)


def right_f64_request_is_f32():
    return lax.scan(lambda c, x: (c.astype(jnp.float64), None), jnp.ones(2), None, length=2)


def wrong_fori_float_to_index():
    return lax.fori_loop(0, 3, lambda i, c: i, 0.0)  # expect: NC408


def right_fori_float_plus_index():
    return lax.fori_loop(0, 3, lambda i, c: c + i, 0.0)


def right_i16_carry_plus_index():
    return lax.fori_loop(0, 3, lambda i, c: c + i, jnp.zeros(2, jnp.int16))  # the index is a weak int32


def wrong_i16_carry_plus_half():
    return lax.fori_loop(0, 3, lambda i, c: c + 0.5, jnp.zeros(2, jnp.int16))  # expect: NC408


def wrong_while_int_to_float():
    return lax.while_loop(lambda c: c < 10, lambda c: c * 1.5, jnp.zeros((), jnp.uint8))  # expect: NC408


# ---- while_loop's condition --------------------------------------------------------------------------


def wrong_cond_not_scalar():
    return lax.while_loop(lambda c: c < 10, lambda c: c + 1, jnp.zeros(3))  # expect: NC408


def wrong_cond_int():
    def cond(c):
        return c  # expect: NC408

    return lax.while_loop(cond, lambda c: c - 1, 3)


def right_cond_reduced():
    return lax.while_loop(lambda c: (c < 10).all(), lambda c: c + 1, jnp.zeros(3))


# ---- how the loop is reached ---------------------------------------------------------------------------

scan = functools.partial(lax.scan, length=3)


def wrong_through_partial():
    return scan(lambda c, _: (c.reshape(1, 1), None), jnp.zeros(()), None)  # expect: NC408


def wrong_partial_body():
    def step(scale, c, x):
        return jnp.stack([c, c]) * scale, None  # expect: NC408

    return lax.scan(functools.partial(step, 2.0), jnp.zeros(3), None, length=2)


class Model:
    def step(self, c, x):
        return c[:, None], None  # expect: NC408

    def run(self):
        return lax.scan(self.step, jnp.zeros(3), None, length=2)


def wrong_method_body():
    return Model().run()


def wrong_nested_def():
    def outer(x):
        def inner(c, _):
            return c.T, None  # expect: NC408

        return lax.scan(inner, x, None, length=2)

    return outer(jnp.ones((2, 3)))


def wrong_checkpointed_body():
    @jax.checkpoint
    def step(c, x):
        return c[None], None  # expect: NC408

    return lax.scan(step, jnp.zeros(3), None, length=2)


def wrong_jitted_body():
    step = jax.jit(lambda c, x: (c.sum(), None))  # expect: NC408
    return lax.scan(step, jnp.zeros(3), None, length=2)


def wrong_inside_jit():
    @jax.jit
    def f(x):
        return lax.scan(lambda c, r: (c + r.sum(), None), jnp.zeros(3, jnp.int32), x)  # expect: NC408

    return f(jnp.ones((2, 4)))


def wrong_cond_tuple():
    return lax.while_loop(lambda c: (c < 3,), lambda c: c + 1, jnp.int32(0))  # expect: NC408


def wrong_fori_bound_from_argument(n):
    return lax.fori_loop(0, n, lambda i, c: c[None], jnp.zeros(3))  # expect: NC408


# ---- symbolic sizes -----------------------------------------------------------------------------------


def wrong_symbolic_grows(x):
    B, D = x.shape

    def step(c, _):
        return jnp.zeros((B + 1, D)), None  # expect: NC408

    return lax.scan(step, jnp.zeros((B, D)), None, length=2)


def right_symbolic_kept(x):
    B, D = x.shape

    def step(c, row):
        return c + row, None

    return lax.scan(step, jnp.zeros((B, D)), jnp.ones((3, B, D)))


def right_symbolic_unprovable(x, y):
    def step(c, _):
        return jnp.zeros(y.shape[0]), None  # y.shape[0] may equal x.shape[0]: silent

    return lax.scan(step, jnp.zeros(x.shape[0]), None, length=2)


def right_unknown_body_output(x):
    def step(c, _):
        return helper_not_known(c), None  # noqa: F821 - an Unknown carry output proves nothing

    return lax.scan(step, jnp.zeros(3), None, length=2) if x is None else x


ARGS = {
    "wrong_fori_bound_from_argument": lambda: (3,),
    "wrong_symbolic_grows": lambda: (jnp.ones((4, 3)),),
    "right_symbolic_kept": lambda: (jnp.ones((4, 3)),),
    "right_symbolic_unprovable": lambda: (jnp.ones(4), jnp.ones(4)),
    "right_unknown_body_output": lambda: (jnp.ones(2),),
}
