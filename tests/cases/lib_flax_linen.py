"""flax linen beyond its layers: `self.param` with any initializer, `self.variable` collections, BatchNorm's
`batch_stats`, `apply(..., method=)`, `nn.apply` / `bind`, lifted `nn.remat` / `nn.jit` module classes,
`flax.jax_utils.replicate` / `unreplicate` and a TrainState's parameters. tests/test_flax_under_jax.py runs every
statement under JAX and flax: it raises exactly on the lines with an `expect`, and every `reveal` is the shape it
computes."""

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"

import flax.linen as nn  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import optax  # noqa: E402
from flax import jax_utils  # noqa: E402
from flax.training import common_utils, train_state  # noqa: E402


class Tower(nn.Module):
    width: int
    classes: int = 4

    @nn.compact
    def __call__(self, x, train: bool = False):
        x = nn.Dense(self.width)(x)
        x = nn.BatchNorm(use_running_average=not train)(x)
        seen = self.variable("stats", "seen", jnp.zeros, (), jnp.int32)
        if train:
            seen.value += 1
        w = self.param("w_out", lambda key, shape: jnp.zeros(shape), (self.width, self.classes))
        b = self.param("b_out", nn.initializers.zeros_init(), (self.classes,))
        return nn.relu(x) @ w + b


class Encoder(nn.Module):
    width: int

    def setup(self):
        self.embed = nn.Dense(self.width)
        self.head = nn.Dense(2)

    def __call__(self, x):
        return self.head(self.embed(x))

    def encode(self, x):
        return self.embed(x)


tower = Tower(width=24)
key = jax.random.key(0)
variables = tower.init(key, jnp.ones((8, 10)))
dense_kernel = variables["params"]["Dense_0"]["kernel"]  # reveal: f32[(10, 24)]
bn_scale = variables["params"]["BatchNorm_0"]["scale"]  # reveal: f32[(24,)]
bn_mean = variables["batch_stats"]["BatchNorm_0"]["mean"]  # reveal: f32[(24,)]
seen = variables["stats"]["seen"]  # reveal: i32[()]
out_w = variables["params"]["w_out"]  # reveal: f32[(24, 4)]
logits = tower.apply(variables, jnp.ones((3, 10)))  # reveal: f32[(3, 4)]
wider = tower.apply(variables, jnp.ones((3, 11)))  # expect: NC305
other_width = Tower(width=32).apply(variables, jnp.ones((3, 10)))  # expect: NC305
logits_train, updates = tower.apply(variables, jnp.ones((3, 10)), train=True, mutable=["batch_stats", "stats"])

encoder = Encoder(width=16)
enc_vars = encoder.init(key, jnp.ones((2, 10)))
enc_head = enc_vars["params"]["head"]["kernel"]  # reveal: f32[(16, 2)]
encoded = encoder.apply(enc_vars, jnp.ones((5, 10)), method=Encoder.encode)  # reveal: f32[(5, 16)]
by_name = encoder.apply(enc_vars, jnp.ones((5, 10)), method="encode")  # reveal: f32[(5, 16)]
via_fn = nn.apply(lambda m, x: m.encode(x), encoder)(enc_vars, jnp.ones((6, 10)))  # reveal: f32[(6, 16)]
bound = tower.bind(variables)
bound_out = bound(jnp.ones((7, 10)))  # reveal: f32[(7, 4)]
bound_bad = tower.bind(variables)(jnp.ones((7, 9)))  # expect: NC305

RematTower = nn.remat(Tower)
remat_vars = RematTower(width=6).init(key, jnp.ones((2, 3)))
remat_kernel = remat_vars["params"]["Dense_0"]["kernel"]  # reveal: f32[(3, 6)]
remat_out = RematTower(width=6).apply(remat_vars, jnp.ones((4, 3)))  # reveal: f32[(4, 4)]

