"""flax linen's `nn.vmap` of a module class (a library layer or the program's own): its call is `jax.vmap` of the
class's, named `Vmap<Class>` by flax, and its parameters get the mapped axis where `variable_axes` maps them (None:
shared by every slice). tests/test_flax_under_jax.py runs every statement under JAX and flax."""

import flax.linen as nn
import jax
import jax.numpy as jnp

VmapDense = nn.vmap(nn.Dense, in_axes=0, out_axes=0, variable_axes={"params": 0}, split_rngs={"params": True})
variables = VmapDense(3).init(jax.random.key(0), jnp.ones((4, 2, 5)))
kernel = variables["params"]["kernel"]  # reveal: f32[(4, 5, 3)]
y = VmapDense(3).apply(variables, jnp.ones((4, 2, 5)))  # reveal: f32[(4, 2, 3)]
Shared = nn.vmap(nn.Dense, in_axes=1, out_axes=1, variable_axes={"params": None}, split_rngs={"params": False})
shared = Shared(3).init(jax.random.key(0), jnp.ones((2, 4, 5)))
skernel = shared["params"]["kernel"]  # reveal: f32[(5, 3)]
sy = Shared(3).apply(shared, jnp.ones((2, 4, 5)))  # reveal: f32[(2, 4, 3)]


class M(nn.Module):
    @nn.compact
    def __call__(self, x):
        y = nn.vmap(nn.Dense, in_axes=0, out_axes=0, variable_axes={"params": 0}, split_rngs={"params": True})(7)(x)
        return nn.Dense(2)(y)


mv = M().init(jax.random.key(0), jnp.ones((4, 2, 5)))
mk = mv["params"]["VmapDense_0"]["kernel"]  # reveal: f32[(4, 5, 7)]
dk = mv["params"]["Dense_0"]["kernel"]  # reveal: f32[(7, 2)]
mo = M().apply(mv, jnp.ones((4, 2, 5)))  # reveal: f32[(4, 2, 2)]


class Blk(nn.Module):
    f: int

    @nn.compact
    def __call__(self, x):
        return nn.relu(nn.Dense(self.f)(x))


VB = nn.vmap(Blk, in_axes=0, out_axes=0, variable_axes={"params": 0}, split_rngs={"params": True}, axis_size=4)
bv = VB(6).init(jax.random.key(0), jnp.ones((4, 5)))
bk = bv["params"]["Dense_0"]["kernel"]  # reveal: f32[(4, 5, 6)]
bo = VB(6).apply(bv, jnp.ones((4, 5)))  # reveal: f32[(4, 6)]
wrong = VmapDense(3).apply(variables, jnp.ones((4, 2, 6)))  # expect: NC305


class S(nn.Module):
    def setup(self):
        self.heads = nn.vmap(
            Blk, in_axes=None, out_axes=0, variable_axes={"params": 0}, split_rngs={"params": True}, axis_size=3
        )(5)

    def __call__(self, x):
        return self.heads(x)


sv = S().init(jax.random.key(0), jnp.ones((2, 4)))
head_bias = sv["params"]["heads"]["Dense_0"]["bias"]  # reveal: f32[(3, 5)]
ho = S().apply(sv, jnp.ones((2, 4)))  # reveal: f32[(3, 2, 5)]
