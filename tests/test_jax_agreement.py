"""Differential test: the engine's inferred types against real JAX (jax.eval_shape).

For each snippet, the analyzer's type for `out` must equal JAX's shape and dtype; for each snippet
the analyzer rejects, JAX must raise too. Agreement with the real thing is the measure.
"""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from namedcheck.analyzer.check import analyse_for_test  # noqa: E402
from namedcheck.engine import symbolic  # noqa: E402
from namedcheck.engine.values import Seq  # noqa: E402

DT = {"f32": jnp.float32, "i32": jnp.int32, "bool_": jnp.bool_}

# (expression over a, b, c; shapes/dtypes of a, b, c)
AGREE = [
    ("a + b", [("f32", (4, 1)), ("f32", (3,))]),
    ("a * 2", [("i32", (3,))]),
    ("a * 2.0", [("i32", (3,))]),
    ("a / b", [("i32", (3,)), ("i32", (3,))]),
    ("a // b", [("i32", (3,)), ("i32", (3,))]),
    ("a < b", [("f32", (2, 3)), ("f32", (3,))]),
    ("jnp.where(a > 0, a, b)", [("f32", (2, 3)), ("f32", (1, 3))]),
    ("jnp.dot(a, b)", [("f32", (3, 4)), ("f32", (4,))]),
    ("jnp.dot(a, b)", [("f32", (4,)), ("f32", (2, 4, 5))]),
    ("jnp.dot(a, b)", [("f32", (2, 3, 4)), ("f32", (5, 4, 6))]),
    ("a @ b", [("f32", (4,)), ("f32", (2, 4, 5))]),
    ("a @ b", [("f32", (7, 1, 3, 4)), ("f32", (6, 4, 5))]),
    ("jnp.matmul(a, b)", [("f32", (3, 4)), ("f32", (4,))]),
    ("jnp.tensordot(a, b)", [("f32", (2, 3, 4)), ("f32", (3, 4, 5))]),
    ("jnp.tensordot(a, b, axes=([0], [1]))", [("f32", (2, 3)), ("f32", (4, 2))]),
    ("jnp.outer(a, b)", [("f32", (2, 3)), ("f32", (4,))]),
    ("jnp.inner(a, b)", [("f32", (2, 3)), ("f32", (4, 3))]),
    ("jnp.einsum('bij,bjk->bik', a, b)", [("f32", (2, 3, 4)), ("f32", (2, 4, 5))]),
    ("jnp.einsum('ij,jk', a, b)", [("f32", (3, 4)), ("f32", (4, 5))]),
    ("jnp.einsum('...ij,jk->...ik', a, b)", [("f32", (6, 3, 4)), ("f32", (4, 5))]),
    ("jnp.einsum('ij,ij->j', a, b)", [("f32", (10, 3)), ("f32", (1, 3))]),
    ("a[:, jnp.newaxis]", [("f32", (3,))]),
    ("jnp.sum(a, axis=(0, 2), keepdims=True)", [("f32", (2, 3, 4))]),
    ("jnp.sum(a)", [("i32", (2, 3))]),
    ("jnp.sum(a > 0, axis=1)", [("f32", (2, 3))]),
    ("jnp.mean(a, axis=-1)", [("i32", (2, 3))]),
    ("jnp.max(a, axis=0)", [("i32", (2, 3))]),
    ("jnp.argmax(a, axis=1)", [("f32", (2, 3, 4))]),
    ("jnp.argmin(a)", [("f32", (2, 3))]),
    ("jnp.cumsum(a, axis=1)", [("i32", (2, 3))]),
    ("jnp.cumsum(a)", [("f32", (2, 3))]),
    ("a.cumsum(0)", [("bool_", (2, 3))]),
    ("jnp.any(a > 1, axis=0)", [("f32", (2, 3))]),
    ("jax.nn.logsumexp(a, axis=1, keepdims=True)", [("f32", (2, 3))]),
    ("jax.nn.softmax(a)", [("f32", (2, 3))]),
    ("jnp.abs(a)", [("i32", (2, 3))]),
    ("jnp.real(a * 1j)", [("f32", (2, 3))]),
    ("jnp.abs(a * 1j)", [("f32", (2, 3))]),
    ("(a * 1j).imag", [("f32", (2, 3))]),
    ("jax.nn.relu(a)", [("f32", (2, 3))]),
    ("jax.nn.gelu(a)", [("f32", (2, 3))]),
    ("jax.nn.one_hot(a, 5)", [("i32", (4,))]),
    ("jax.nn.one_hot(a, 5, axis=0)", [("i32", (4, 2))]),
    ("jnp.exp(a)", [("i32", (3,))]),
    ("jnp.sqrt(a)", [("f32", (3,))]),
    ("jnp.abs(a)", [("i32", (3,))]),
    ("a.reshape(3, -1)", [("f32", (6, 4))]),
    ("jnp.reshape(a, (2, 2, 6))", [("f32", (6, 4))]),
    ("a.T", [("f32", (6, 4, 2))]),
    ("jnp.transpose(a, (1, 2, 0))", [("f32", (6, 4, 2))]),
    ("jnp.swapaxes(a, 0, 2)", [("f32", (6, 4, 2))]),
    ("jnp.moveaxis(a, 0, -1)", [("f32", (6, 4, 2))]),
    ("jnp.moveaxis(a, (0, 1), (2, 0))", [("f32", (6, 4, 2))]),
    ("jnp.expand_dims(a, (0, 3))", [("f32", (6, 4))]),
    ("jnp.squeeze(a)", [("f32", (1, 4, 1))]),
    ("jnp.concatenate([a, b], axis=-1)", [("f32", (2, 3)), ("f32", (2, 5))]),
    ("jnp.concatenate([a, b])", [("f32", (2, 3)), ("i32", (4, 3))]),
    ("jnp.stack([a, b], axis=1)", [("f32", (2, 3)), ("f32", (2, 3))]),
    ("jnp.broadcast_to(a, (5, 2, 3))", [("f32", (1, 3))]),
    ("jnp.split(a, 3, axis=1)[2]", [("f32", (2, 6))]),
    ("jnp.split(a, (1, 4))[1]", [("f32", (6, 2))]),
    ("jnp.array_split(a, 4)[3]", [("f32", (6, 2))]),
    ("jnp.take_along_axis(a, b, axis=1)", [("f32", (4, 5)), ("i32", (4, 2))]),
    ("jnp.tril(a)", [("f32", (4, 4))]),
    ("jnp.tile(a, (2, 1, 3))", [("f32", (4, 5))]),
    ("jnp.tile(a, 2)", [("f32", (4, 5))]),
    ("jnp.repeat(a, 3, axis=1)", [("f32", (4, 5))]),
    ("jnp.repeat(a, 2)", [("f32", (4, 5))]),
    ("jnp.pad(a, 1)", [("f32", (4, 5))]),
    ("jnp.pad(a, ((0, 1), (2, 3)))", [("f32", (4, 5))]),
    ("jnp.pad(a, (1, 2))", [("f32", (4, 5))]),
    ("jnp.take(a, b, axis=1)", [("f32", (4, 5)), ("i32", (2, 3))]),
    ("jnp.take(a, b)", [("f32", (4, 5)), ("i32", (2, 3))]),
    ("jnp.diagonal(a)", [("f32", (4, 5, 6))]),
    ("jnp.trace(a)", [("i32", (4, 5, 6))]),
    ("jnp.argsort(a, axis=0)", [("f32", (4, 5))]),
    ("jnp.sort(a)", [("f32", (4, 5))]),
    ("jnp.sort(a, axis=None)", [("f32", (4, 5))]),
    ("jnp.flip(a, 1)", [("f32", (4, 5))]),
    ("jnp.roll(a, 2, axis=0)", [("f32", (4, 5))]),
    ("jnp.linalg.norm(a)", [("f32", (4, 5))]),
    ("jnp.linalg.norm(a, axis=-1, keepdims=True)", [("f32", (4, 5))]),
    ("a[1:, None, ::2]", [("f32", (6, 4))]),
    ("a[..., 0]", [("f32", (6, 4, 2))]),
    ("a[-1]", [("f32", (6, 4, 2))]),
    ("a[b]", [("f32", (6, 4)), ("i32", (2, 3))]),
    ("a[2:100]", [("f32", (6,))]),
    ("jnp.zeros((2, 3))", []),
    ("jnp.ones((2, 3), dtype=jnp.int32)", []),
    ("jnp.full((2,), 3.0)", []),
    ("jnp.full((2,), 3)", []),
    ("jnp.arange(10)", []),
    ("jnp.arange(1, 10, 2)", []),
    ("jnp.arange(0.0, 1.0, 0.25)", []),
    ("jnp.eye(3, 4)", []),
    ("jnp.zeros_like(a)", [("i32", (2, 3))]),
    ("jnp.ones_like(a, dtype=jnp.float32)", [("i32", (2, 3))]),
    ("jnp.linspace(0, 1, 7)", []),
    ("jnp.array([[1, 2, 3]])", []),
    ("jnp.array(1.0, ndmin=2)", []),
    ("jnp.clip(a, 0, 1)", [("f32", (2, 3))]),
    ("jax.random.normal(jax.random.key(0), (3, 2))", []),
    ("jax.random.split(jax.random.PRNGKey(0), 4)", []),
    ("jax.random.PRNGKey(0, impl='rbg')", []),
    ("jax.random.PRNGKey(0, impl='threefry2x32').reshape(1, 2)", []),
    ("jax.device_put(a)", [("f32", (2, 3))]),
    ("jnp.dot(a, b, out_sharding=None)", [("f32", (2, 3)), ("f32", (3,))]),
    ("a.astype(jnp.int32)", [("f32", (2, 3))]),
    ("jnp.linalg.inv(a)", [("f32", (5, 3, 3))]),
    ("jnp.linalg.det(a)", [("f32", (5, 3, 3))]),
    ("jax.image.resize(a, (2, 16, 16, 3), 'bilinear')", [("f32", (2, 8, 8, 3))]),
    ("jax.image.resize(a, (2, 4, 4, 3), 'nearest')", [("i32", (2, 8, 8, 3))]),
    ("jnp.linalg.solve(a, b)", [("f32", (2, 3, 3)), ("f32", (3,))]),
    ("jnp.linalg.solve(a, b)", [("f32", (2, 3, 3)), ("f32", (3, 4))]),
    ("jnp.linalg.solve(a, b)", [("f32", (2, 3, 3)), ("f32", (1, 3, 4))]),
    ("jnp.linalg.eigh(a)[0]", [("f32", (2, 3, 3))]),
    ("jnp.linalg.eigh(a)[1]", [("f32", (2, 3, 3))]),
    ("jnp.linalg.eigvalsh(a)", [("f32", (2, 3, 3))]),
    ("jnp.linalg.slogdet(a)[1]", [("f32", (2, 3, 3))]),
    ("jnp.linalg.svd(a)[0]", [("f32", (2, 3, 5))]),
    ("jnp.linalg.svd(a)[2]", [("f32", (2, 3, 5))]),
    ("jnp.linalg.svd(a, full_matrices=False)[2]", [("f32", (2, 3, 5))]),
    ("jnp.linalg.svd(a, compute_uv=False)", [("f32", (2, 3, 5))]),
    ("jnp.linalg.qr(a)[0]", [("f32", (2, 5, 3))]),
    ("jnp.linalg.qr(a)[1]", [("f32", (2, 5, 3))]),
    ("jnp.linalg.qr(a, mode='complete')[0]", [("f32", (2, 5, 3))]),
    ("jnp.linalg.qr(a, mode='r')", [("f32", (2, 5, 3))]),
    ("jnp.round(a)", [("f32", (2,))]),
    ("jnp.isclose(a, b)", [("f32", (2, 3)), ("f32", (3,))]),
    ("jnp.allclose(a, b)", [("f32", (3, 1)), ("f32", (3, 4))]),
    ("jax.lax.psum(a, 'i')", [("f32", (2,), {"i": 3})]),
    ("jax.lax.dynamic_slice(a, (0, 1), (2, 3))", [("f32", (8, 4))]),
    ("jax.lax.dynamic_slice(a, (b, 1), (2, 3))", [("f32", (8, 4)), ("i32", ())]),
    ("jax.lax.dynamic_slice_in_dim(a, 3, 2, axis=1)", [("f32", (8, 4))]),
    ("jax.lax.dynamic_slice_in_dim(a, b, 5)", [("i32", (8, 4)), ("i32", ())]),
    ("jax.lax.dynamic_index_in_dim(a, 3, 0, False)", [("f32", (8, 4))]),
    ("jax.lax.dynamic_index_in_dim(a, 3, 1)", [("f32", (8, 4))]),
    ("jax.lax.dynamic_update_slice(a, b, (1, 0))", [("f32", (8, 4)), ("f32", (2, 4))]),
    ("jax.lax.dynamic_update_slice_in_dim(a, b, 1, axis=1)", [("f32", (8, 4)), ("f32", (8, 1))]),
    ("jax.lax.dynamic_update_index_in_dim(a, b, 2, 0)", [("f32", (8, 4)), ("f32", (1, 4))]),
    ("jax.lax.dynamic_update_index_in_dim(a, b, 2, 0)", [("f32", (8, 4)), ("f32", (4,))]),  # JAX expands it
    ("jax.lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,))))", [("f32", (2, 3, 4)), ("f32", (2, 4, 5))]),
    ("jax.lax.dot_general(a, b, (((1,), (0,)), ((), ())))", [("f32", (3, 4)), ("f32", (4, 6))]),
    (
        "jax.lax.dot_general(a, b, (((0,), (1,)), ((), ())), preferred_element_type=jnp.float32)",
        [("i32", (4, 3)), ("i32", (5, 4))],
    ),
    ("jax.lax.top_k(a, 2)[0]", [("f32", (2, 3, 4))]),
    ("jax.lax.top_k(a, 2)[1]", [("f32", (5, 7))]),
    ("jax.lax.select(a > 0, a, b)", [("f32", (2, 3)), ("f32", (2, 3))]),
    ("jax.lax.broadcast_in_dim(a, (2, 3), (1,))", [("f32", (3,))]),
    ("jax.lax.broadcast_in_dim(a, (4, 2, 3), (1, 2))", [("f32", (1, 3))]),
    ("jax.lax.broadcast(a, (5,))", [("f32", (2, 3))]),
    ("jax.lax.broadcasted_iota(jnp.int32, (4, 5), 1)", [("f32", (1,))]),
    ("jax.lax.iota(jnp.int32, 6)", [("f32", (1,))]),
    ("jax.lax.slice_in_dim(a, 1, 3, axis=1)", [("f32", (2, 7))]),
    ("jax.lax.slice_in_dim(a, 0, 7, stride=2, axis=1)", [("f32", (2, 7))]),
    ("jax.lax.expand_dims(a, (0, 3))", [("f32", (2, 3))]),
    ("jax.lax.convert_element_type(a, jnp.int32)", [("f32", (2, 3))]),
    ("jnp.unstack(a, axis=1)[0]", [("f32", (2, 3, 4))]),
]

