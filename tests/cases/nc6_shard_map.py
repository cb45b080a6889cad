from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

from namedcheck import f32

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('x', 'y'))
a = jnp.arange(16.0).reshape(8, 2)


# --- a data-parallel train step: replicated parameters, batch split over 'x'
def loss(w, xb):
    return jnp.mean((xb @ w) ** 2)


@partial(jax.shard_map, mesh=mesh, in_specs=(P(), P('x')), out_specs=P())
def train_step(w, xb):
    local = xb  # reveal: f32[(2, 2)]{V:x}
    g = jax.grad(loss)(w, xb)  # reveal: f32[(2, 3)]
    g = lax.pmean(g, 'x')
    return w - 0.1 * g


new_w = train_step(jnp.zeros((2, 3)), a)  # reveal: f32[(2, 3)]


# --- a Megatron-style tensor-parallel MLP over 'y'
@partial(jax.shard_map, mesh=mesh, in_specs=(P('x', None), P(None, 'y'), P('y', None)), out_specs=P('x', None))
def mlp(xb, w1, w2):
    h = jax.nn.relu(xb @ w1)  # reveal: f32[(2, 4)]{V:x,y}
    partial_out = h @ w2  # reveal: f32[(2, 2)]{V:x,y}
    return lax.psum(partial_out, 'y')


out = mlp(a, jnp.zeros((2, 8)), jnp.zeros((8, 2)))  # reveal: f32[(8, 2)]


# --- collectives and their varying sets
@partial(jax.shard_map, mesh=mesh, in_specs=P('x'), out_specs=P('x', 'y'))
def collectives(xb):
    g = lax.all_gather(xb, 'x', tiled=True)  # reveal: f32[(8, 2)]{V:x}
    i = lax.axis_index('y')  # reveal: i32[()]{V:y}
    v = lax.pcast(xb, ('y',), to='varying')  # reveal: f32[(2, 2)]{V:x,y}
    m = lax.pmax(xb, ('x', 'y'))  # reveal: f32[(2, 2)]
    return v + i


c = collectives(a)  # reveal: f32[(8, 4)]


def carry_ok(xb):
    init = lax.pcast(jnp.zeros(xb.shape[1:]), ('x',), to='varying')
    c, _ = lax.scan(lambda c, r: (c + r, ()), init, xb)
    return c


ok_scan = jax.shard_map(carry_ok, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)
unchecked = jax.shard_map(lambda xb: xb, mesh=mesh, in_specs=P('x'), out_specs=P(), check_vma=False)(a)


# --- wrong programs
replicated_lie = jax.shard_map(lambda xb: xb * 2, mesh=mesh, in_specs=P('x'), out_specs=P())  # expect: NC601
replicated_lie(a)


def carry_changes(xb):
    init = jnp.zeros(xb.shape[1:])
    c, _ = lax.scan(lambda c, r: (c + r, ()), init, xb)  # expect: NC602
    return c


jax.shard_map(carry_changes, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)


def fori_changes(xb):
    return lax.fori_loop(0, 3, lambda i, c: c + xb, jnp.zeros(xb.shape))  # expect: NC602


jax.shard_map(fori_changes, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)


def branches_differ(xb, yb):
    return lax.cond(True, lambda: xb, lambda: yb)  # expect: NC602


jax.shard_map(branches_differ, mesh=mesh, in_specs=(P('x'), P('y')), out_specs=P('x', 'y'))(a, a)


def psum_partly(xb):
    return lax.psum(xb, ('x', 'y'))  # expect: NC603


jax.shard_map(psum_partly, mesh=mesh, in_specs=P('x'), out_specs=P())(a)


def pcast_twice(xb):
    return lax.pcast(xb, ('x',), to='varying')  # expect: NC603


jax.shard_map(pcast_twice, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(a)

jax.shard_map(lambda xb: xb, mesh=mesh, in_specs=P('x', 'y', None), out_specs=P('x'))(a)  # expect: NC604
jax.shard_map(lambda xb: xb, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(jnp.arange(6.0))  # expect: NC604
jax.shard_map(lambda xb: xb, mesh=mesh, in_specs=P('y'), out_specs=P('y'), axis_names={'x'})(a)  # expect: NC604
jax.shard_map(lambda xb: xb, mesh=mesh, in_specs=P('z'), out_specs=P('z'))(a)  # expect: NC501
jax.shard_map(lambda xb: xb, mesh=mesh, in_specs=P(('x', 'x')), out_specs=P('x'))(a)  # expect: NC504


# --- a parameter dict through grad and a pmean of the whole tree (JAX averages leaf by leaf)
def tree_loss(params, xb):
    return jnp.mean((xb @ params['w']) ** 2 + params['b'])


def tree_step(params, xb):
    grads = lax.pmean(jax.grad(tree_loss)(params, xb), 'x')
    return jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)


tree_params = {'w': jnp.zeros((2, 3)), 'b': jnp.zeros(3)}
right_tree = jax.shard_map(tree_step, mesh=mesh, in_specs=(P(), P('x')), out_specs=P())(tree_params, a)
wrong_tree = jax.shard_map(tree_step, mesh=mesh, in_specs=(P(), P('x')),
                           out_specs=P(None, None, None))(tree_params, a)  # expect: NC604
