# A device layout that may not run (a try body, a branch, a loop) says nothing about the device count.
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh

try:
    mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("data", "model"))
except ValueError:  # not 4 devices
    mesh = jax.make_mesh((4, 2), ("data", "model"))

if jax.device_count() == 16:
    big = Mesh(np.array(jax.devices()).reshape(8, 2), ("data", "model"))

for shape in [(2, 4)]:
    tried = Mesh(np.array(jax.devices()).reshape(16, 1), ("data", "model")) if len(shape) == 9 else None

per_device = jnp.zeros((jax.device_count(),))
grid = per_device.reshape(4, 2)
n = len(jax.devices())