AGREE += [  # issue 10: the accepted neighbours of the rejections below
    ("jnp.tril(a)", [("f32", (3, 4))]),
    ("jnp.triu(a, k=1)", [("f32", (2, 3, 4))]),
    ("jax.vmap(lambda x: x * 2, in_axes=None, axis_size=4)(a)", [("f32", (3,))]),
    ("jax.vmap(lambda x, y: y * 2, in_axes=(0, None), out_axes=None)(a, b)", [("f32", (4, 3)), ("f32", (3,))]),
    ("jnp.pad(a, ((1, 2),))", [("f32", (2, 3))]),
    ("jnp.pad(a, (1,))", [("f32", (2, 3))]),
    ("jnp.pad(a, (1, 2))", [("f32", (2, 3))]),
    ("jnp.pad(a, ((1, 2), (3, 4)))", [("f32", (2, 3))]),
]

AGREE += [  # whole programs: APIs real projects call most
    ("jax.random.fold_in(jax.random.PRNGKey(0), 3)", []),
    ("jax.random.normal(jax.random.fold_in(jax.random.key(1), 2), (3, 2))", []),
    ("jax.lax.reshape(a, (3, 8))", [("f32", (4, 6))]),
    ("jax.nn.initializers.he_normal()(jax.random.key(0), (4, 5), jnp.float32)", []),
    ("jax.nn.initializers.normal(0.02)(jax.random.key(0), (2, 3), jnp.bfloat16)", []),
    ("jax.nn.initializers.zeros(jax.random.key(0), (7,))", []),
    ("jax.nn.initializers.constant(1.0)(jax.random.key(0), (3,)) + a", [("f32", (2, 3))]),
    ("jnp.zeros(jax.typeof(a).shape) + a", [("f32", (4, 6))]),
    ("jax.eval_shape(lambda x: x @ x.T, jax.ShapeDtypeStruct((4, 6), jnp.bfloat16))", []),
]

