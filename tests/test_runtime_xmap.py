"""namedcheck.xmap against hand-written positional JAX: the programs of the xmap tutorial and API
reference (seeds 000 and 001), resource layouts, composition with jit / grad / vmap, nesting."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.scipy.linalg import expm_frechet
from jax.sharding import Mesh

import namedcheck.lax as nlax
import namedcheck.nn as nnn
import namedcheck.numpy as nnp
from namedcheck import xmap


def mesh(shape: tuple[int, ...], names: tuple[str, ...]) -> Mesh:
    n = int(np.prod(shape))
    return Mesh(np.array(jax.devices()[:n]).reshape(shape), names)


# ---- the tutorial MLP loss (seed 000), its three resource layouts --------------------------------


def named_predict(w1, w2, image):
    hidden = jax.nn.relu(nlax.pdot(image, w1, "inputs"))
    logits = nlax.pdot(hidden, w2, "hidden")
    return logits - nnn.logsumexp(logits, "classes")


def named_loss(w1, w2, images, labels):
    predictions = named_predict(w1, w2, images)
    num_classes = lax.psum(1, "classes")
    targets = nnn.one_hot(labels, num_classes, axis="classes")
    losses = lax.psum(targets * predictions, "classes")
    return -lax.pmean(losses, "batch")


def positional_loss(w1, w2, images, labels):
    hiddens = jax.nn.relu(jnp.dot(images, w1))
    logits = jnp.dot(hiddens, w2)
    predictions = logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)
    targets = jax.nn.one_hot(labels, predictions.shape[-1])
    return -jnp.mean(jnp.sum(targets * predictions, axis=1), axis=0)


MLP_IN_AXES = [["inputs", "hidden", ...], ["hidden", "classes", ...], ["batch", "inputs", ...], ["batch", ...]]


@pytest.fixture(scope="module")
def mlp_args():
    k1, k2, k3, k4 = jax.random.split(jax.random.PRNGKey(0), 4)
    return (
        jax.random.normal(k1, (64, 32)) * 0.1,
        jax.random.normal(k2, (32, 10)) * 0.1,
        jax.random.normal(k3, (16, 64)),
        jax.random.randint(k4, (16,), 0, 10),
    )


@pytest.mark.parametrize(
    "resources,shape,names",
    [
        (None, None, None),
        ({"batch": "x"}, (8,), ("x",)),
        ({"hidden": "x"}, (8,), ("x",)),
        ({"batch": "x", "hidden": "y"}, (4, 2), ("x", "y")),
    ],
)
def test_tutorial_loss_under_each_layout(mlp_args, resources, shape, names):
    f = xmap(named_loss, in_axes=MLP_IN_AXES, out_axes=[...], axis_resources=resources)
    if shape is None:
        got = f(*mlp_args)
    else:
        with jax.set_mesh(mesh(shape, names)):
            got = f(*mlp_args)
    np.testing.assert_allclose(got, positional_loss(*mlp_args), rtol=1e-5, atol=1e-6)


def test_legacy_mesh_context_manager(mlp_args):
    f = xmap(named_loss, in_axes=MLP_IN_AXES, out_axes=[...], axis_resources={"batch": "x"})
    with pytest.warns(DeprecationWarning), mesh((8,), ("x",)):
        got = f(*mlp_args)
    np.testing.assert_allclose(got, positional_loss(*mlp_args), rtol=1e-5, atol=1e-6)


def test_grad_of_xmapped_loss_equals_positional_grad(mlp_args):
    f = xmap(named_loss, in_axes=MLP_IN_AXES, out_axes=[...])
    g_named = jax.grad(f, argnums=(0, 1))(*mlp_args)
    g_pos = jax.grad(positional_loss, argnums=(0, 1))(*mlp_args)
    for a, b in zip(g_named, g_pos):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_xmap_inside_jit_and_vmap(mlp_args):
    f = xmap(named_loss, in_axes=MLP_IN_AXES, out_axes=[...])
    np.testing.assert_allclose(jax.jit(f)(*mlp_args), positional_loss(*mlp_args), rtol=1e-5)
    w1s = jnp.stack([mlp_args[0], 2 * mlp_args[0]])
    got = jax.vmap(f, in_axes=(0, None, None, None))(w1s, *mlp_args[1:])
    want = jax.vmap(positional_loss, in_axes=(0, None, None, None))(w1s, *mlp_args[1:])
    np.testing.assert_allclose(got, want, rtol=1e-5)


# ---- axis placement ----------------------------------------------------------------------------


def test_out_axes_place_named_axis():
    x = jnp.arange(100.0).reshape(20, 5)
    y = xmap(lambda v: v, in_axes={0: "batch"}, out_axes={1: "batch"})(x)
    np.testing.assert_array_equal(y, x.T)


def test_named_broadcasting_shapes_and_values():
    def body(x, y, z):
        return (x + y) + (y + z)

    x, y, z = jnp.arange(4.0).reshape(2, 2, 1, 1), jnp.ones((3, 1, 3, 1)), jnp.ones((5, 1, 1, 5))
    k = xmap(body, in_axes=(["a", ...], ["b", ...], ["c", ...]), out_axes=["a", "b", "c", ...])(x, y, z)
    want = (x[:, None, None] + y[None, :, None]) + (y[None, :, None] + z[None, None, :])
    assert k.shape == (2, 3, 5, 2, 3, 5)
    np.testing.assert_allclose(k, want)


def test_named_reductions_mixed_axes():
    def body(x, y):
        return nnp.sum(x + y, axis=(0, "x", "y"))

    x, y = jnp.arange(2.0), jnp.arange(20.0).reshape(5, 4)
    got = xmap(body, in_axes=({0: "x"}, {1: "y"}), out_axes={})(x, y)
    np.testing.assert_allclose(got, (x[:, None, None] + y[None]).sum())


@pytest.mark.parametrize(
    "name,positional",
    [
        ("max", lambda v: v.max(axis=(0, 1))),
        ("min", lambda v: v.min(axis=(0, 1))),
        ("mean", lambda v: v.mean(axis=(0, 1))),
        ("var", lambda v: v.var(axis=(0, 1))),
        ("std", lambda v: v.std(axis=(0, 1))),
        ("logsumexp", lambda v: jax.nn.logsumexp(v, axis=(0, 1))),
    ],
)
def test_named_reduction_family(name, positional):
    x = jax.random.normal(jax.random.PRNGKey(1), (6, 4, 3))
    got = xmap(lambda v: getattr(nnp, name)(v, axis=("r", 0)), in_axes=["r", ...], out_axes=[...])(x)
    np.testing.assert_allclose(got, positional(x), rtol=1e-5, atol=1e-6)


def test_named_einsum_matches_positional():
    x, y = jax.random.normal(jax.random.PRNGKey(2), (20, 5, 7)), jax.random.normal(jax.random.PRNGKey(3), (7, 11))
    zx = xmap(
        lambda a, b: nnp.einsum("n{b,k},{k,m}->n{b,m}", a, b),
        in_axes=[{0: "b", 2: "k"}, ["k", "m", ...]],
        out_axes={0: "b", 2: "m"},
    )(x, y)
    np.testing.assert_allclose(zx, jnp.einsum("bnk,km->bnm", x, y), rtol=1e-5, atol=1e-5)


def test_regression_loss_of_api_reference():
    def regression_loss(x, y, w, b):
        y_pred = nnp.einsum("{in_features},{in_features}->{}", x, w) + b
        error = nnp.sum((y - y_pred) ** 2, axis="out_features")
        return nnp.mean(error, axis="batch")

    k = jax.random.split(jax.random.PRNGKey(4), 4)
    x, y = jax.random.normal(k[0], (8, 3)), jax.random.normal(k[1], (8, 2))
    w, b = jax.random.normal(k[2], (3, 2)), jax.random.normal(k[3], (2,))
    got = xmap(
        regression_loss,
        in_axes=(
            ["batch", "in_features", ...],
            ["batch", "out_features", ...],
            ["in_features", "out_features", ...],
            ["out_features", ...],
        ),
        out_axes={},
    )(x, y, w, b)
    want = jnp.mean(jnp.sum((y - (x @ w + b)) ** 2, axis=1))
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_pshuffle_reverses():
    x = jnp.arange(8)
    got = xmap(lambda v: lax.pshuffle(v, "i", list(reversed(range(8)))), in_axes=["i", ...], out_axes=["i", ...])(x)
    np.testing.assert_array_equal(got, x[::-1])


@pytest.mark.parametrize("resources", [None, {"left": "x", "right": "y"}])
def test_distributed_matmul(resources):
    x = jnp.arange(10.0).reshape((2, 5))
    f = xmap(jnp.vdot, in_axes=({0: "left"}, {1: "right"}), out_axes=["left", "right", ...], axis_resources=resources)
    if resources:
        with jax.set_mesh(mesh((2, 2), ("x", "y"))):
            got = f(x, x.T)
        assert got.sharding.spec == jax.sharding.PartitionSpec("x", "y")
    else:
        got = f(x, x.T)
    np.testing.assert_allclose(got, x @ x.T)


def test_sum_two_args_shares_one_resource():
    def sum_two_args(x, y):
        return nnp.sum(x, axis="a") + nnp.sum(y, axis="b")

    with jax.set_mesh(mesh((4,), ("x",))):
        v = xmap(sum_two_args, in_axes=(["a", ...], ["b", ...]), out_axes=[...], axis_resources={"a": "x", "b": "x"})(
            jnp.ones(4), jnp.ones(12)
        )
    assert float(v) == 16.0


@pytest.mark.parametrize("pairs", [False, True])
def test_expm_frechet_batching(pairs):
    f = partial(expm_frechet, compute_expm=False)
    a = jax.random.normal(jax.random.PRNGKey(5), (7 if pairs else 5, 3, 3)) * 0.3
    e = jax.random.normal(jax.random.PRNGKey(6), (5, 3, 3)) * 0.3
    if pairs:
        got = xmap(f, in_axes=(["ba", ...], ["be", ...]), out_axes=["ba", "be", ...])(a, e)
        for i in range(7):
            for j in range(5):
                np.testing.assert_allclose(got[i, j], f(a[i], e[j]), rtol=1e-4, atol=1e-5)
    else:
        got = xmap(f, in_axes=(["b", ...], ["b", ...]), out_axes=["b", ...])(a, e)
        for i in range(5):
            np.testing.assert_allclose(got[i], f(a[i], e[i]), rtol=1e-4, atol=1e-5)


def test_axis_sizes_defines_an_axis_no_input_has():
    got = xmap(lambda x: x + lax.axis_index("k"), in_axes=[...], out_axes=["k", ...], axis_sizes={"k": 3})(jnp.zeros(2))
    np.testing.assert_array_equal(got, jnp.array([[0, 0], [1, 1], [2, 2]]))


def test_pytree_prefix_and_dict_arguments():
    params = {"w": jnp.ones((4, 3)), "b": jnp.arange(4.0)}
    got = xmap(lambda p: p["w"].sum() + p["b"], in_axes=(["o", ...],), out_axes=["o", ...])(params)
    np.testing.assert_allclose(got, params["w"].sum(axis=1) + params["b"])


def test_multiple_results_and_dict_out_axes():
    x = jnp.arange(24.0).reshape(2, 3, 4)
    a, b = xmap(
        lambda v: (v, lax.psum(v.sum(), "q")), in_axes={0: "p", 2: "q"}, out_axes=({2: "p", 0: "q"}, ["p", ...])
    )(x)
    np.testing.assert_allclose(a, jnp.transpose(x, (2, 1, 0)))
    np.testing.assert_allclose(b, x.sum(axis=(1, 2)))


def test_nested_xmap():
    x = jnp.arange(24.0).reshape(2, 3, 4)

    def outer(v):
        return xmap(lambda w: lax.psum(w, "i") * 1.0, in_axes=["j", ...], out_axes=["j", ...])(v)

    got = xmap(outer, in_axes=["i", ...], out_axes=["i", ...])(x)
    np.testing.assert_allclose(got, jnp.broadcast_to(x.sum(0), x.shape))


def test_partial_decorator_form_and_donation():
    @partial(xmap, in_axes=["b", ...], out_axes=["b", ...], donate_argnums=0)
    def double(v):
        return v * 2

    np.testing.assert_allclose(double(jnp.arange(6.0).reshape(3, 2)), jnp.arange(6.0).reshape(3, 2) * 2)


def test_compiled_once_per_signature():
    traces = []

    def body(v):
        traces.append(1)
        return v + 1

    f = xmap(body, in_axes=["b", ...], out_axes=["b", ...])
    for _ in range(3):
        f(jnp.ones((4, 2)))
    n = len(traces)
    f(jnp.ones((4, 2)))
    assert len(traces) == n  # no retrace for a seen signature
    f(jnp.ones((5, 2)))
    assert len(traces) > n


def test_explicit_axes_mesh_from_make_mesh():
    f = xmap(
        lambda a, b: nnp.sum(a * b, "k"),
        in_axes=(["b", "k", ...], ["k", ...]),
        out_axes=["b", ...],
        axis_resources={"b": "x", "k": "y"},
    )
    x, y = jax.random.normal(jax.random.PRNGKey(7), (8, 4, 3)), jax.random.normal(jax.random.PRNGKey(8), (4, 3))
    with jax.set_mesh(jax.make_mesh((4, 2), ("x", "y"))):
        got = f(x, y)
        assert got.sharding.spec == jax.sharding.PartitionSpec("x", None)
        got = np.asarray(got)
    np.testing.assert_allclose(got, jnp.einsum("bkd,kd->bd", x, y), rtol=1e-5, atol=1e-5)


def test_pdot_positional_contract_and_batch_dims():
    x = jax.random.normal(jax.random.PRNGKey(9), (4, 2, 3, 5))  # named k, then (b, i, c)
    y = jax.random.normal(jax.random.PRNGKey(10), (4, 2, 5, 6))  # named k, then (b, c, j)
    got = xmap(
        lambda a, b: nlax.pdot(a, b, "k", pos_contract=((2,), (1,)), pos_batch=((0,), (0,))),
        in_axes=(["k", ...], ["k", ...]),
        out_axes=[...],
    )(x, y)
    np.testing.assert_allclose(got, jnp.einsum("kbic,kbcj->bij", x, y), rtol=1e-5, atol=1e-5)


def test_pvary_marks_a_value_varying_inside_shard_map():
    from jax.sharding import PartitionSpec as P

    m = mesh((4,), ("x",))

    def body(a):
        v = nlax.pvary(jnp.ones(2), "x")
        assert "x" in jax.typeof(v).mat.varying
        return a + v

    out = jax.shard_map(body, mesh=m, in_specs=P("x"), out_specs=P("x"))(jnp.zeros(8))
    np.testing.assert_allclose(out, jnp.ones(8))


def test_one_axis_over_several_resources(mlp_args):
    f = xmap(named_loss, in_axes=MLP_IN_AXES, out_axes=[...], axis_resources={"batch": ("x", "y")})
    with jax.set_mesh(mesh((4, 2), ("x", "y"))):
        got = f(*mlp_args)
    np.testing.assert_allclose(got, positional_loss(*mlp_args), rtol=1e-5, atol=1e-6)
    g = xmap(lambda v: v * 2, in_axes=["b", ...], out_axes=["b", ...], axis_resources={"b": ("x", "y")})
    with jax.set_mesh(mesh((4, 2), ("x", "y"))):
        out = g(jnp.arange(16.0).reshape(8, 2))
    assert out.sharding.spec == jax.sharding.PartitionSpec(("x", "y"))
    np.testing.assert_allclose(out, jnp.arange(16.0).reshape(8, 2) * 2)


# ---- linear in the leaves of a pytree and in the names of a mapping ------------------------------


def test_a_two_thousand_leaf_tree_computes_its_paths_once_per_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    from jax import tree_util

    calls = []
    original = tree_util.tree_flatten_with_path

    def counting(*a, **k):
        calls.append(1)
        return original(*a, **k)

    monkeypatch.setattr(tree_util, "tree_flatten_with_path", counting)
    big = {f"k{i}": jnp.full((2,), float(i)) for i in range(2000)}
    out = xmap(lambda t: t, in_axes=["i", ...], out_axes=["i", ...])(big)
    assert len(out) == 2000 and float(out["k1999"][1]) == 1999.0
    assert len(calls) <= 2  # the arguments' tree and the results' tree: once each, not once per leaf


def test_a_leaf_is_named_by_its_path_in_a_message() -> None:
    from namedcheck.errors import XmapError

    tree = {f"k{i}": jnp.ones((2,)) for i in range(50)}
    tree["k7"] = jnp.ones((3,))
    with pytest.raises(XmapError, match=r"Axis 'i' has size 3 in argument 0\['k7'\] but 2 in argument 0\['k0'\]"):
        xmap(lambda x: x, in_axes=["i", ...], out_axes=["i", ...])(tree)


def test_a_huge_in_axes_mapping_gives_a_short_message_quickly() -> None:
    from namedcheck.errors import XmapError

    with pytest.raises(XmapError) as caught:
        xmap(lambda x: x, in_axes={i: f"a{i}" for i in range(100_000)}, out_axes=["i", ...])
    message = str(caught.value)
    assert "neither in_axes nor axis_sizes defines" in message and "and 99980 more" in message
    assert len(message) < 1000
