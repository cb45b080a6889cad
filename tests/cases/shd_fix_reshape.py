"""Reshapes JAX rejects for the operand's sharding (NC805, JAX: "Please specify the sharding of the output via
the `out_sharding` argument"), with the fix that message names: `out_sharding=` where the dims the reshape
leaves alone keep their sharding and the reshaped ones are unsharded. tests/test_fix.py runs the fixed program
under JAX (8 CPU devices) and compares every `merged*` with numpy's reshape of `a`. Safe in module code; inside
a function (another call may pass another sharding) only with --unsafe-fixes."""

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)

a = np.arange(256, dtype=np.float32).reshape(8, 4, 8)
x = jax.device_put(a, P('data', None, 'model'))  # reveal: f32[(8@data, 4, 8@model)]
merged = x.reshape(8, 32)  # expect: NC805
merged_call = jnp.reshape(x, (8, 32))  # expect: NC805
merged_flat = jnp.reshape(x, (256,))  # expect: NC805
merged_ok = jnp.reshape(x, (8, 32), out_sharding=P('data', None))  # reveal: f32[(8@data, 32)]
lax_ok = jax.lax.reshape(x, (8, 32), out_sharding=P('data', None))  # reveal: f32[(8@data, 32)]
lax_none = jax.lax.reshape(x, (8, 32), None, out_sharding=P('data', None))  # reveal: f32[(8@data, 32)]
lax_bad = jax.lax.reshape(x, (8, 32))  # expect: NC805


def merge_heads(h):
    return jnp.reshape(h, (h.shape[0], -1))  # expect: NC805


merged_heads = merge_heads(x)