AGREE += [  # convolutions (engine/ops/conv.py)
    ("jax.lax.conv_general_dilated(a, b, (1, 1), 'SAME')", [("f32", (2, 3, 8, 8)), ("f32", (4, 3, 3, 3))]),
    ("jax.lax.conv_general_dilated(a, b, (2, 1), 'VALID')", [("f32", (2, 3, 9, 8)), ("f32", (4, 3, 3, 2))]),
    ("jax.lax.conv_general_dilated(a, b, (2, 1), [(1, 1), (0, 2)])", [("f32", (2, 3, 9, 8)), ("f32", (4, 3, 3, 2))]),
    (
        "jax.lax.conv_general_dilated(a, b, (1, 1), 'VALID', rhs_dilation=(2, 2))",
        [("f32", (2, 3, 9, 8)), ("f32", (4, 3, 3, 2))],
    ),
    ("jax.lax.conv_general_dilated(a, b, (2, 2), 'SAME')", [("f32", (2, 3, 9, 8)), ("f32", (4, 3, 3, 3))]),
    ("jax.lax.conv_general_dilated(a, b, (2, 2), 'SAME_LOWER')", [("f32", (2, 3, 9, 8)), ("f32", (4, 3, 3, 3))]),
    ("jax.lax.conv_general_dilated(a, b, (1, 1), 'VALID')", [("f32", (2, 3, 2, 2)), ("f32", (4, 3, 3, 3))]),
    (
        "jax.lax.conv_general_dilated(a, b, (1, 2), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))",
        [("f32", (2, 8, 7, 3)), ("f32", (3, 3, 3, 4))],
    ),
    (
        "jax.lax.conv_general_dilated(a, b, (1, 2), 'VALID', dimension_numbers=('NCHW', 'WHIO', 'NHWC'))",
        [("f32", (2, 3, 8, 7)), ("f32", (2, 3, 3, 4))],
    ),
    (
        "jax.lax.conv_general_dilated(a, b, (1, 1), 'SAME', feature_group_count=2)",
        [("f32", (2, 6, 8, 8)), ("f32", (4, 3, 3, 3))],
    ),
    ("jax.lax.conv_general_dilated(a, b, (1,), 'SAME')", [("f32", (2, 3, 8)), ("f32", (4, 3, 3))]),
    ("jax.lax.conv(a, b, (1, 1), 'VALID')", [("f32", (2, 3, 8, 8)), ("f32", (4, 3, 3, 3))]),
    ("jnp.trace(a)", [("f32", (4, 5))]),
    ("jnp.linalg.diagonal(a)", [("f32", (2, 4, 5))]),
    ("jnp.linalg.trace(a)", [("i32", (2, 4, 5))]),
]

