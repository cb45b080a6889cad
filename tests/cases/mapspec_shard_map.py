"""shard_map bodies checked where they are written: parameters known from in_specs alone (params built
with a comprehension, shapes never stated), in_specs left out, pmap / vmap collectives."""
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('data', 'model'))


def init_layer(key, m, n):
    return jax.random.normal(key, (m, n)) / jnp.sqrt(m), jnp.zeros((n,))


def init_params(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [init_layer(k, m, n) for k, m, n in zip(keys, sizes[:-1], sizes[1:])]


# --- data parallel: the loss of one shard must be averaged before it leaves
@partial(jax.shard_map, mesh=mesh, in_specs=(P(), P('data')), out_specs=P())  # expect: NC601
def loss_forgot_pmean(params, batch):
    x = batch
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return jnp.mean(x)


@partial(jax.shard_map, mesh=mesh, in_specs=(P(), P('data')), out_specs=P())
def loss_ok(params, batch):
    x = batch
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return lax.pmean(jnp.mean(x), 'data')


# --- a collective matmul: the accumulator picks up the shards' varying axes in the loop
@partial(jax.shard_map, mesh=mesh, in_specs=(P('data', 'model'), P('model', None)), out_specs=P('data', None))
def collective_matmul_bad(lhs, rhs):
    n = 2
    idx = lax.axis_index('model')
    chunk = rhs.shape[0]

    def body(i, carry):
        acc, r = carry
        part = lax.dynamic_slice_in_dim(lhs, ((idx + i) % n) * chunk, chunk, axis=1)
        r = lax.ppermute(r, 'model', [(j, (j + 1) % n) for j in range(n)])
        return acc + part @ r, r

    acc0 = jnp.zeros((lhs.shape[0], rhs.shape[1]), lhs.dtype)
    acc, _ = lax.fori_loop(0, n, body, (acc0, rhs))  # expect: NC602
    return lax.psum(acc, 'model')


@partial(jax.shard_map, mesh=mesh, in_specs=(P('data', 'model'), P('model', None)), out_specs=P('data', None))
def collective_matmul_ok(lhs, rhs):
    n = 2
    idx = lax.axis_index('model')
    chunk = rhs.shape[0]

    def body(i, carry):
        acc, r = carry
        part = lax.dynamic_slice_in_dim(lhs, ((idx + i) % n) * chunk, chunk, axis=1)
        r = lax.ppermute(r, 'model', [(j, (j + 1) % n) for j in range(n)])
        return acc + part @ r, r

    acc0 = lax.pcast(jnp.zeros((lhs.shape[0], rhs.shape[1]), lhs.dtype), ('data', 'model'), to='varying')
    acc, _ = lax.fori_loop(0, n, body, (acc0, rhs))
    return lax.psum(acc, 'model')


# --- an annotation-free scan over layers: the carry must keep its varying set
def scan_layers_bad(ws, x):
    def layer(h, w):
        return jnp.tanh(h @ w) + lax.axis_index('model'), None
    h, _ = lax.scan(layer, x, ws)  # expect: NC602
    return h


sharded_scan = jax.shard_map(scan_layers_bad, mesh=mesh, in_specs=(P(), P('data')), out_specs=P('data', 'model'))


# --- pmap: a collective over a name the pmap does not bind
def pmapped_grad_bad(x):
    return lax.pmean(x * 2.0, 'batch')  # expect: NC705


def pmapped_grad_ok(x):
    return lax.pmean(x * 2.0, 'devices')


pmapped_bad = jax.pmap(pmapped_grad_bad, axis_name='devices')
pmapped_ok = jax.pmap(pmapped_grad_ok, axis_name='devices')


# --- out_specs may name the axes a value varies over, whatever its shape
@partial(jax.shard_map, mesh=mesh, in_specs=P('data'), out_specs=P('data'))
def normalise(x):
    mu = lax.pmean(jnp.mean(x, axis=0), 'data')
    return x - mu


# --- the mesh is a parameter (unknown here): the axes the specs name are enough for out_specs
def make_train_step(mesh):
    def step_bad(w, xb):
        return jnp.mean(xb @ w)

    def step_ok(w, xb):
        return lax.pmean(jnp.mean(xb @ w), 'data')

    bad = jax.shard_map(step_bad, mesh=mesh, in_specs=(P(), P('data')), out_specs=P())  # expect: NC601
    ok = jax.shard_map(step_ok, mesh=mesh, in_specs=(P(), P('data')), out_specs=P())
    return bad, ok


# --- in_specs' own axes are checked where they are written, called or not
def double(x):
    return x * 2


misspelt = jax.shard_map(double, mesh=mesh, in_specs=P('daat'), out_specs=P('data'))  # expect: NC501
repeated = jax.shard_map(double, mesh=mesh, in_specs=P('data', 'data'), out_specs=P('data'))  # expect: NC504
fine = jax.shard_map(double, mesh=mesh, in_specs=P('data', 'model'), out_specs=P('data', 'model'))


# --- in_specs left out: JAX reads them off the arguments' shardings (Explicit mesh, under set_mesh)
explicit_mesh = jax.make_mesh((4, 2), ('data', 'model'))


def mean_loss_bad(w, xb):
    return jnp.mean(xb @ w)


def mean_loss_ok(w, xb):
    return lax.pmean(jnp.mean(xb @ w), 'data')


def run_inferred_specs_bad():
    with jax.set_mesh(explicit_mesh):
        w = jax.device_put(jnp.ones((8, 4)), NamedSharding(explicit_mesh, P()))
        xb = jax.device_put(jnp.ones((16, 8)), NamedSharding(explicit_mesh, P('data')))
        return jax.shard_map(mean_loss_bad, out_specs=P())(w, xb)  # expect: NC601


def run_inferred_specs_ok():
    with jax.set_mesh(explicit_mesh):
        w = jax.device_put(jnp.ones((8, 4)), NamedSharding(explicit_mesh, P()))
        xb = jax.device_put(jnp.ones((16, 8)), NamedSharding(explicit_mesh, P('data')))
        return jax.shard_map(mean_loss_ok, out_specs=P())(w, xb)


# --- a collective's `axis_name=` keyword names a mesh axis (not an inner map's)
def make_gather(mesh):
    def gather(w):
        full = lax.all_gather(w, axis_name='data', tiled=True)
        return lax.psum(full, axis_name='data')
    return jax.shard_map(gather, mesh=mesh, in_specs=P('data'), out_specs=P())


# --- per-layer spec lists built by repetition
def apply_layers(ws, x):
    for w in ws:
        x = x * w
    return x


layers_bad = jax.shard_map(apply_layers, mesh=mesh, in_specs=([P('dtaa')] * 2, P('data')), out_specs=P('data'))  # expect: NC501
layers_ok = jax.shard_map(apply_layers, mesh=mesh, in_specs=([P('data')] * 2, P('data')), out_specs=P('data'))
shape_plus = jnp.zeros((4, 3)).shape + (1,)  # reveal: Seq(items=(Const(value=4), Const(value=3), Const(value=1)), kind='tuple')
