"""xmap programs: mappings in every spelling jax 0.4.30 accepted, axis_sizes, pytree prefixes, nested
xmaps, and composition with jit / grad / vmap / AOT / donation. Each `case_*` returns (got, want) pairs;
`want` is written with positional jax.numpy / numpy."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import namedcheck.numpy as nnp
from namedcheck import xmap


def case_list_with_ellipsis():
    x = jnp.arange(24.0).reshape(4, 3, 2)
    got = xmap(lambda a: a * 2, in_axes=["i", ...], out_axes=["i", ...])(x)
    return [(got, x * 2)]


def case_list_exact_rank():
    x = jnp.arange(12.0).reshape(4, 3)
    got = xmap(lambda a: jnp.sin(a), in_axes=["i", "j"], out_axes=["j", "i"])(x)
    return [(got, jnp.sin(x).T)]


def case_list_with_none_entries():
    x = jnp.arange(12.0).reshape(4, 3)
    got = xmap(lambda a: a.sum(), in_axes=[None, "i"], out_axes=["i"])(x)
    kept = xmap(lambda a: a + 1, in_axes=[None, "i"], out_axes=[None, "i"])(x)
    return [(got, x.sum(0)), (kept, x + 1)]


def case_none_then_name_then_ellipsis():
    x = jnp.arange(24.0).reshape(2, 3, 4)
    got = xmap(lambda a: a[0], in_axes=[None, "i", ...], out_axes=["i", ...])(x)
    return [(got, x[0])]


def case_dict_positions():
    x = jnp.arange(24.0).reshape(2, 3, 4)
    got = xmap(lambda a: a * 3, in_axes={0: "p", 2: "q"}, out_axes={1: "p", 0: "q"})(x)
    return [(got, jnp.transpose(x, (2, 0, 1)) * 3)]


def case_tuple_of_names_is_one_mapping():
    x = jnp.arange(12.0).reshape(4, 3)
    y = jnp.ones((4, 3))
    got = xmap(lambda a, b: a - b, in_axes=("i", "j"), out_axes=("i", "j"))(x, y)
    return [(got, x - 1)]


def case_per_argument_list_of_mappings():
    x = jnp.arange(12.0).reshape(4, 3)
    w = jnp.arange(3.0)
    got = xmap(lambda a, b: a * b, in_axes=[["i", ...], [...]], out_axes=["i", ...])(x, w)
    return [(got, x * w)]


def case_empty_mapping_and_axis_sizes():
    v = jnp.arange(3.0)
    got = xmap(lambda a: a + lax.axis_index("k"), in_axes={}, out_axes=["k", ...], axis_sizes={"k": 4})(v)
    return [(got, v[None, :] + jnp.arange(4.0)[:, None])]


def case_axis_sizes_agreeing_with_arguments():
    x = jnp.arange(8.0).reshape(4, 2)
    got = xmap(lambda a: a * 2, in_axes=["i", ...], out_axes=["i", ...], axis_sizes={"i": 4})(x)
    return [(got, x * 2)]


def case_reduced_everywhere():
    x = jnp.arange(12.0).reshape(4, 3)
    got = xmap(lambda a: lax.psum(a, "i"), in_axes=["i", ...], out_axes={})(x)
    return [(got, x.sum(0))]


def case_pytree_prefix_arguments():
    params = {"w": jnp.arange(6.0).reshape(2, 3), "b": jnp.arange(3.0)}
    batch = jnp.arange(8.0).reshape(4, 2)

    def predict(p, inputs):
        return inputs @ p["w"] + p["b"]

    got = xmap(predict, in_axes=({}, ["batch", ...]), out_axes=["batch", ...])(params, batch)
    return [(got, batch @ params["w"] + params["b"])]


def case_pytree_prefix_results():
    x = jnp.arange(12.0).reshape(4, 3)
    s, m = xmap(lambda a: (a.sum(), lax.pmax(a.max(), "i")), in_axes=["i", ...],
                out_axes=(["i", ...], [...]))(x)
    return [(s, x.sum(1)), (m, x.max())]


def case_dict_results():
    x = jnp.arange(12.0).reshape(4, 3)
    out = xmap(lambda a: {"double": a * 2, "total": lax.psum(a, "i")}, in_axes=["i", ...],
               out_axes={"double": ["i", ...], "total": [...]})(x)
    return [(out["double"], x * 2), (out["total"], x.sum(0))]


def case_nested_xmaps():
    x = jnp.arange(24.0).reshape(2, 3, 4)

    def per_row(r):
        return xmap(lambda v: lax.psum(v, "j") + lax.psum(v, "i"), in_axes=["j", ...], out_axes=["j", ...])(r)

    got = xmap(per_row, in_axes=["i", ...], out_axes=["i", ...])(x)
    return [(got, x.sum(1, keepdims=True) + x.sum(0, keepdims=True))]


def case_nested_named_einsum():
    x = jnp.arange(12.0).reshape(4, 3)

    def norms(row):
        return xmap(lambda v: nnp.einsum("{i},{i}->{}", v, v), in_axes=["i", ...], out_axes=[...])(row)

    got = xmap(norms, in_axes=["j", ...], out_axes=["j", ...])(x)
    return [(got, (x * x).sum(1))]


def case_one_operand_named_einsum():
    x = jnp.arange(120.0).reshape(2, 3, 4, 5)
    got = xmap(lambda a: nnp.einsum("jk{i,b}->k{b}", a), in_axes=["i", "b", ...], out_axes=["b", ...])(x)
    return [(got, jnp.einsum("ibjk->bk", x))]


def case_inside_jit():
    x = jnp.arange(12.0).reshape(4, 3)
    f = jax.jit(xmap(lambda a: jnp.exp(a) / lax.psum(jnp.exp(a), "i"), in_axes=["i", ...], out_axes=["i", ...]))
    return [(f(x), jax.nn.softmax(x, axis=0))]


def case_grad_through_xmap():
    x = jnp.arange(12.0).reshape(4, 3)

    def loss(v):
        return xmap(lambda a: (a * a).sum(), in_axes=[None, "i"], out_axes=["i"])(v).sum()

    return [(jax.grad(loss)(x), 2 * x)]


def case_grad_inside_body():
    x = jnp.arange(1.0, 5.0)
    got = xmap(jax.grad(lambda a: jnp.sin(a) * a), in_axes=["i"], out_axes=["i"])(x)
    return [(got, jnp.cos(x) * x + jnp.sin(x))]


def case_vmap_of_xmap():
    x = jnp.arange(24.0).reshape(2, 4, 3)
    f = xmap(lambda a: lax.psum(a, "i"), in_axes=["i", ...], out_axes=[...])
    return [(jax.vmap(f)(x), x.sum(1))]


def case_xmap_of_vmap():
    x = jnp.arange(24.0).reshape(2, 4, 3)
    got = xmap(jax.vmap(lambda a: a.sum()), in_axes=["i", ...], out_axes=["i", ...])(x)
    return [(got, x.sum(2))]


def case_lower_compile():
    x = jnp.arange(12.0).reshape(4, 3)
    f = xmap(lambda a: a * lax.psum(1, "i"), in_axes=["i", ...], out_axes=["i", ...])
    compiled = f.lower(x).compile()
    return [(compiled(x), x * 4)]


def case_donated_argument():
    x = jnp.arange(12.0).reshape(4, 3)
    want = np.asarray(x) + 1
    got = xmap(lambda a: a + 1, in_axes=["i", ...], out_axes=["i", ...], donate_argnums=0)(x)
    return [(got, want)]


def case_python_scalar_and_numpy_arguments():
    x = np.arange(6.0).reshape(3, 2)
    got = xmap(lambda a, s: a * s, in_axes=(["i", ...], {}), out_axes=["i", ...])(x, 2.0)
    return [(got, x * 2)]


def case_named_reductions():
    x = jnp.arange(24.0).reshape(4, 3, 2)
    total = xmap(lambda a: nnp.sum(a, axis=("i", 0)), in_axes=["i", ...], out_axes=[...])(x)
    peak = xmap(lambda a: nnp.max(a, axis="i"), in_axes=["i", ...], out_axes=[...])(x)
    avg = xmap(lambda a: nnp.mean(a, axis=("i", 1)), in_axes=["i", ...], out_axes=[...])(x)
    return [(total, x.sum((0, 1))), (peak, x.max(0)), (avg, x.mean((0, 2)))]


def case_xmap_of_xmap_with_named_einsum():
    x = jnp.arange(6.0).reshape(2, 3)
    inner = xmap(lambda a: nnp.einsum("{j},{j}->{}", a, a), in_axes=["j"], out_axes=[])
    got = xmap(inner, in_axes=["i", ...], out_axes=["i"])(x)
    return [(got, (x * x).sum(1))]


def case_xmap_of_xmap_outer_name_in_einsum():
    x = jnp.arange(24.0).reshape(2, 3, 4)
    y = jnp.arange(3.0)

    def per_i(a, b):
        return xmap(lambda u, v: nnp.einsum("n{k},{k}->n", u, v), in_axes=({0: "k"}, ["k"]), out_axes=[...])(a, b)

    got = xmap(per_i, in_axes=(["i", ...], {}), out_axes=["i", ...])(x, y)
    return [(got, jnp.einsum("ikn,k->in", x, y))]