DISAGREE = [
    ("jnp.linalg.solve(a, b)", [("f32", (2, 3, 3)), ("f32", (2, 3))]),  # (a batch of vectors before JAX 0.5)
    ("jnp.linalg.solve(a, b)", [("f32", (3, 3)), ("f32", (4,))]),
    ("jnp.linalg.eigh(a)", [("f32", (2, 3, 4))]),
    ("jax.image.resize(a, (16, 16, 3), 'bilinear')", [("f32", (2, 8, 8, 3))]),
    ("a + b", [("f32", (3, 4)), ("f32", (5,))]),
    ("a['w'] @ b", [("f32", (3, 4)), ("f32", (4, 2))]),  # a swapped argument: an array where a dict was meant
    ("a[0, 'w']", [("i32", (3, 4))]),
    ("jax.random.normal(a, (3,))", [("f32", (16, 2))]),  # data where the key was meant
    ("jax.random.split(a)", [("i32", (2,))]),  # raw key data must be uint32
    ("jax.random.uniform(3, (2,))", []),
    ("jax.random.fold_in(a, 1)", [("f32", (3,))]),  # data where the key was meant
    ("jnp.dot(a, b)", [("f32", (3, 4)), ("f32", (5, 6))]),
    ("a @ b", [("f32", (2, 3, 4)), ("f32", (5, 4, 6))]),
    ("a @ b", [("f32", (3, 4)), ("f32", (3, 4))]),
    ("jnp.tensordot(a, b, axes=1)", [("f32", (3, 4)), ("f32", (5, 6))]),
    ("jnp.einsum('ij,jk->ik', a, b)", [("f32", (3, 4)), ("f32", (5, 6))]),
    ("jnp.einsum('ijk,j->i', a, b)", [("f32", (5, 3)), ("f32", (3,))]),
    ("jnp.reshape(a, (5, 5))", [("f32", (6, 4))]),
    ("jnp.reshape(a, (-1, 7))", [("f32", (6, 4))]),
    ("jnp.concatenate([a, b])", [("f32", (6, 4)), ("f32", (5, 3))]),
    ("jnp.stack([a, b])", [("f32", (6, 4)), ("f32", (6, 3))]),
    ("jnp.sum(a, axis=2)", [("f32", (6, 4))]),
    ("jnp.argmax(a, axis=2)", [("f32", (6, 4))]),
    ("jnp.transpose(a, (0, 0))", [("f32", (6, 4))]),
    ("jnp.expand_dims(a, 3)", [("f32", (6, 4))]),
    ("jnp.squeeze(a, axis=0)", [("f32", (6, 4))]),
    ("jnp.broadcast_to(a, (4, 3, 3))", [("f32", (3, 2))]),
    ("a[0, 0, 0]", [("f32", (6, 4))]),
    ("jax.nn.softmax(a, axis=3)", [("f32", (6, 4))]),
    ("jnp.moveaxis(a, 0, 2)", [("f32", (6, 4))]),
    ("jnp.swapaxes(a, 0, 2)", [("f32", (6, 4))]),
    ("jnp.cumsum(a, axis=2)", [("f32", (6, 4))]),
    ("jnp.split(a, 4, axis=1)", [("f32", (2, 6))]),
    ("jnp.repeat(a, 3, axis=2)", [("f32", (4, 5))]),
    ("jnp.sort(a, axis=2)", [("f32", (4, 5))]),
    ("jnp.take(a, b, axis=2)", [("f32", (4, 5)), ("i32", (2,))]),
    ("jax.lax.dynamic_slice(a, (0, 1), (9, 3))", [("f32", (8, 4))]),
    ("jax.lax.dynamic_slice(a, (0, 1), (2,))", [("f32", (8, 4))]),
    ("jax.lax.dynamic_slice(a, (0,), (2, 3))", [("f32", (8, 4))]),
    ("jax.lax.dynamic_slice_in_dim(a, 0, 5, axis=1)", [("f32", (8, 4))]),
    ("jax.lax.dynamic_update_slice(a, b, (1, 0))", [("f32", (8, 4)), ("f32", (4,))]),
    ("jax.lax.dynamic_update_slice(a, b, (1, 0))", [("f32", (8, 4)), ("f32", (9, 4))]),
    ("jax.lax.dynamic_update_slice_in_dim(a, b, 0, axis=0)", [("f32", (8, 4)), ("f32", (2, 5))]),
    ("jax.lax.dot_general(a, b, (((1,), (0,)), ((), ())))", [("f32", (3, 4)), ("f32", (5, 6))]),
    ("jax.lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,))))", [("f32", (2, 3, 4)), ("f32", (3, 4, 5))]),
    ("jax.lax.top_k(a, 9)[0]", [("f32", (2, 4))]),
    ("jax.lax.select(a > 0, a, b)", [("f32", (2, 3)), ("f32", (3,))]),
    ("jax.lax.broadcast_in_dim(a, (2, 3), (1,))", [("f32", (4,))]),
    ("jax.lax.broadcast_in_dim(a, (2, 3), (0, 1))", [("f32", (3,))]),
    ("jax.lax.slice_in_dim(a, 1, 9, axis=1)", [("f32", (2, 7))]),
    ("jnp.allclose(a, b)", [("f32", (3, 4)), ("f32", (4, 3))]),
    ("jnp.isclose(a, b)", [("f32", (3, 4)), ("f32", (3,))]),
    ("jax.random.key(0).reshape(2)", []),
    ("jax.random.PRNGKey(0, impl='rbg').reshape(2)", []),
    # issue 10: found by the random-program property check
    ("jnp.tril(a)", [("f32", (3,))]),
    ("jnp.triu(a, k=1)", [("f32", ())]),
    ("jax.vmap(lambda x: x * 2, in_axes=None)(a)", [("f32", (3,))]),
    ("jax.vmap(lambda x, y: x * y, in_axes=(None, None))(a, b)", [("f32", (3,)), ("f32", (3,))]),
    ("jax.vmap(lambda x: x, out_axes=None)(a)", [("f32", (4, 3))]),
    ("jax.vmap(lambda x, y: (y, x), in_axes=(0, None), out_axes=(0, None))(a, b)", [("f32", (4, 3)), ("f32", (3,))]),
    ("jnp.pad(a, ((1, 1), (2, 2), (3, 3)))", [("f32", (2, 3))]),
    ("jnp.pad(a, (1, 2, 3))", [("f32", (2, 3))]),
    ("jnp.pad(a, [[1, 2], [3, 4]])", [("f32", (3,))]),
    # convolutions: channels-last images under the default NCHW layout, groups, and a matrix op of a vector
    ("jax.lax.conv_general_dilated(a, b, (1, 1), 'SAME')", [("f32", (2, 8, 8, 3)), ("f32", (4, 3, 3, 3))]),
    ("jax.lax.conv(a, b, (1, 1), 'SAME')", [("f32", (2, 8, 8, 3)), ("f32", (4, 3, 3, 3))]),
    (
        "jax.lax.conv_general_dilated(a, b, (1, 1), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))",
        [("f32", (2, 8, 8, 5)), ("f32", (3, 3, 3, 4))],
    ),
    (
        "jax.lax.conv_general_dilated(a, b, (1, 1), 'SAME', feature_group_count=2)",
        [("f32", (2, 6, 8, 8)), ("f32", (5, 3, 3, 3))],
    ),
    (
        "jax.lax.conv_general_dilated(a, b, (1, 1), 'SAME', feature_group_count=2)",
        [("f32", (2, 6, 8, 8)), ("f32", (4, 6, 3, 3))],
    ),
    ("jnp.diagonal(a)", [("f32", (5,))]),
    ("jnp.trace(a)", [("f32", (5,))]),
    ("jnp.linalg.diagonal(a)", [("f32", (5,))]),
    ("jnp.linalg.trace(a)", [("f32", (5,))]),
]


