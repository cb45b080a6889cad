"""equinox as a program uses it: an ensemble built and applied with filter_vmap, the model split into its arrays
and the rest, a field replaced with tree_at, a gradient step with apply_updates, layers composed in Sequential."""

import equinox as eqx
import jax
import jax.numpy as jnp


class Readout(eqx.Module):
    weight: jax.Array
    bias: jax.Array
    temperature: float

    def __call__(self, x):
        return (self.weight @ x + self.bias) / self.temperature  # expect: NC201


def make_readout(key):
    return Readout(jax.random.normal(key, (3, 4)), jnp.zeros(3), 2.0)


keys = jax.random.split(jax.random.key(0), 5)
ensemble = eqx.filter_vmap(make_readout)(keys)
stacked = ensemble.weight  # reveal: f32[(5, 3, 4)]
votes = eqx.filter_vmap(lambda m, x: m(x), in_axes=(eqx.if_array(0), None))(ensemble, jnp.ones(4))  # reveal: f32[(5, 3)]
readout = make_readout(keys[0])
scores = eqx.filter_vmap(readout)(jnp.ones((7, 4)))  # reveal: f32[(7, 3)]
ragged = eqx.filter_vmap(lambda a, b: a * b)(jnp.ones((3, 2)), jnp.ones((4, 2)))  # expect: NC403
scalar = eqx.filter_vmap(lambda a: a + 1)(jnp.float32(1.0))  # expect: NC402

arrays, rest = eqx.partition(readout, eqx.is_array)
kept = arrays.bias  # reveal: f32[(3,)]
whole = eqx.combine(arrays, rest)
again = whole(jnp.ones(4))  # reveal: f32[(3,)]
only_arrays = eqx.filter(readout, eqx.is_array)
grads = eqx.filter_grad(lambda m, x: jnp.sum(m(x)))(readout, jnp.ones(4))
weight_grad = grads.weight  # reveal: f32[(3, 4)]
loss, more_grads = eqx.filter_value_and_grad(lambda m, x: jnp.sum(m(x)))(readout, jnp.ones(4))
bias_grad = more_grads.bias  # reveal: f32[(3,)]
stepped = eqx.apply_updates(readout, grads)
step_weight = stepped.weight  # reveal: f32[(3, 4)]

shifted = eqx.tree_at(lambda m: m.bias, readout, jnp.ones(3))
shifted_out = shifted(jnp.ones(4))  # reveal: f32[(3,)]
widened = eqx.tree_at(lambda m: m.weight, readout, jnp.ones((5, 4)))
widened_out = widened(jnp.ones(4))  # JAX raises in __call__ (reported there, "called here")
rescaled = eqx.tree_at(lambda m: (m.weight, m.bias), readout, replace_fn=lambda a: 2 * a)
rescaled_out = rescaled(jnp.ones(4))  # reveal: f32[(3,)]


@eqx.filter_vmap(in_axes=(None, 0))
def score_batch(model, x):
    return model(x)


batch_scores = score_batch(readout, jnp.ones((6, 4)))  # reveal: f32[(6, 3)]

mlp = eqx.nn.Sequential(
    [
        eqx.nn.Linear(4, 8, key=keys[1]),
        eqx.nn.Lambda(jax.nn.relu),
        eqx.nn.Linear(8, 2, key=keys[2]),
    ]
)
hidden = mlp(jnp.ones(4))  # reveal: f32[(2,)]
too_wide = mlp(jnp.ones(6))  # expect: NC203

projection = eqx.nn.Linear(4, 8, key=keys[3])
kernel = projection.weight  # reveal: f32[(8, 4)]
head = eqx.nn.MLP(4, "scalar", 16, 2, key=keys[4])
first_kernel = head.layers[0].weight  # reveal: f32[(16, 4)]
last_bias = head.layers[-1].bias  # reveal: f32[(1,)]
filters = eqx.nn.Conv2d(3, 8, 3, key=keys[0]).weight  # reveal: f32[(8, 3, 3, 3)]


class NormedBlock(eqx.Module):
    linear: eqx.nn.Linear
    norm: eqx.nn.BatchNorm

    def __init__(self, key):
        self.linear = eqx.nn.Linear(4, 6, key=key)
        self.norm = eqx.nn.BatchNorm(6, "batch")

    def __call__(self, x, state):
        h, state = self.norm(self.linear(x), state)
        return h, state


block, block_state = eqx.nn.make_with_state(NormedBlock)(keys[0])
normed, block_state = jax.vmap(block, axis_name="batch", in_axes=(0, None), out_axes=(0, None))(
    jnp.ones((8, 4)), block_state
)
checked = eqx.error_if(normed, jnp.isnan(normed).any(), "the block produced NaNs")  # reveal: f32[(8, 6)]
doubled, tangent = eqx.filter_jvp(lambda x: 2 * x, (jnp.ones(3),), (jnp.ones(3),))
tangent_out = tangent  # reveal: f32[(3,)]
gram = eqx.filter_eval_shape(lambda x: x @ x.T, jnp.ones((3, 4)))

smoother = eqx.nn.Conv1d(1, 3, kernel_size=3, padding=1, key=keys[0])
box_kernel = jnp.full((3, 1, 3), 1.0 / 3.0)
smoother = eqx.tree_at(lambda c: (c.weight, c.bias), smoother, (box_kernel, jnp.zeros((3, 1))))
smoothed = smoother(jnp.ones((1, 6)))  # reveal: f32[(3, 6)]
noisy = eqx.tree_at(lambda d: d.inference, eqx.nn.Dropout(0.2, inference=True), replace=False)
dropped = noisy(jnp.ones(3), key=keys[1])  # reveal: f32[(3,)]


@eqx.filter_vmap
def make_committee(key):
    return eqx.nn.MLP(2, 3, 16, 2, key=key)


committee = make_committee(jax.random.split(keys[2], 8))
first_layers = committee.layers[0].weight  # reveal: f32[(8, 16, 2)]
opinions = eqx.filter_vmap(lambda m, x: m(x), in_axes=(eqx.if_array(0), None))(committee, jnp.ones(2))  # reveal: f32[(8, 3)]
off_size = eqx.filter_vmap(lambda m, x: m(x), in_axes=(eqx.if_array(0), None))(committee, jnp.ones(5))  # expect: NC203
probes = eqx.filter_vmap(lambda k: eqx.nn.Linear(4, 2, key=k))(jax.random.split(keys[3], 3))
probe_out = eqx.filter_vmap(lambda m, x: m(x))(probes, jnp.ones((3, 4)))  # reveal: f32[(3, 2)]
uneven = eqx.filter_vmap(lambda m, x: m(x))(probes, jnp.ones((5, 4)))  # expect: NC403

import equinox.internal as eqxi  # noqa: E402

doubled_until = eqxi.while_loop(lambda c: c[0] < 5, lambda c: (c[0] + 1, 2 * c[1]), (0, jnp.ones(3)), max_steps=8, kind="checkpointed")
state_out = doubled_until[1]  # reveal: f32[(3,)]
shrinking = eqxi.while_loop(lambda c: c.sum() < 5, lambda c: c[:2], jnp.ones(3), max_steps=8, kind="lax")  # expect: NC408
