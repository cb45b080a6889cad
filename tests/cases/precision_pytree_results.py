# Dict and nested pytree results flowing out of vmap / xmap / shard_map / scan, then indexed.
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

from namedcheck import xmap

mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))


def rollout_stats(obs):
    return {"reward": obs.sum(), "value": obs * 2.0}


obs = jnp.ones((16, 4))
reward = jax.vmap(rollout_stats)(obs)["reward"]  # reveal: f32[(16,)]
value = jax.vmap(rollout_stats)(obs)["value"]  # reveal: f32[(16, 4)]
advantage = reward + value.mean(axis=1)  # reveal: f32[(16,)]
bad_advantage = reward + jnp.ones((4,))  # expect: NC201


def heads(obs):
    return {"policy": obs}, ({"baseline": obs.sum()}, obs[:2])


out = jax.vmap(heads)(obs)
policy = out[0]["policy"]  # reveal: f32[(16, 4)]
baseline = out[1][0]["baseline"]  # reveal: f32[(16,)]
first_two = out[1][1]  # reveal: f32[(16, 2)]
per_axis = jax.vmap(heads, out_axes=({"policy": 1}, 0))  # a dict out_axes entry: not modelled, stays silent
left = per_axis(obs)[1][1]


def moments(x):
    return {"mean": x.mean(), "sq": (x * x).mean()}


stats = xmap(moments, in_axes=["rows", ...], out_axes=["rows", ...])(jnp.ones((8, 3)))
mean_per_row = stats["mean"]  # reveal: f32[(8,)]


@partial(jax.shard_map, mesh=mesh, in_specs=P("data"), out_specs={"total": P(), "local": P("data")})
def summarize(x):
    return {"total": lax.psum(x.sum(), "data"), "local": x * 2.0}


summary = summarize(jnp.ones((8, 2)))


def accumulate(carry, batch):
    return carry + batch["x"].sum(), {"sq": batch["x"] ** 2}


total, per_step = lax.scan(accumulate, jnp.float32(0.0), {"x": jnp.ones((5, 3))})
squares = per_step["sq"]  # reveal: f32[(5, 3)]


# --- dict prefixes of pytree arguments, dict carries and branch outputs
by_key = xmap(lambda d: ({"a": d["x"]}, (d["x"],)), in_axes=({"x": ["i", ...]},), out_axes=(["i", ...], (["i", ...],)))(
    {"x": jnp.ones((8, 2))}
)
params = {"w": jnp.ones((3, 4)), "b": jnp.zeros((4,))}
doubled = lax.cond(True, lambda p: {"w": p["w"] * 2}, lambda p: {"w": p["w"]}, params)["w"]
stepped = lax.fori_loop(0, 3, lambda i, p: {"w": p["w"] + 1, "b": p["b"]}, params)["w"]
picked = lax.switch(0, [lambda p: {"w": p["w"]}, lambda p: {"w": p["w"] + 1}], params)["w"]
inner = jax.vmap(lambda t: t)({"a": {"b": (jnp.ones(3), {"c": jnp.ones(3)})}})["a"]["b"][1]["c"]  # reveal: f32[(3,)]
ragged = jax.vmap(lambda t: t)({"a": (jnp.ones(3), {"c": jnp.ones(2)})})  # expect: NC403
