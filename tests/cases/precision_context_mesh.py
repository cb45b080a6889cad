"""Precision for the context mesh (NC812): a jax.set_mesh that may not run (under an `if`, in a loop, in a
`try`), or one inside a function the module calls, leaves the context mesh unknown afterwards: nothing said."""

import sys

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ("data", "model"))
other = jax.make_mesh((8,), ("x",))
jax.set_mesh(mesh)
x = jax.device_put(jnp.ones((8, 4)), P("data"))
if len(sys.argv) > 5:
    jax.set_mesh(other)
maybe = x * 2

for _ in range(len(sys.argv)):
    jax.set_mesh(mesh)
again = x * 3


def use_other():
    jax.set_mesh(other)


jax.set_mesh(mesh)
use_other()
made_after = jnp.ones((8, 4)) * 2
with jax.set_mesh(other):
    fine = made_after + 1
with jax.set_mesh(mesh):
    legacy_inner = x * 2
