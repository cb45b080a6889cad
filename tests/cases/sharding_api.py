"""Data-parallel + tensor-parallel training with the modern sharding API: NamedSharding placements,
jit with in/out shardings, with_sharding_constraint inside the step, and reshard on an Explicit mesh."""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('data', 'model'))
replicated = NamedSharding(mesh, P())
batch_sharding = NamedSharding(mesh, P('data'))
param_shardings = {
    'w_in': NamedSharding(mesh, P(None, 'model')),
    'b_in': NamedSharding(mesh, P('model')),
    'w_out': NamedSharding(mesh, P('model', None)),
}


def init_params(key, d_in, d_hidden, d_out):
    k1, k2 = jax.random.split(key)
    return {
        'w_in': jax.random.normal(k1, (d_in, d_hidden)) * 0.02,
        'b_in': jnp.zeros((d_hidden,)),
        'w_out': jax.random.normal(k2, (d_hidden, d_out)) * 0.02,
    }


params = jax.device_put(init_params(jax.random.key(0), 16, 64, 4), param_shardings)
tokens = jax.device_put(jnp.ones((32, 16)), batch_sharding)  # reveal: f32[(32, 16)]
targets = jax.device_put(jnp.zeros((32, 4)), batch_sharding)


def forward(params, x):
    h = jax.nn.gelu(x @ params['w_in'] + params['b_in'])
    h = jax.lax.with_sharding_constraint(h, NamedSharding(mesh, P('data', 'model')))  # reveal: f32[(32, 64)]
    return h @ params['w_out']


def evaluate(params, x):
    return jnp.argmax(forward(params, x), axis=-1)


predict = jax.jit(evaluate, in_shardings=(param_shardings, batch_sharding), out_shardings=batch_sharding)


def loss_fn(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)


@partial(jax.jit, in_shardings=(param_shardings, batch_sharding, batch_sharding),
         out_shardings=(param_shardings, replicated))
def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    new_params = jax.tree.map(lambda p, g: p - 1e-3 * g, params, grads)
    return new_params, loss


labels = predict(params, tokens)  # reveal: i32[(32,)]
params, loss = train_step(params, tokens, targets)

# with_sharding_constraint pads an uneven dimension under jit: 6 rows over 4 devices is accepted there
padded = jax.jit(lambda x: jax.lax.with_sharding_constraint(x, batch_sharding))(jnp.ones((6, 16)))
# a creation op's device= inside a jitted function pads too
make_buffer = jax.jit(lambda: jnp.zeros((6, 16), device=batch_sharding))
buffer6 = make_buffer()  # reveal: f32[(6, 16)]
buffer = jnp.zeros((32, 16), device=batch_sharding)  # reveal: f32[(32, 16)]


# --- wrong placements
bad_axis = NamedSharding(mesh, P('batch'))  # expect: NC501
bad_repeat = NamedSharding(mesh, P(('data', 'model'), 'data'))  # expect: NC504
bias = jax.device_put(jnp.zeros((64,)), NamedSharding(mesh, P(None, 'model')))  # expect: NC604
ragged = jax.device_put(jnp.ones((6, 16)), batch_sharding)  # expect: NC604
ragged_tree = jax.device_put((jnp.ones((8, 16)), jnp.ones((6, 16))), batch_sharding)  # expect: NC604
ragged_buffer = jnp.zeros((6, 16), device=batch_sharding)  # expect: NC604
eager_constraint = jax.lax.with_sharding_constraint(jnp.ones((6, 16)), batch_sharding)  # expect: NC604
params, loss = train_step(params, jnp.ones((6, 16)), jnp.zeros((6, 4)))  # expect: NC604


def column_means(x):
    return jnp.mean(x, axis=1)


means = jax.jit(
    column_means,
    in_shardings=batch_sharding,
    out_shardings=NamedSharding(mesh, P('data', None)),  # expect: NC604
)(tokens)


@jax.jit
def over_constrained(x):
    pooled = jnp.sum(x, axis=0)
    return jax.lax.with_sharding_constraint(pooled, NamedSharding(mesh, P(None, 'model')))  # expect: NC604


pooled = over_constrained(tokens)


# --- an Explicit-axis mesh: shardings are part of the type, moved by reshard
explicit = jax.make_mesh((4, 2), ('data', 'model'))

with jax.set_mesh(explicit):
    acts = jax.device_put(jnp.ones((32, 64)), P('data'))
    acts = jax.sharding.reshard(acts, P('data', 'model'))  # reveal: f32[(32@data, 64@model)]
    flat = jax.sharding.reshard(jnp.ones((32,)), P('data', None))  # reveal: f32[(32@data,)]
    noise = jax.random.normal(jax.random.key(1), (32, 64), out_sharding=P('data', 'model'))
    ids = jnp.arange(32, out_sharding=P('data'))
    scaled = jax.jit(lambda a: a * 2.0, in_shardings=P('data', 'model'), out_shardings=P('data'))(acts)

    lopsided = jax.sharding.reshard(jnp.ones((6, 64)), P('data'))  # expect: NC604
    typo = jax.sharding.reshard(acts, P('dta'))  # expect: NC501
    twice = jax.sharding.reshard(acts, P('data', 'data'))  # expect: NC504
    uneven_zeros = jnp.zeros((6, 64), out_sharding=P('data'))  # expect: NC604
    doubled = jax.jit(lambda a: a * 2.0, in_shardings=P('modle'))(acts)  # expect: NC501
