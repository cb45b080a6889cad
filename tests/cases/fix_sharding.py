"""Loop carries whose sharding changes (NC809) and values sharded unlike their annotation (NC811), with the
fixes `check --fix` applies: the body's carry output resharded back, the value resharded to the annotation's
sharding. tests/test_fix.py runs the fixed program under JAX (8 CPU devices) and compares the values with
numpy's. A body two loops share gets its fix only with --unsafe-fixes."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import PartitionSpec as P

from namedcheck import Array, Dims, f32

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)
a = np.arange(128, dtype=np.float32).reshape(8, 16) / 64
x = jax.device_put(a, P('data', None))


def grow(c, _):
    return jax.sharding.reshard(c * 2, P(None, 'model')), jnp.sum(c)


def step(i, c):
    return jax.sharding.reshard(c + i, P(None, 'model'))


def shared(c, _):
    return jax.sharding.reshard(c * 3, P(None, 'model')), None


scanned, sums = lax.scan(grow, x, None, length=3)  # expect: NC809
looped = lax.fori_loop(0, 3, step, x)  # expect: NC809
doubled = lax.while_loop(lambda c: jnp.max(c) < 100, lambda c: jax.sharding.reshard(c * 2, P(None, 'model')), x)  # expect: NC809
shared_one, _ = lax.scan(shared, x, None, length=2)  # expect: NC809
shared_two, _ = lax.scan(shared, x, None, length=2)  # expect: NC809
stated: f32[Array, Dims(8, '16@model')] = x * 2  # expect: NC811
replicated: f32[Array, Dims('8@()', 16)] = x + 1  # expect: NC811