def _program(expr: str, args: list[tuple[str, tuple[int, ...]]]) -> str:
    params = ", ".join(f"{n}: {a[0]}[{a[1]!r}, {a[2] if len(a) > 2 else {}!r}]" for n, a in zip("abc", args))
    return (
        "import jax\nimport jax.numpy as jnp\nfrom namedcheck import f32, i32, bool_\n\n"
        f"def f({params}) -> None:\n    out = {expr}\n"
    )


def _jax_result(expr: str, args: list[tuple[str, tuple[int, ...]]]):
    structs = [jax.ShapeDtypeStruct(a[1], DT[a[0]]) for a in args]

    def fn(*xs):
        return eval(expr, {"jnp": jnp, "jax": jax}, dict(zip("abc", xs)))

    if "psum" in expr:  # a collective needs its axis bound: vmap over 'i'
        return jax.eval_shape(lambda x: jax.vmap(fn, axis_name="i")(x[None])[0], *structs)
    return jax.eval_shape(fn, *structs)


@pytest.mark.parametrize(("expr", "args"), AGREE, ids=[e for e, _ in AGREE])
def test_inferred_type_matches_jax(expr: str, args: list) -> None:
    diags, revealed = analyse_for_test(_program(expr, args))
    assert not diags, [d.message for d in diags]
    ours = revealed[6]
    real = _jax_result(expr, args)
    assert ours.shape == real.shape, f"{expr}: namedcheck {ours!r}, jax {real.shape}"
    if "linalg" not in expr:  # declarative stubs with an `Array` result leave the dtype unknown
        assert ours.dtype == str(real.dtype), f"{expr}: namedcheck {ours!r}, jax {real.dtype}"


