"""xmap programs for the named operations jax 0.4.30's xmap test suite exercised: pdot (with positional
batch / contraction dims, on meshes, its VJP), xeinsum with and without named axes, named reductions
(sum, max, min, mean, var, std, logsumexp), named one_hot, and jax.Array inputs already placed on a mesh.
Written for this project; each `case_*` returns (got, want) pairs, `want` in positional jax.numpy."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

import namedcheck.lax as nlax
import namedcheck.nn as nnn
import namedcheck.numpy as nnp
from namedcheck import xmap

RNG = np.random.RandomState(7)
HIGH = jax.default_matmul_precision("float32")


def grid(*shape):
    n = int(np.prod(shape))
    return Mesh(np.array(jax.devices()[:n]).reshape(shape), ("x", "y")[:len(shape)])


def case_pdot_on_a_mesh():
    x, y = RNG.randn(3, 8), RNG.randn(8, 5)
    with grid(2), HIGH:
        got = xmap(lambda a, b: nlax.pdot(a, b, "i"), in_axes=({1: "i"}, {0: "i"}), out_axes={},
                   axis_resources={"i": "x"})(x, y)
    return [(got, x @ y)]


def case_pdot_batched_contracted_name_on_mesh():
    x, y = RNG.randn(2, 3, 8), RNG.randn(2, 8, 5)
    with grid(2), HIGH:
        got = xmap(lambda a, b: nlax.pdot(a, b, "i"), in_axes=({0: "j", 2: "i"}, {0: "j", 1: "i"}),
                   out_axes=["j", ...], axis_resources={"i": "x"})(x, y)
    return [(got, np.einsum("nij,njk->nik", x, y))]


def case_pdot_batched_batch_name_on_mesh():
    x, y = RNG.randn(2, 3, 8), RNG.randn(2, 8, 5)
    with grid(2), HIGH:
        got = xmap(lambda a, b: nlax.pdot(a, b, "i"), in_axes=({0: "j", 2: "i"}, {0: "j", 1: "i"}),
                   out_axes=["j", ...], axis_resources={"j": "x"})(x, y)
    return [(got, np.einsum("nij,njk->nik", x, y))]


def case_pdot_with_positional_batch_and_contraction():
    """Named contraction 'c' and named batch 'b' beside positional contraction and batch dims."""
    lhs = RNG.randn(2, 4, 2, 3).astype(np.float32)  # b, k, c, m
    rhs = RNG.randn(4, 2, 2, 5).astype(np.float32)  # k, b, c, n
    with HIGH:
        f = xmap(lambda a, b: nlax.pdot(a, b, "c", pos_contract=((0,), (0,))),
                 in_axes=({0: "b", 2: "c"}, {1: "b", 2: "c"}), out_axes=["b", ...])
        vectorised = f(lhs, rhs)
        with grid(2):
            on_mesh = xmap(lambda a, b: nlax.pdot(a, b, "c", pos_contract=((0,), (0,))),
                           in_axes=({0: "b", 2: "c"}, {1: "b", 2: "c"}), out_axes=["b", ...],
                           axis_resources={"c": "x"})(lhs, rhs)
        want = np.einsum("bkcm,kbcn->bmn", lhs, rhs)
        pb_lhs = RNG.randn(3, 2, 4).astype(np.float32)  # p(batch), c, k
        pb_rhs = RNG.randn(2, 3, 4).astype(np.float32)  # c, p, k
        batched = xmap(lambda a, b: nlax.pdot(a, b, "c", pos_batch=((0,), (0,)), pos_contract=((1,), (1,))),
                       in_axes=({1: "c"}, {0: "c"}), out_axes={})(pb_lhs, pb_rhs)
    return [(vectorised, want), (on_mesh, want), (batched, np.einsum("pck,cpk->p", pb_lhs, pb_rhs))]


def case_pdot_vjp():
    lhs = RNG.randn(2, 4).astype(np.float32)  # c, k(batch 'b' at 1)
    rhs = RNG.randn(2, 4).astype(np.float32)
    out_bar = RNG.randn(4).astype(np.float32)

    def pullback(a, b, g):
        _, vjp = jax.vjp(lambda u, v: nlax.pdot(u, v, "c"), a, b)
        return vjp(g)

    with HIGH:
        da, db = xmap(pullback, in_axes=({0: "c", 1: "b"}, {0: "c", 1: "b"}, ["b", ...]),
                      out_axes=({0: "c", 1: "b"}, {0: "c", 1: "b"}))(lhs, rhs, out_bar)
        _, ref = jax.vjp(lambda u, v: jnp.einsum("cb,cb->b", u, v), lhs, rhs)
        want_a, want_b = ref(out_bar)
    return [(da, want_a), (db, want_b)]


def case_xeinsum_named_specs():
    x, y = RNG.randn(3), RNG.randn(3)
    m, n = RNG.randn(3, 4), RNG.randn(4, 5)
    with HIGH:
        dot = xmap(lambda a, b: nlax.xeinsum("{i},{i}->", a, b), in_axes=(["i"], ["i"]), out_axes=[])(x, y)
        outer = xmap(lambda a, b: nlax.xeinsum("{i},{j}->{i,j}", a, b), in_axes=(["i"], ["j"]),
                     out_axes=["i", "j"])(x, y)
        pairs = [(dot, np.dot(x, y)), (outer, np.outer(x, y))]
        for spec in ("{i,j},{j,k}->{i,k}", "{i,j},{k,j}->{k,i}", "{j},{k,j}->{k}", "{i,j},{j}->{i}", "{j},{j}->{}"):
            got = xmap(lambda a, b, spec=spec: nlax.xeinsum(spec, a, b), in_axes=(["i", "j"], ["j", "k"]),
                       out_axes=["i", "k"])(m, n)
            pairs.append((got, m @ n))
    return pairs


def case_xeinsum_without_named_axes():
    a, b = RNG.randn(3, 2), RNG.randn(3, 2)
    c, d = RNG.randn(3, 5, 4), RNG.randn(3, 4, 2)
    e, s = RNG.randn(3), RNG.randn()
    f, g = RNG.randn(3, 5, 4), RNG.randn(2, 4, 2)
    with HIGH:
        return [(nlax.xeinsum("i,i->", a[:, 0], b[:, 0]), np.einsum("i,i->", a[:, 0], b[:, 0])),
                (nlax.xeinsum("ij,ij->i", a, b), np.einsum("ij,ij->i", a, b)),
                (nlax.xeinsum("bij,bjk->bik", c, d), np.einsum("bij,bjk->bik", c, d)),
                (nlax.xeinsum("i,->", e, s), np.einsum("i,->", e, s)),
                (nlax.xeinsum("bij,cjk->ik", f, g), np.einsum("bij,cjk->ik", f, g))]


def case_xeinsum_named_reduction_of_an_operand():
    x, y = RNG.randn(6, 4), RNG.randn(8)
    want = np.einsum("ij,k->ik", x, y)
    pairs = []
    with HIGH:
        pairs.append((xmap(lambda a, b: nlax.xeinsum("{i,j},{k}->{i,k}", a, b), in_axes=(["i", "j"], ["k"]),
                           out_axes=["i", "k"])(x, y), want))
        with grid(2, 2):
            for spec in ("{i,j},{k}->{i,k}", "{i,j},{k}->{k,i}", "{j,i},{k}->{i,k}", "{j,i},{k}->{k,i}"):
                got = xmap(lambda a, b, spec=spec: nlax.xeinsum(spec, a, b), in_axes=(["i", "j"], ["k"]),
                           out_axes=["i", "k"], axis_resources={"i": "x", "k": "y"})(x, y)
                pairs.append((got, want))
    return pairs


def case_xeinsum_named_batch_matmul_on_a_mesh():
    x, y = RNG.randn(8, 3, 4), RNG.randn(8, 4, 5)
    pairs = []
    with grid(2, 2), HIGH:
        for spec in ("{b,i,j},{b,j,k}->{b,i,k}", "{j,i,b},{j,b,k}->{i,b,k}"):
            got = xmap(lambda a, c, spec=spec: nlax.xeinsum(spec, a, c), in_axes=(["b", "i", "j"], ["b", "j", "k"]),
                       out_axes=["b", "i", "k"], axis_resources={"b": "x", "j": "y"})(x, y)
            pairs.append((got, np.einsum("bij,bjk->bik", x, y)))
    return pairs


def case_xeinsum_unary_named_reductions_on_a_mesh():
    x = RNG.randn(8, 6, 4)
    z = RNG.randn(8, 6, 4, 5)
    pairs = []
    with grid(2, 2), HIGH:
        for spec in ("{b,i,j}->{b}", "{b,j,i}->{b}", "{i,j,b}->{b}"):
            got = xmap(lambda a, spec=spec: nlax.xeinsum(spec, a), in_axes=["b", "i", "j"], out_axes=["b"],
                       axis_resources={"b": "x", "i": "y"})(x)
            pairs.append((got, x.sum((1, 2))))
        mixed = xmap(lambda a: nlax.xeinsum("jk{i,b}->k{b}", a), in_axes=["b", "i", ...], out_axes=["b", ...],
                     axis_resources={"b": "x", "i": "y"})(z)
        pairs.append((mixed, np.einsum("bijk->bk", z)))
    return pairs


REDUCTIONS = {"sum": (nnp.sum, np.sum), "max": (nnp.max, np.max), "min": (nnp.min, np.min),
              "mean": (nnp.mean, np.mean), "var": (nnp.var, np.var), "std": (nnp.std, np.std),
              "logsumexp": (nnp.logsumexp, lambda a, axis: jax.nn.logsumexp(a, axis=axis))}


def case_named_reductions_every_spelling():
    """Each reduction over positional dims, the name 'i', and mixes, with 'i' at each position of x."""
    x = RNG.randn(2, 5, 6)
    pairs = []
    for named, plain in REDUCTIONS.values():
        for axes in (0, "i", (1,), ("i",), (0, 1), (0, "i"), ("i", 0)):
            for mapped in (0, 2):
                listed = axes if isinstance(axes, tuple) else (axes,)
                ref_axes = tuple(mapped if a == "i" else a + (a >= mapped) for a in listed)
                left = mapped - sum(1 for a in listed if a != "i" and a < mapped)
                got = xmap(lambda v, axes=axes, named=named: named(v, axes), in_axes={mapped: "i"},
                           out_axes={} if "i" in listed else {left: "i"})(x)
                pairs.append((got, plain(x, axis=ref_axes)))
    return pairs


def case_one_hot_named_classes_out_of_range():
    got = xmap(lambda v: nnn.one_hot(jnp.array([-1, 3]), 3, axis="i"), in_axes=["i", ...], out_axes=["i", ...])(
        jnp.ones(3, dtype=jnp.int32))
    constant = xmap(lambda v: nnn.one_hot(jnp.array([1, 2, 0]), 3, axis="i"), in_axes=["i", ...],
                    out_axes=["i", ...])(jnp.ones(3, dtype=jnp.int32))
    return [(got, jnp.zeros((3, 2))), (constant, jax.nn.one_hot(jnp.array([1, 2, 0]), 3).T)]


def placed(shape, mesh, spec):
    data = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    return jax.device_put(data, NamedSharding(mesh, spec)), data


def case_placed_array_input_keeps_its_shards():
    mesh = grid(4, 2)
    x, data = placed((8, 2), mesh, PartitionSpec("x", "y"))
    with mesh:
        out = xmap(lambda v: v, in_axes={0: "a", 1: "b"}, out_axes={0: "a", 1: "b"},
                   axis_resources={"a": "x", "b": "y"})(x)
    shards = [(s.data, data[s.index]) for s in out.addressable_shards]
    return [(out, data), (out.addressable_shards[0].data.shape, (2, 1)), (len(shards), 8), *shards]


def case_two_placed_array_inputs():
    mesh = grid(4, 2)
    a1, data = placed((8, 2), mesh, PartitionSpec("x"))
    a2, _ = placed((8, 2), mesh, PartitionSpec("y"))
    with mesh, HIGH:
        o1, o2 = xmap(lambda u, v: (u @ u.T, v @ v.T), in_axes=({0: "a"}, ["c", ...]), out_axes=({0: "a"}, ["c", ...]),
                      axis_resources={"a": "x", "c": "y"})(a1, a2)
    want = np.diagonal(data @ data.T)
    return [(o1, want), (o2, want), (o1.addressable_shards[0].data.shape, (2,)),
            (o2.addressable_shards[0].data.shape, (4,))]


def case_staged_xmap_with_a_constant():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    outer = lambda v: xmap(lambda w: w + np.ones(w.shape, w.dtype), in_axes=({0: "batch"},),  # noqa: E731
                           out_axes={0: "batch"})(v)
    closed = jax.make_jaxpr(outer)(x)
    (out,) = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, x)
    return [(out, x + 1)]


PDOT_SPECS = [  # (named contraction pairs, positional contraction pairs, named batch pairs, positional batch pairs)
    (((0, 0),), (), (), ()),
    (((0, 2),), ((1, 1),), (), ()),
    (((1, 1),), (), ((0, 2),), ()),
    (((2, 0),), ((1, 1),), ((0, 2),), ((3, 3),)),
    ((), ((1, 1),), ((0, 0), (2, 2)), ()),
]


def pdot_general(lhs, rhs, named_c, pos_c, named_b, pos_b, resources):
    names = iter("ijkl")
    c_names = [next(names) for _ in named_c]
    b_names = [next(names) for _ in named_b]
    lhs_mapped = [p[0] for p in (*named_c, *named_b)]
    rhs_mapped = [p[1] for p in (*named_c, *named_b)]

    def after(i, mapped):
        return i - sum(1 for j in mapped if j < i)

    pos_contract = (tuple(after(a, lhs_mapped) for a, _ in pos_c), tuple(after(b, rhs_mapped) for _, b in pos_c))
    pos_batch = (tuple(after(a, lhs_mapped) for a, _ in pos_b), tuple(after(b, rhs_mapped) for _, b in pos_b))
    in_axes = (dict(zip(lhs_mapped, c_names + b_names)), dict(zip(rhs_mapped, c_names + b_names)))
    f = xmap(lambda a, b: nlax.pdot(a, b, tuple(c_names), pos_contract=pos_contract, pos_batch=pos_batch),
             in_axes=in_axes, out_axes=[*b_names, ...], axis_resources=resources)
    got = f(lhs, rhs)
    dims = ((tuple(a for a, _ in (*named_c, *pos_c)), tuple(b for _, b in (*named_c, *pos_c))),
            (tuple(a for a, _ in (*named_b, *pos_b)), tuple(b for _, b in (*named_b, *pos_b))))
    return got, lax.dot_general(lhs, rhs, dims)


def case_pdot_systematic():
    """Named and positional contraction and batch dims at several positions, vectorised and with the
    first named axis on a 2-device mesh axis."""
    lhs = RNG.randn(2, 4, 2, 1).astype(np.float32)
    rhs = RNG.randn(2, 4, 2, 1).astype(np.float32)
    pairs = []
    with HIGH:
        for spec in PDOT_SPECS:
            pairs.append(pdot_general(lhs, rhs, *spec, {}))
            with grid(2):
                pairs.append(pdot_general(lhs, rhs, *spec, {"i": "x"}))
    return pairs


def case_pdot_vjp_systematic():
    """The pullback of pdot inside the body against dot_general's, for each spec of case_pdot_systematic."""
    lhs = RNG.randn(2, 4, 2, 1).astype(np.float32)
    rhs = RNG.randn(2, 4, 2, 1).astype(np.float32)
    pairs = []
    with HIGH:
        for named_c, pos_c, named_b, pos_b in PDOT_SPECS:
            names = iter("ijkl")
            c_names = [next(names) for _ in named_c]
            b_names = [next(names) for _ in named_b]
            lhs_mapped = [p[0] for p in (*named_c, *named_b)]
            rhs_mapped = [p[1] for p in (*named_c, *named_b)]

            def after(i, mapped):
                return i - sum(1 for j in mapped if j < i)

            pc = (tuple(after(a, lhs_mapped) for a, _ in pos_c), tuple(after(b, rhs_mapped) for _, b in pos_c))
            pb = (tuple(after(a, lhs_mapped) for a, _ in pos_b), tuple(after(b, rhs_mapped) for _, b in pos_b))
            dims = ((tuple(a for a, _ in (*named_c, *pos_c)), tuple(b for _, b in (*named_c, *pos_c))),
                    (tuple(a for a, _ in (*named_b, *pos_b)), tuple(b for _, b in (*named_b, *pos_b))))
            out, ref = jax.vjp(lambda a, b, dims=dims: lax.dot_general(a, b, dims), lhs, rhs)
            g = RNG.randn(*out.shape).astype(np.float32)
            want_l, want_r = ref(g)

            def pullback(a, b, g, c_names=c_names, pc=pc, pb=pb):
                _, vjp = jax.vjp(lambda u, v: nlax.pdot(u, v, tuple(c_names), pos_contract=pc, pos_batch=pb), a, b)
                return vjp(g)

            lhs_axes = dict(zip(lhs_mapped, c_names + b_names))
            rhs_axes = dict(zip(rhs_mapped, c_names + b_names))
            got_l, got_r = xmap(pullback, in_axes=(lhs_axes, rhs_axes, [*b_names, ...]),
                                out_axes=(lhs_axes, rhs_axes))(lhs, rhs, g)
            pairs += [(got_l, want_l), (got_r, want_r)]
    return pairs


def case_pdot_forward_mode_and_hessian():
    """pdot is bilinear: JVPs and Hessians inside and outside the body agree with positional einsum."""
    x = RNG.randn(2, 3).astype(np.float32)
    y = RNG.randn(2, 3).astype(np.float32)
    with HIGH:
        f = xmap(lambda a, b: nlax.pdot(a, b, "i"), in_axes=({0: "i"}, {0: "i"}), out_axes={})
        inside = xmap(lambda u, v: jax.jvp(lambda p: nlax.pdot(p, v, "i"), (u,), (u,))[1],
                      in_axes=({0: "i"}, {0: "i"}), out_axes={})(x, y)
        outer = jnp.einsum("ia,ib->ab", x, y)
        hess = jax.hessian(lambda a: (f(a, y) ** 2).sum())(x)
        want_hess = jax.hessian(lambda a: (jnp.einsum("ia,ib->ab", a, y) ** 2).sum())(x)
        return [(jax.jvp(f, (x, y), (x, y))[1], 2 * outer), (inside, outer), (hess, want_hess)]
