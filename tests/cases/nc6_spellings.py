# Other spellings of meshes and shard_map: jax.make_mesh, jax.set_mesh, the experimental shard_map
# (positional mesh, check_rep), mesh_utils, pytree-prefix specs and axis mappings.
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import mesh_utils
from jax.experimental.maps import xmap
from jax.experimental.shard_map import shard_map
from jax.sharding import Mesh, PartitionSpec

from namedcheck import f32

mesh = jax.make_mesh((4, 2), ('x', 'y'))
a = jnp.zeros((8, 6))

old = shard_map(lambda v: lax.psum(v, 'x'), mesh, in_specs=PartitionSpec('x'), out_specs=PartitionSpec())(a)  # reveal: f32[(2, 6)]
unchecked = shard_map(lambda v: v, mesh, in_specs=PartitionSpec('x'), out_specs=PartitionSpec(), check_rep=False)(a)
wrong_old = shard_map(lambda v: v, mesh, in_specs=PartitionSpec('x'), out_specs=PartitionSpec())  # expect: NC601
wrong_old(a)

devices = mesh_utils.create_device_mesh((2, 4))
other = Mesh(devices, ('i', 'j'))
with jax.set_mesh(other):
    pair = jax.shard_map(lambda u, v: (u, v), in_specs=PartitionSpec('i'), out_specs=PartitionSpec('i'))(a, a)
    first, second = pair
    ff = first  # reveal: f32[(8, 6)]
    bad = jax.shard_map(lambda u: u, in_specs=PartitionSpec('j'), out_specs=PartitionSpec())  # expect: NC601
    bad(a)


def swap(pair_of_arrays):
    u, v = pair_of_arrays
    return v, u


def right_pytree_prefix(x: f32[(4, 3)], y: f32[(4, 5)]) -> None:
    out = xmap(swap, in_axes=(['i', ...],), out_axes=['i', ...])((x, y))
    p, q = out
    pp = p  # reveal: f32[(4, 5)]
    qq = q  # reveal: f32[(4, 3)]