@pytest.mark.parametrize(("expr", "args"), DISAGREE, ids=[e for e, _ in DISAGREE])
def test_rejected_exactly_when_jax_raises(expr: str, args: list) -> None:
    diags, _ = analyse_for_test(_program(expr, args))
    assert [d.line for d in diags] == [6], [d.message for d in diags]
    with pytest.raises(Exception):  # noqa: B017 - any JAX error counts
        _jax_result(expr, args)


# Partial and symbolic shapes: `n` and `m` are ints the checker does not know (parameters); they become symbols.
# Under every concrete stand-in, each known dim equals JAX's and each symbolic dim evaluates to JAX's; only an
# unknown dim (None) may be anything.
PARTIAL_AGREE = [
    ("jnp.ones((n, 784))", [], "f32[('n', 784)]"),
    ("jnp.zeros((n, m, 3), jnp.int32)", [], "i32[('n', 'm', 3)]"),
    ("jnp.empty((4, n))", [], "f32[(4, 'n')]"),
    ("jnp.full((n, 2), 1)", [], "i32[('n', 2)]"),
    ("jnp.zeros((a.shape[0], 10))", [("f32", (3, 5))], "f32[(3, 10)]"),
    ("jax.random.normal(jax.random.key(0), (n, 8))", [], "f32[('n', 8)]"),
    ("jax.random.randint(jax.random.key(0), (n,), 0, 4)", [], "i32[('n',)]"),
    ("jnp.ones((n, 784)) + jnp.ones((784,))", [], "f32[('n', 784)]"),
    ("jnp.ones((n, 784)) @ a", [("f32", (784, 10))], "f32[('n', 10)]"),
    ("jnp.ones((n, 784)).reshape(-1, 28, 28)", [], "f32[('n', 28, 28)]"),
    ("jnp.ones((n, 784)).reshape(2, -1)", [], "f32[(2, '392*n')]"),
    ("jnp.ones((n, 784)).sum(axis=0)", [], "f32[(784,)]"),
    ("jnp.ones((n, 784)).mean(axis=1)", [], "f32[('n',)]"),
    ("jnp.concatenate([jnp.ones((n, 4)), a], axis=0)", [("f32", (3, 4))], "f32[('n+3', 4)]"),
    ("jnp.concatenate([jnp.ones((n, 4)), jnp.ones((n, 2))], axis=1)", [], "f32[('n', 6)]"),
    ("jnp.einsum('ij,jk->ik', jnp.ones((n, 4)), a)", [("f32", (4, 5))], "f32[('n', 5)]"),
    ("jnp.ones((n, 784)).reshape(n, 28, 28)", [], "f32[('n', 28, 28)]"),
    ("jnp.ones((n, 784)).reshape((n, -1))", [], "f32[('n', 784)]"),
    ("a.reshape(-1, n)", [("f32", (6, 6))], "f32[(?, 'n')]"),
    ("jnp.broadcast_to(jnp.ones((784,)), (n, 784))", [], "f32[('n', 784)]"),
    ("jnp.broadcast_to(jnp.ones((1, 784)), (n, m, 784))", [], "f32[('n', 'm', 784)]"),
]

