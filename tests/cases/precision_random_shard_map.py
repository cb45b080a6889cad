# jax.random samplers inside shard_map with keys and parameters of different varying sets: JAX 0.10 accepts
# all of these (an invariant key with per-shard shapes or parameters, a key folded with axis_index, varying
# keys and logits); the checker must stay silent. tests/test_map_arguments_under_jax.py runs each one.
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

mesh = Mesh(np.array(jax.devices()), ("i",))


def noise_like(key, x):
    return x + jax.random.normal(key, x.shape)


def right_invariant_key_sharded_shape():
    return jax.shard_map(noise_like, mesh=mesh, in_specs=(P(), P("i")), out_specs=P("i"))(
        jax.random.key(0), jnp.ones(8)
    )


def right_invariant_key_replicated_result():
    f = jax.shard_map(lambda k, x: jax.random.normal(k, x.shape), mesh=mesh, in_specs=(P(), P("i")), out_specs=P())
    return f(jax.random.key(0), jnp.ones(8))


def per_shard_noise(key, x):
    key = jax.random.fold_in(key, lax.axis_index("i"))
    return jax.random.normal(key, x.shape)


def right_fold_in_axis_index():
    return jax.shard_map(per_shard_noise, mesh=mesh, in_specs=(P(), P("i")), out_specs=P("i"))(
        jax.random.key(0), jnp.ones(8)
    )


def right_uniform_varying_bounds():
    f = jax.shard_map(
        lambda k, x: jax.random.uniform(k, x.shape, minval=x, maxval=x + 1.0),
        mesh=mesh,
        in_specs=(P(), P("i")),
        out_specs=P("i"),
    )
    return f(jax.random.key(0), jnp.ones(8))


def right_bernoulli_varying_probability():
    f = jax.shard_map(lambda k, p: jax.random.bernoulli(k, p), mesh=mesh, in_specs=(P(), P("i")), out_specs=P("i"))
    return f(jax.random.key(0), jnp.full(8, 0.5))


def right_categorical_varying_logits():
    f = jax.shard_map(
        lambda k, logits: jax.random.categorical(k, logits), mesh=mesh, in_specs=(P(), P("i")), out_specs=P("i")
    )
    return f(jax.random.key(0), jnp.ones((8, 5)))


def right_varying_keys():
    f = jax.shard_map(
        lambda ks, x: jax.random.normal(ks[0], x.shape), mesh=mesh, in_specs=(P("i"), P("i")), out_specs=P("i")
    )
    return f(jax.random.split(jax.random.key(0), 8), jnp.ones(8))


def right_split_invariant_key():
    def body(k, x):
        k1, k2 = jax.random.split(k)
        return x * jax.random.uniform(k1, x.shape) + jax.random.normal(k2, x.shape)

    return jax.shard_map(body, mesh=mesh, in_specs=(P(), P("i")), out_specs=P("i"))(jax.random.key(0), jnp.ones(8))
