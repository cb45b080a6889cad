"""xmap programs: collectives vectorised and on meshes of 1, 2 and 8 devices, loop resources, and the
named ops (named einsum, pdot, one_hot, logsumexp). Each `case_*` returns (got, want) pairs; `want` is
written with positional jax.numpy / numpy."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh

import namedcheck.lax as nlax
import namedcheck.nn as nnn
import namedcheck.numpy as nnp
from namedcheck import SerialLoop, serial_loop, xmap

X = jnp.arange(32.0).reshape(8, 4)


def reductions(resources):
    """psum / pmax / pmin / pmean and axis_index over 'i' (8 instances of rows of X)."""
    def body(row):
        return (lax.psum(row, "i"), lax.pmax(row, "i"), lax.pmin(row, "i"), lax.pmean(row, "i"),
                row * lax.axis_index("i"))

    s, hi, lo, avg, scaled = xmap(body, in_axes=["i", ...], out_axes=([...], [...], [...], [...], ["i", ...]),
                                  axis_resources=resources)(X)
    return [(s, X.sum(0)), (hi, X.max(0)), (lo, X.min(0)), (avg, X.mean(0)),
            (scaled, X * jnp.arange(8.0)[:, None])]


def permutations(resources):
    """ppermute with a full and a partial permutation, pshuffle."""
    shift = [(k, (k + 1) % 8) for k in range(8)]
    order = [3, 1, 4, 0, 5, 7, 2, 6]

    def body(row):
        return (lax.ppermute(row, "i", shift), lax.ppermute(row, "i", [(0, 2), (5, 1)]),
                lax.pshuffle(row, "i", order))

    rolled, partial, shuffled = xmap(body, in_axes=["i", ...], out_axes=["i", ...], axis_resources=resources)(X)
    want_partial = jnp.zeros_like(X).at[2].set(X[0]).at[1].set(X[5])
    return [(rolled, jnp.roll(X, 1, axis=0)), (partial, want_partial), (shuffled, X[jnp.array(order)])]


def gathers(resources):
    """all_gather (stacked at axis 0 and 1, tiled) and psum_scatter (plain and tiled)."""
    def body(row):
        wide = jnp.concatenate([row, row])  # (8,): one entry per instance
        return (lax.all_gather(row, "i"), lax.all_gather(row, "i", axis=1), lax.all_gather(row, "i", tiled=True),
                lax.psum_scatter(wide, "i"), lax.psum_scatter(jnp.tile(wide, 2), "i", tiled=True))

    stacked, stacked1, tiled, scattered, scattered_tiled = xmap(
        body, in_axes=["i", ...], out_axes=[...] * 0 + [[...], [...], [...], ["i", ...], ["i", ...]],
        axis_resources=resources)(X)
    wide_sum = jnp.concatenate([X, X], axis=1).sum(0)  # (8,)
    return [(stacked, X), (stacked1, X.T), (tiled, X.reshape(-1)), (scattered, wide_sum),
            (scattered_tiled, jnp.tile(wide_sum, 2).reshape(8, 2))]


def on_mesh(n, fn):
    mesh = Mesh(np.array(jax.devices()[:n]), ("r",))
    with jax.set_mesh(mesh):
        return fn({"i": "r"})


def case_reductions_vectorised():
    return reductions(None)


def case_reductions_mesh_1():
    return on_mesh(1, reductions)


def case_reductions_mesh_2():
    return on_mesh(2, reductions)


def case_reductions_mesh_8():
    return on_mesh(8, reductions)


def case_permutations_vectorised():
    return permutations(None)


def case_permutations_mesh_2():
    return on_mesh(2, permutations)


def case_permutations_mesh_8():
    return on_mesh(8, permutations)


def case_gathers_vectorised():
    return gathers(None)


def case_gathers_mesh_1():
    return on_mesh(1, gathers)


def case_gathers_mesh_8():
    return on_mesh(8, gathers)


def case_psum_scatter_axis_sizes_only():
    v = jnp.arange(4.0)
    got = xmap(lambda a: lax.psum_scatter(a, "k", tiled=True), in_axes={}, out_axes=["k", ...],
               axis_sizes={"k": 2})(v)
    return [(got, (2 * v).reshape(2, 2))]


def case_two_dimensional_mesh():
    x = jnp.arange(64.0).reshape(4, 2, 8)
    mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("a", "b"))
    with jax.set_mesh(mesh):
        got = xmap(lambda v: lax.psum(v, "j") * 2, in_axes=["i", "j", ...], out_axes=["i", ...],
                   axis_resources={"i": "a", "j": "b"})(x)
    return [(got, x.sum(1) * 2)]


def case_axis_over_two_mesh_axes():
    x = jnp.arange(32.0).reshape(8, 4)
    mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("a", "b"))
    with jax.set_mesh(mesh):
        got = xmap(lambda v: v - lax.pmean(v, "i"), in_axes=["i", ...], out_axes=["i", ...],
                   axis_resources={"i": ("a", "b")})(x)
    return [(got, x - x.mean(0))]


def case_serial_loop():
    x = jnp.arange(32.0).reshape(8, 4)
    got = xmap(lambda v: jnp.tanh(v) * 2, in_axes=["i", ...], out_axes=["i", ...],
               axis_resources={"i": SerialLoop(4)})(x)
    return [(got, jnp.tanh(x) * 2)]


def case_serial_loop_two_axes():
    x = jnp.arange(32.0).reshape(8, 4)
    y = jnp.arange(6.0)
    got = xmap(lambda v, w: v.sum() * w, in_axes=(["i", ...], ["j", ...]), out_axes=["i", "j", ...],
               axis_resources={"i": SerialLoop(2), "j": SerialLoop(3)})(x, y)
    return [(got, x.sum(1)[:, None] * y[None, :])]


def case_named_serial_loop_with_mesh():
    x = jnp.arange(32.0).reshape(8, 4)
    mesh = Mesh(np.array(jax.devices()[:2]), ("r",))
    with jax.set_mesh(mesh), serial_loop("l", 2):
        got = xmap(lambda v: v * 3, in_axes=["i", ...], out_axes=["i", ...], axis_resources={"i": ("r", "l")})(x)
    return [(got, x * 3)]


def case_named_einsum():
    x = jnp.arange(24.0).reshape(4, 2, 3)
    w = jnp.arange(15.0).reshape(3, 5)
    got = xmap(lambda a, b: nnp.einsum("n{k},m{k}->nm", a, b), in_axes=({0: "b", 2: "k"}, {0: "k"}),
               out_axes=["b", ...])(x, w)
    return [(got, jnp.einsum("bnk,km->bnm", x, w))]


def case_pdot():
    x = jnp.arange(12.0).reshape(4, 3)
    y = jnp.arange(8.0).reshape(4, 2)
    got = xmap(lambda a, b: nlax.pdot(a, b, "k"), in_axes=(["k", ...], ["k", ...]), out_axes=[...])(x, y)
    return [(got, jnp.einsum("ka,kb->ab", x, y))]


def case_one_hot_named():
    labels = jnp.array([2, 0, 1, 2])
    got = xmap(lambda v: nnn.one_hot(v, 3, axis="c"), in_axes=["b"], out_axes=["b", "c"], axis_sizes={"c": 3})(labels)
    return [(got, jax.nn.one_hot(labels, 3))]


def case_logsumexp_named():
    x = jnp.arange(12.0).reshape(4, 3) / 4
    got = xmap(lambda v: nnn.logsumexp(v, axis="i"), in_axes=["i", ...], out_axes=[...])(x)
    both = xmap(lambda v: nnn.logsumexp(v, axis=("i", 0)), in_axes=["i", ...], out_axes=[...])(x)
    return [(got, jax.nn.logsumexp(x, axis=0)), (both, jax.nn.logsumexp(x))]


def case_mlp_loss_on_mesh():
    w1 = jnp.arange(12.0).reshape(3, 4) / 10
    w2 = jnp.arange(8.0).reshape(4, 2) / 10
    images = jnp.arange(24.0).reshape(8, 3) / 24
    labels = jnp.arange(8) % 2

    def loss(w1, w2, image, label):
        hidden = jnp.tanh(image @ w1)
        logits = hidden @ w2
        logp = logits - jax.nn.logsumexp(logits)
        return -lax.pmean(logp[label], "batch")

    want_logits = jnp.tanh(images @ w1) @ w2
    want = -jnp.mean(jax.nn.log_softmax(want_logits)[jnp.arange(8), labels])
    mesh = Mesh(np.array(jax.devices()[:2]), ("r",))
    with jax.set_mesh(mesh):
        got = xmap(loss, in_axes=({}, {}, ["batch", ...], ["batch"]), out_axes=[...],
                   axis_resources={"batch": "r"})(w1, w2, images, labels)
    return [(got, want)]
