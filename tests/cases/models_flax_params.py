"""flax linen parameters: `init` makes them for its inputs; `apply` on inputs (or a model) of other sizes is NC305."""
from typing import Callable

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from flax.training import train_state


class MLP(nn.Module):
    hidden: int

    @nn.compact
    def __call__(self, x):
        x = nn.relu(nn.Dense(self.hidden)(x))
        return nn.Dense(2)(x)


model = MLP(hidden=16)
variables = model.init(jax.random.key(0), jnp.ones((4, 8)))
params = variables["params"]
k = params["Dense_1"]["kernel"]  # reveal: f32[(16, 2)]
state = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.adam(1e-3))


def loss_fn(p, x):
    return jnp.mean(state.apply_fn({"params": p}, x) ** 2)


grads = jax.grad(loss_fn)(state.params, jnp.ones((4, 8)))
state = state.apply_gradients(grads=grads)
ok = state.apply_fn({"params": state.params}, jnp.ones((3, 8)))  # reveal: f32[(3, 2)]
bad = state.apply_fn({"params": state.params}, jnp.ones((3, 7)))  # expect: NC305
new_params = optax.apply_updates(params, grads)
bad2 = model.apply({"params": new_params}, jnp.ones((3, 7)))  # expect: NC305
bad3 = MLP(hidden=32).apply(variables, jnp.ones((4, 8)))  # expect: NC305
layer = nn.Dense(3)
lv = layer.init(jax.random.key(0), jnp.ones((2, 5)))
lk = lv["params"]["kernel"]  # reveal: f32[(5, 3)]
bad4 = layer.apply(lv, jnp.ones((2, 4)))  # expect: NC305


class Block(nn.Module):
    features: int

    def setup(self):
        self.layers = [nn.Dense(self.features), nn.Dense(self.features)]
        self.norm = nn.LayerNorm()

    def __call__(self, x):
        for layer in self.layers:
            x = nn.relu(layer(x))
        return self.norm(x)


class Encoder(nn.Module):
    vocab: int
    width: int

    @nn.compact
    def __call__(self, tokens, images):
        h = nn.Embed(self.vocab, self.width)(tokens)
        g = nn.Conv(self.width, (3, 3))(images).mean(axis=(1, 2))
        scale = self.param("scale", nn.initializers.ones, (self.width,))
        h = Block(self.width, name="block")(h + g[:, None, :]) * scale
        return nn.Dense(self.vocab, use_bias=False)(h)


encoder = Encoder(vocab=50, width=16)
tokens = jnp.zeros((2, 7), jnp.int32)
images = jnp.ones((2, 8, 8, 3))
ev = encoder.init(jax.random.key(1), tokens, images)
emb = ev["params"]["Embed_0"]["embedding"]  # reveal: f32[(50, 16)]
conv_kernel = ev["params"]["Conv_0"]["kernel"]  # reveal: f32[(3, 3, 3, 16)]
second = ev["params"]["block"]["layers_1"]["kernel"]  # reveal: f32[(16, 16)]
scale = ev["params"]["scale"]  # reveal: f32[(16,)]
out = encoder.apply(ev, tokens, images)  # reveal: f32[(2, 7, 50)]
longer = encoder.apply(ev, jnp.zeros((3, 9), jnp.int32), jnp.ones((3, 10, 10, 3)))  # reveal: f32[(3, 9, 50)]
gray = encoder.apply(ev, tokens, jnp.ones((2, 8, 8, 1)))  # expect: NC305
wider = Encoder(vocab=50, width=32).apply(ev, tokens, images)  # expect: NC305
bigger_vocab = Encoder(vocab=60, width=16).apply(ev, tokens, images)  # expect: NC305


import pickle  # noqa: E402

hand_built = {"params": {"Dense_0": {"kernel": jnp.ones((7, 16)), "bias": jnp.ones((16,))}}}
hand = model.apply(hand_built, jnp.ones((3, 8)))  # expect: NC305
from_disk = model.apply(pickle.loads(pickle.dumps(variables)), jnp.ones((3, 8)))  # reveal: f32[(3, 2)]
from flax.core import freeze, unfreeze  # noqa: E402

frozen = model.apply(freeze(variables), jnp.ones((3, 7)))  # expect: NC305
thawed = model.apply(unfreeze(variables), jnp.ones((3, 8)))  # reveal: f32[(3, 2)]
jitted = jax.jit(model.apply)(variables, jnp.ones((3, 7)))  # expect: NC305

conv = nn.Conv(4, (3, 3))
conv_vars = conv.init(jax.random.key(3), jnp.ones((2, 8, 8, 3)))
per_image = jax.vmap(lambda im: conv.apply(conv_vars, im))(jnp.ones((5, 8, 8, 3)))  # reveal: f32[(5, 8, 8, 4)]
unbatched = conv.apply(conv_vars, jnp.ones((8, 8, 3)))  # reveal: f32[(8, 8, 4)]


class Proj(nn.Module):
    features: int
    kernel_init: Callable = nn.initializers.lecun_normal()

    @nn.compact
    def __call__(self, x):
        w = self.param("kernel", self.kernel_init, (x.shape[-1], self.features))
        return x @ w


proj = Proj(4)
pv = proj.init(jax.random.key(0), jnp.ones((2, 3)))
pk = pv["params"]["kernel"]  # reveal: f32[(3, 4)]
bad5 = proj.apply(pv, jnp.ones((6, 5)))  # expect: NC305