PARTIAL_DISAGREE = [
    ("jnp.ones((n, 784)) + jnp.ones((3,))", []),
    ("jnp.zeros((a.shape[0], 10)) + jnp.ones((7,))", [("f32", (4, 5))]),
    ("jax.random.normal(jax.random.key(0), (n, 8)) @ a", [("f32", (4, 5))]),
    ("jnp.concatenate([jnp.ones((n, 4)), a], axis=0)", [("f32", (3, 5))]),
    ("a.reshape(n, 783)", [("f32", (5, 784))]),
    ("a.reshape(n, -1, 7)", [("f32", (4, 5))]),
    ("jnp.broadcast_to(jnp.ones((3,)), (n, 784))", []),
]

_STAND_INS = [(1, 1), (2, 3), (6, 7)]


def _partial_program(expr: str, args: list) -> str:
    params = "".join(f"{n}: {a[0]}[{a[1]!r}], " for n, a in zip("abc", args))
    return (
        "import jax\nimport jax.numpy as jnp\nfrom namedcheck import f32, i32, bool_\n\n"
        f"def f({params}n: int, m: int) -> None:\n    out = {expr}\n"
    )


def _jax_partial(expr: str, args: list, n: int, m: int):
    structs = [jax.ShapeDtypeStruct(a[1], DT[a[0]]) for a in args]
    return jax.eval_shape(
        lambda *xs: eval(expr, {"jnp": jnp, "jax": jax, "n": n, "m": m}, dict(zip("abc", xs))), *structs
    )


@pytest.mark.parametrize(("expr", "args", "expected"), PARTIAL_AGREE, ids=[e for e, _, _ in PARTIAL_AGREE])
def test_partial_shape_matches_jax(expr: str, args: list, expected: str) -> None:
    diags, revealed = analyse_for_test(_partial_program(expr, args))
    assert not diags, [d.message for d in diags]
    ours = revealed[6]
    assert repr(ours) == expected
    for n, m in _STAND_INS:
        real = _jax_partial(expr, args, n, m)
        assert len(ours.shape) == len(real.shape), (expr, n, m, real.shape)
        for d, r in zip(ours.shape, real.shape):
            value = symbolic.evaluate_size(d, {"n": n, "m": m}) if isinstance(d, str) else d
            assert d is None or value == r, f"{expr} (n={n}, m={m}): namedcheck {ours!r}, jax {real.shape}"
        assert ours.dtype == str(real.dtype)


