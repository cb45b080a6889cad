"""Unknown stays unknown: a placement whose target sharding the checker cannot evaluate (`reshard(g, spec)`
with `spec` a parameter, `device_put` to a sharding passed in, `out_sharding=` that is not a literal,
jit's in_shardings from a parameter) gives an unknown sharding, never the input's, so nothing is reported
after it; `jax.typeof(x).sharding`, `.spec`, `.mesh` and `x.sharding` evaluate to what the type states
(an SGD update resharding each gradient to its parameter's spec is clean)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, reshard
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)
p = jax.device_put(jnp.ones((8, 16)), NamedSharding(mesh, P('data', None)))  # reveal: f32[(8@data, 16)]
g = jax.device_put(jnp.ones((8, 16)), NamedSharding(mesh, P('model', None)))  # reveal: f32[(8@model, 16)]
b = jax.device_put(jnp.ones((16, 4)), P(None, 'model'))  # reveal: f32[(16, 4@model)]


def update(p, g, spec):
    return p - 0.1 * reshard(g, spec)


def put(p, g, s):
    return p - jax.device_put(g, s)


def sgd(params, grads, lr=0.1):
    return jax.tree.map(lambda p, g: p - lr * reshard(g, jax.typeof(p).sharding.spec), params, grads)


def matmul_to(a, b, s):
    return jnp.matmul(a, b, out_sharding=s) + jax.device_put(jnp.ones((8, 4)), P('model', None))


def jitted(x, s):
    return jax.jit(lambda v: v + p, in_shardings=s)(x)


def jitted_opaque(x):
    return jax.jit(lambda v: v * 2, in_shardings=NamedSharding(mesh, opaque_spec), out_shardings=opaque_spec)(x) + g


u = update(p, g, P('data', None))
v = put(p, g, NamedSharding(mesh, P('data', None)))
w = sgd({'w': p}, {'w': g})
opaque_spec = getattr(jax.sharding, 'PartitionSpec')('model', None)
m = matmul_to(p, b, opaque_spec)
m2 = jnp.matmul(p, b, out_sharding=opaque_spec) - jax.device_put(jnp.ones((8, 4)), P('model', None))
g2 = reshard(g, jax.typeof(m2).sharding) + m2.sum() + g
j = jitted(np.ones((8, 16), np.float32), NamedSharding(mesh, P('data', None)))
j2 = jitted_opaque(np.ones((8, 16), np.float32))
spec = jax.typeof(p).sharding.spec
r = reshard(g, spec)  # reveal: f32[(8@data, 16)]
r2 = reshard(g, p.sharding)  # reveal: f32[(8@data, 16)]
r3 = reshard(g, NamedSharding(jax.typeof(p).sharding.mesh, jax.typeof(p).sharding.spec))  # reveal: f32[(8@data, 16)]
bad = p + g  # expect: NC801
bad_after = r - g  # expect: NC801
