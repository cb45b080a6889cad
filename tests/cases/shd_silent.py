"""Explicit-axis sharding in types: where JAX accepts, nothing is reported. Auto axes keep shardings out
of the type; arrays made without `jax.set_mesh` are uncommitted; shard_map bodies see Manual axes."""

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

auto = Mesh(np.array(jax.devices()).reshape(4, 2), ('data', 'model'))
a = jax.device_put(jnp.ones((8, 16)), NamedSharding(auto, P('data', None)))  # reveal: f32[(8, 16)]
b = jax.device_put(jnp.ones((8, 16)), NamedSharding(auto, P('model', None)))
mixed = a + b
contracted = jax.device_put(jnp.ones((8, 16)), NamedSharding(auto, P(None, 'data'))) @ \
    jax.device_put(jnp.ones((16, 4)), NamedSharding(auto, P('data', None)))

explicit = jax.make_mesh((4, 2), ('data', 'model'))
x = jax.device_put(jnp.ones((8, 16)), NamedSharding(explicit, P('data', None)))  # reveal: f32[(8@data, 16)]
plain = jnp.ones((8, 16))  # reveal: f32[(8, 16)]
summed = x + plain
cat = jnp.concatenate([x, plain])
doubled = jax.jit(lambda v: v * 2, in_shardings=NamedSharding(explicit, P('data')))(plain)


@jax.jit
def head(v):
    return v[:4] * 2


first = head(x)


def local(v):
    return v @ v.T


blocks = jax.shard_map(local, mesh=explicit, in_specs=P('data', None), out_specs=P('data', None))(x)