@pytest.mark.parametrize(("expr", "args"), PARTIAL_DISAGREE, ids=[e for e, _ in PARTIAL_DISAGREE])
def test_partial_shape_rejected_whatever_the_sizes(expr: str, args: list) -> None:
    diags, _ = analyse_for_test(_partial_program(expr, args))
    assert [d.line for d in diags] == [6], [d.message for d in diags]
    for n, m in _STAND_INS:
        with pytest.raises(Exception):  # noqa: B017 - any JAX error counts
            _jax_partial(expr, args, n, m)


# einsum specs JAX rejects whatever the operands' shapes: operands the checker knows nothing about (untyped
# parameters), and JAX given stand-ins of every rank the terms allow.
SPEC_DISAGREE = [
    ("jnp.einsum('...qhd,...khd->...hqx', a, b)", [[(2, 3, 4, 5), (2, 3, 4, 5)], [(3, 4, 5), (6, 4, 5)]]),
    ("jnp.einsum('bqhd,bkhd->bhqk', a, b, c)", [[(2, 3, 4, 5)] * 3]),
    ("jnp.einsum('bqhd,bkhd->bhqk', a)", [[(2, 3, 4, 5)]]),
    ("jnp.einsum('ij', a, b)", [[(2, 3), (2, 3)]]),
    ("jnp.einsum('i->ii', a)", [[(3,)]]),
    ("jnp.einsum('i j -> i k', a)", [[(3, 2)]]),
]

SPEC_AGREE = [
    ("jnp.einsum('...qhd,...khd->...hqk', a, b)", [[(2, 3, 4, 5), (2, 6, 4, 5)]]),
    ("jnp.einsum('ij', a)", [[(2, 3)]]),
    ("jnp.einsum('i,i', a, b)", [[(3,), (3,)]]),
    ("jnp.einsum('i->...i', a)", [[(3,)]]),
    ("jnp.einsum('\u00e9->\u00e9', a)", [[(3,)]]),
]


def _untyped_program(expr: str) -> str:
    return f"import jax\nimport jax.numpy as jnp\n\n\ndef f(a, b, c) -> None:\n    out = {expr}\n"


@pytest.mark.parametrize(("expr", "stand_ins"), SPEC_DISAGREE, ids=[e for e, _ in SPEC_DISAGREE])
def test_einsum_spec_rejected_whatever_the_shapes(expr: str, stand_ins: list) -> None:
    diags, _ = analyse_for_test(_untyped_program(expr))
    assert [(d.line, d.code) for d in diags] == [(6, "NC702")], [d.message for d in diags]
    for shapes in stand_ins:
        arrays = dict(zip("abc", (jnp.ones(s) for s in shapes)))
        with pytest.raises(ValueError):
            eval(expr, {"jnp": jnp}, arrays)


@pytest.mark.parametrize(("expr", "stand_ins"), SPEC_AGREE, ids=[e for e, _ in SPEC_AGREE])
def test_einsum_spec_accepted(expr: str, stand_ins: list) -> None:
    diags, _ = analyse_for_test(_untyped_program(expr))
    assert not diags, [d.message for d in diags]
    for shapes in stand_ins:
        eval(expr, {"jnp": jnp}, dict(zip("abc", (jnp.ones(s) for s in shapes))))


GRAD_PROGRAM = """import jax
import jax.numpy as jnp


def loss(params, x):
    return jnp.mean(jnp.tanh(x @ params['w1'] + params['b'][0]) @ params['w2'])


params = {'w1': jnp.zeros((12, 16)), 'b': [jnp.zeros((16,), jnp.bfloat16)], 'w2': jnp.zeros((16, 2))}
x = jnp.zeros((32, 12))
g = jax.grad(loss)(params, x)
value, (gp, gx) = jax.value_and_grad(loss, argnums=(0, 1))(params, x)
w1, b, w2, dx = g['w1'], gp['b'][0], gp['w2'], gx
"""


def test_pytree_gradients_have_the_parameters_structure() -> None:
    """grad / value_and_grad of a dict (and list) of parameters: the same tree, leaf by leaf as JAX gives it."""
    diags, revealed = analyse_for_test(GRAD_PROGRAM)
    assert not diags
    ns: dict = {}
    exec(compile(GRAD_PROGRAM, "<grad>", "exec"), ns)  # noqa: S102 - our own test program
    ours = revealed[max(revealed)]
    assert isinstance(ours, Seq) and len(ours.items) == 4
    for t, real in zip(ours.items, (ns["w1"], ns["b"], ns["w2"], ns["dx"]), strict=True):
        assert t.shape == real.shape and t.dtype == str(real.dtype), (t, real.shape, real.dtype)