replicated = jax_utils.replicate(variables["params"])
per_device = replicated["w_out"]  # reveal: f32[(8, 24, 4)]
single = jax_utils.unreplicate(replicated)["Dense_0"]["bias"]  # reveal: f32[(24,)]

state = train_state.TrainState.create(apply_fn=tower.apply, params=variables["params"], tx=optax.sgd(0.1))
grads = jax.tree.map(jnp.zeros_like, state.params)
state = state.apply_gradients(grads=grads)
after_step = state.params["Dense_0"]["kernel"]  # reveal: f32[(10, 24)]
stats = variables["batch_stats"]
served = state.apply_fn({"params": state.params, "batch_stats": stats, "stats": variables["stats"]}, jnp.ones((2, 10)))  # reveal: f32[(2, 4)]
served_bad = state.apply_fn({"params": state.params, "batch_stats": stats}, jnp.ones((2, 5)))  # expect: NC305


class Tagger(nn.Module):
    hidden: int

    @nn.compact
    def __call__(self, carry, x):
        return nn.LSTMCell(self.hidden)(carry, x)


cell = nn.LSTMCell(features=12)
carry0 = cell.initialize_carry(key, (5, 3))
c0 = carry0[0]  # reveal: f32[(5, 12)]
tagger = Tagger(hidden=12)
tagger_vars = tagger.init(key, carry0, jnp.ones((5, 3)))
(c1, h1), y1 = tagger.apply(tagger_vars, carry0, jnp.ones((5, 3)))
step_out = y1  # reveal: f32[(5, 12)]
tokens = jnp.ones((2, 7), jnp.int32)
causal = nn.make_causal_mask(tokens)  # reveal: f32[(2, 1, 7, 7)]
padding = nn.make_attention_mask(tokens > 0, jnp.ones((2, 4)) > 0)  # reveal: f32[(2, 1, 7, 4)]
group_norm = nn.GroupNorm(num_groups=4)
group_vars = group_norm.init(key, jnp.ones((2, 6, 8)))
group_scale = group_vars["params"]["scale"]  # reveal: f32[(8,)]
grouped = group_norm.apply(group_vars, jnp.ones((3, 5, 8)))  # reveal: f32[(3, 5, 8)]


class Stem(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Conv(16, (7, 7), (2, 2), padding=[(3, 3), (3, 3)])(x)
        x = nn.Conv(16, (3, 3), strides=2)(x)
        x = nn.max_pool(x, (3, 3), strides=(2, 2), padding="SAME")
        y = nn.Conv(8, (3, 3), padding="VALID")(x)
        return nn.avg_pool(y, (2, 2), strides=(2, 2))


stem = Stem()
stem_vars = stem.init(key, jnp.ones((1, 32, 32, 3)))
stem_out = stem.apply(stem_vars, jnp.ones((2, 32, 32, 3)))  # reveal: f32[(2, 1, 1, 8)]
strided = nn.Conv(4, (3, 3), strides=(2, 2)).init_with_output(key, jnp.ones((1, 9, 9, 2)))[0]  # reveal: f32[(1, 5, 5, 4)]
pooled = nn.max_pool(jnp.ones((4, 10, 10, 3)), (2, 2), strides=(2, 2))  # reveal: f32[(4, 5, 5, 3)]

head_net = nn.Sequential([nn.Dense(16), nn.relu, nn.Dense(3)])
head_vars = head_net.init(key, jnp.ones((2, 5)))
head_out = head_net.apply(head_vars, jnp.ones((4, 5)))  # reveal: f32[(4, 3)]
jitted_tower = nn.jit(Tower)(width=24)
jit_out = jitted_tower.apply(variables, jnp.ones((3, 10)))  # reveal: f32[(3, 4)]
jit_bad = jitted_tower.apply(variables, jnp.ones((3, 12)))  # expect: NC305
batch_shards = common_utils.shard(jnp.ones((16, 10)))  # reveal: f32[(8, 2, 10)]
