"""xmap programs for the features jax 0.4.30's xmap tutorial (docs/notebooks/xmap_tutorial.md) shows: a
fully named MLP loss under four schedules, moving a named axis, per-pair and all-pairs batching, named
broadcasting and reductions, named einsum, pshuffle, a distributed vdot, and two names sharing a mesh
axis in separate values. Written for this project; each `case_*` returns (got, want) pairs, `want` in
positional jax.numpy."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh

import namedcheck.lax as nlax
import namedcheck.nn as nnn
import namedcheck.numpy as nnp
from namedcheck import xmap

RNG = np.random.RandomState(3)


def grid(*shape, names=("x", "y")):
    n = int(np.prod(shape))
    return Mesh(np.array(jax.devices()[:n]).reshape(shape), names[:len(shape)])


def named_loss(w1, w2, images, labels):
    hidden = jax.nn.relu(nlax.pdot(images, w1, "inputs"))
    logits = nlax.pdot(hidden, w2, "hidden")
    logp = logits - nnn.logsumexp(logits, "classes")
    targets = nnn.one_hot(labels, lax.psum(1, "classes"), axis="classes")
    return -lax.pmean(lax.psum(targets * logp, "classes"), "batch")


def mlp_schedules():
    w1 = RNG.randn(12, 8).astype(np.float32) / 4
    w2 = RNG.randn(8, 5).astype(np.float32) / 4
    images = RNG.randn(16, 12).astype(np.float32)
    labels = np.arange(16) % 5
    logits = jax.nn.relu(images @ w1) @ w2
    want = -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(16), labels])
    in_axes = [["inputs", "hidden", ...], ["hidden", "classes", ...], ["batch", "inputs", ...], ["batch", ...]]
    pairs = []
    with jax.default_matmul_precision("float32"):
        pairs.append((xmap(named_loss, in_axes=in_axes, out_axes=[...])(w1, w2, images, labels), want))
        for shape, resources in (((8,), {"batch": "x"}), ((8,), {"hidden": "x"}),
                                 ((4, 2), {"batch": "x", "hidden": "y"})):
            with grid(*shape):
                got = xmap(named_loss, in_axes=in_axes, out_axes=[...], axis_resources=resources)(
                    w1, w2, images, labels)
            pairs.append((got, want))
    return pairs


def case_fully_named_mlp_loss_four_schedules():
    return mlp_schedules()


def case_named_axis_moved_to_the_end():
    x = jnp.arange(100.0).reshape(20, 5)
    return [(xmap(lambda v: v, in_axes={0: "batch"}, out_axes={1: "batch"})(x), x.T)]


def case_per_pair_and_all_pairs():
    a = RNG.randn(7, 3, 3).astype(np.float32)
    e = RNG.randn(5, 3, 3).astype(np.float32)

    def f(m, n):
        return jnp.tanh(m @ n) - n.T

    with jax.default_matmul_precision("float32"):
        pairwise = xmap(f, in_axes=(["b", ...], ["b", ...]), out_axes=["b", ...])(a[:5], e)
        all_pairs = xmap(f, in_axes=(["ba", ...], ["be", ...]), out_axes=["ba", "be", ...])(a, e)
        want_pairs = jax.vmap(f)(a[:5], e)
        want_all = jax.vmap(lambda m: jax.vmap(lambda n: f(m, n))(e))(a)
    return [(pairwise, want_pairs), (all_pairs, want_all)]


def case_broadcasting_by_name():
    x = jnp.arange(4.0).reshape(2, 2, 1, 1)
    y = jnp.arange(9.0).reshape(3, 1, 3, 1)
    z = jnp.arange(25.0).reshape(5, 1, 1, 5)

    def combine(a, b, c):
        return (a + b) + (b + c)

    got = xmap(combine, in_axes=(["a", ...], ["b", ...], ["c", ...]), out_axes=["a", "b", "c", ...])(x, y, z)
    want = (x[:, None, None] + y[None, :, None]) + (y[None, :, None] + z[None, None, :])
    return [(got, want)]


def case_broadcast_then_reduce_positional_and_named():
    x = jnp.arange(2.0)
    y = jnp.arange(20.0).reshape(5, 4)
    got = xmap(lambda a, b: nnp.sum(a + b, axis=(0, "x", "y")), in_axes=({0: "x"}, {1: "y"}), out_axes={})(x, y)
    stepwise = xmap(lambda a, b: nnp.sum(nnp.sum(jnp.sum(a + b, 0), "x"), "y"), in_axes=({0: "x"}, {1: "y"}),
                    out_axes={})(x, y)
    want = (x[:, None, None] + y[None, :, :]).sum()
    return [(got, want), (stepwise, want)]


def case_named_batch_matrix_times_single_matrix():
    x = RNG.randn(20, 5, 7).astype(np.float32)
    y = RNG.randn(7, 11).astype(np.float32)
    with jax.default_matmul_precision("float32"):
        got = xmap(lambda a, b: nnp.einsum("n{b,k},{k,m}->n{b,m}", a, b), in_axes=[{0: "b", 2: "k"}, ["k", "m", ...]],
                   out_axes={0: "b", 2: "m"})(x, y)
        want = jnp.einsum("bnk,km->bnm", x, y)
    return [(got, want)]


def case_reversing_pshuffle():
    x = jnp.arange(8.0)
    got = xmap(lambda v: lax.pshuffle(v, "i", list(reversed(range(8)))), in_axes=["i", ...], out_axes=["i", ...])(x)
    return [(got, x[::-1])]


def case_local_and_distributed_vdot():
    x = RNG.randn(16, 16).astype(np.float32)
    with jax.default_matmul_precision("float32"):
        local = xmap(jnp.vdot, in_axes=({0: "left"}, {1: "right"}), out_axes=["left", "right", ...])(x, x)
        with grid(2, 4):
            distributed = xmap(jnp.vdot, in_axes=({0: "left"}, {1: "right"}), out_axes=["left", "right", ...],
                               axis_resources={"left": "x", "right": "y"})(x, x)
        want = x @ x
    return [(local, want), (distributed, want)]


def case_two_names_on_one_mesh_axis_in_separate_values():
    q = jnp.ones((4,))
    u = jnp.ones((12,))
    with grid(4):
        got = xmap(lambda a, b: nnp.sum(a, axis="a") + nnp.sum(b, axis="b"), in_axes=(["a", ...], ["b", ...]),
                   out_axes=[...], axis_resources={"a": "x", "b": "x"})(q, u)
    return [(got, 16.0)]
