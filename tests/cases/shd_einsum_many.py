"""einsum of three or more operands (contracted pairwise in opt_einsum's order): known where the order cannot
matter (no sharded contracted letter, each output letter split alike wherever it occurs); else Unknown."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((4, 2), ('data', 'model'))
jax.set_mesh(mesh)
a = jax.device_put(jnp.ones((8, 4)), P('data'))
b = jnp.ones((4, 6))
c = jnp.ones((6, 2))
bm = jax.device_put(jnp.ones((4, 6)), P(None, 'model'))
cm = jax.device_put(jnp.ones((6, 2)), P('model'))
r = jnp.ones((8, 4))
chain = jnp.einsum('ij,jk,kl->il', a, b, c)  # reveal: f32[(8@data, 2)]
chain_r = jnp.einsum('ij,jk,kl->il', r, b, c)  # reveal: f32[(8, 2)]
free = jnp.einsum('ij,jk,kl->ijl', a, b, c)  # reveal: f32[(8@data, 4, 2)]
same = jnp.einsum('ij,ij,ij->i', a, a, a)  # reveal: f32[(8@data,)]
jitted = jax.jit(lambda p, q, s: jnp.einsum('ij,jk,kl->il', p, q, s))(a, b, c)  # reveal: f32[(8@data, 2)]
one_side = jnp.einsum('ij,jk,kl->il', a, bm, c)
mixed_batch = jnp.einsum('bij,bjk,bkl->bil', jax.device_put(jnp.ones((8, 4, 4)), P('data')), jnp.ones((8, 4, 4)), jnp.ones((8, 4, 4)))
