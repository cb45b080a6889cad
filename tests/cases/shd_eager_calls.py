"""Functions called directly from module-level code run eagerly, op by op: a partial index of a sharded
dimension there is a gather (NC806), and jit's in_shardings must match a committed argument (NC808). A
function that is jitted, mapped or passed anywhere is traced: silent."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)


def first_rows(batch):
    return batch[:8]  # expect: NC806


def whole(batch):
    return batch[:, :2]


def head(batch):
    return first_rows(batch) * 2


def run():
    x = jnp.ones((8, 4))
    double = jax.jit(lambda a: a * 2, in_shardings=P('data'))
    return double(x)  # expect: NC808


def run_ok():
    x = jax.device_put(jnp.ones((8, 4)), P('data'))
    return jax.jit(lambda a: a * 2, in_shardings=P('data'))(x)


def traced_rows(batch):
    return batch[:8]


@jax.jit
def decorated_rows(batch):
    return batch[:8]


def mapped_rows(batch):
    return batch[:8]


batch = jax.device_put(jnp.ones((16, 4)), P('data'))  # reveal: f32[(16@data, 4)]
rows = first_rows(batch)
cols = whole(batch)  # reveal: f32[(16@data, 2)]
heads = head(batch)
out = run()
out_ok = run_ok()  # reveal: f32[(8@data, 4)]
jitted = jax.jit(traced_rows)(batch)  # reveal: f32[(8@data, 4)]
decorated = decorated_rows(batch)  # reveal: f32[(8@data, 4)]
summed = jax.jit(lambda b: mapped_rows(b).sum())(batch)
scanned = jax.lax.map(mapped_rows, jnp.stack([batch, batch]))
