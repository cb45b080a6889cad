# A shard_map in_specs entry with entries for an argument that is a scalar (a Python number or a 0-d array):
# JAX raises "in_specs entry which is too long". tests/test_map_arguments_under_jax.py runs each function.
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ('i', 'j'))


def scale(x, s):
    return x * s


def wrong_spec_for_rank0_array():
    f = jax.shard_map(scale, mesh=mesh, in_specs=(P('i'), P(None)), out_specs=P('i'))  # expect: NC604
    return f(jnp.ones(8), jnp.float32(1.0))


def wrong_spec_for_python_float():
    f = jax.shard_map(scale, mesh=mesh, in_specs=(P('i'), P('i')), out_specs=P('i'))  # expect: NC604
    return f(jnp.ones(8), 1.0)


def right_empty_spec_for_scalars():
    f = jax.shard_map(scale, mesh=mesh, in_specs=(P('i'), P()), out_specs=P('i'))
    a = f(jnp.ones(8), 1.0)
    b = f(jnp.ones(8), jnp.float32(2.0))
    return a + b


def right_rank0_array_value():
    s = jnp.float32(0.5)  # reveal: f32[()]
    n = np.int32(3)  # reveal: i32[()]
    return s * n
