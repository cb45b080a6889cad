"""Pytrees users build (NamedTuples, flax struct dataclasses, equinox modules, dicts) mapped with
`jax.tree.map` / `jax.tree_util.tree_map`, flattened with `tree_leaves`; methods and properties of user
classes; `functools.partial` chains."""

import dataclasses
import functools
from typing import NamedTuple

import equinox as eqx
import flax.struct
import jax
import jax.numpy as jnp


class Batch(NamedTuple):
    image: jax.Array
    label: jax.Array


@flax.struct.dataclass
class TrainState:
    params: dict
    momentum: dict
    step: int = flax.struct.field(pytree_node=False, default=0)

    @property
    def hidden(self):
        return self.params["w1"].shape[1]

    def apply(self, x):
        return jnp.tanh(x @ self.params["w1"]) @ self.params["w2"]


class Linear(eqx.Module):
    weight: jax.Array
    bias: jax.Array
    name: str = eqx.field(static=True, default="linear")

    def __call__(self, x):
        return x @ self.weight + self.bias


def init_state(d_in, d_hidden, d_out):
    params = {"w1": jnp.ones((d_in, d_hidden)), "w2": jnp.ones((d_hidden, d_out))}
    return TrainState(params, jax.tree.map(jnp.zeros_like, params))


def sgd(state, grads, lr):
    momentum = jax.tree.map(lambda m, g: 0.9 * m + g, state.momentum, grads)
    params = jax.tree_util.tree_map(lambda p, m: p - lr * m, state.params, momentum)
    return state.replace(params=params, momentum=momentum, step=state.step + 1)


def right_named_tuple_batch():
    batch = Batch(jnp.ones((16, 28, 28)), jnp.zeros((16,), jnp.int32))
    flat = jax.tree.map(lambda a: a.reshape(a.shape[0], -1), batch)
    image = flat.image  # reveal: f32[(16, 784)]
    images, labels = batch
    n = labels  # reveal: i32[(16,)]
    last = batch[-1]  # reveal: i32[(16,)]
    return image, images, n, last


def wrong_named_tuple_batch():
    batch = Batch(jnp.ones((16, 28, 28)), jnp.zeros((16,), jnp.int32))
    flat = jax.tree.map(lambda a: a.reshape(a.shape[0], -1), batch)
    w = jnp.ones((28 * 28 * 3, 10))
    return flat.image @ w  # expect: NC203


def right_struct_state():
    state = init_state(4, 8, 2)
    doubled = jax.tree.map(lambda a: 2 * a, state)
    w1 = doubled.params["w1"]  # reveal: f32[(4, 8)]
    width = state.hidden  # reveal: Const(value=8)
    out = state.apply(jnp.ones((3, 4)))  # reveal: f32[(3, 2)]
    leaves = jax.tree_util.tree_leaves(state)
    count = len(leaves)  # reveal: Const(value=4)
    return w1, width, out, count


def wrong_struct_state_width():
    state = init_state(4, 8, 2)
    scale = jnp.ones((state.hidden + 1,))
    return jnp.ones((3, 4)) @ state.params["w1"] * scale  # expect: NC201


def right_struct_update():
    state = init_state(4, 8, 2)
    grads = jax.tree.map(jnp.ones_like, state.params)
    mapped = jax.tree.map(lambda p, g: p - 0.1 * g, state, state.replace(params=grads))
    w2 = mapped.params["w2"]  # reveal: f32[(8, 2)]
    new = sgd(state, grads, 0.1)
    moved = new.momentum["w1"]  # reveal: f32[(4, 8)]
    return w2, moved


def wrong_struct_replace():
    state = init_state(4, 8, 2)
    state = state.replace(params=jax.tree.map(lambda a: a.T, state.params))
    return jnp.ones((3, 4)) @ state.params["w1"]  # expect: NC203


def right_equinox_module():
    layer = Linear(jnp.ones((5, 3)), jnp.zeros((3,)))
    halved = jax.tree.map(lambda a: a / 2, layer)
    y = halved(jnp.ones((2, 5)))  # reveal: f32[(2, 3)]
    return y


def wrong_equinox_module():
    layer = Linear(jnp.ones((5, 3)), jnp.zeros((3,)))
    widened = jax.tree.map(lambda a: jnp.concatenate([a, a], axis=-1), layer)
    return widened.weight + layer.bias  # expect: NC201


def dense(x, w, b, *, activation, scale=1.0):
    return activation(x @ w + b) * scale  # expect: NC203


def right_partial_chain():
    w, b = jnp.ones((6, 4)), jnp.zeros((4,))
    layer = functools.partial(dense, w=w, activation=jax.nn.relu)
    scaled = functools.partial(layer, b=b, scale=0.5)
    again = functools.partial(scaled, activation=jnp.tanh)
    y = again(jnp.ones((2, 6)))  # reveal: f32[(2, 4)]
    return y


def wrong_partial_chain():
    w, b = jnp.ones((6, 4)), jnp.zeros((4,))
    layer = functools.partial(dense, w=w, activation=jax.nn.relu)
    scaled = functools.partial(layer, b=b)
    return scaled(jnp.ones((2, 5)))


class Tokens:
    def __init__(self, chars, max_len):
        self.chars = chars
        self.max_len = max_len
        self.table = jnp.eye(self.vocab_size)

    @property
    def vocab_size(self):
        return len(self.chars) + 2

    @property
    def input_shape(self):
        return (1, self.max_len, self.vocab_size)

    def one_hot(self, ids):
        return self.table[ids]


def right_properties_in_init():
    tokens = Tokens("0123456789+=", 7)
    table = tokens.table  # reveal: f32[(14, 14)]
    probe = jnp.zeros(tokens.input_shape)  # reveal: f32[(1, 7, 14)]
    return tokens.one_hot(jnp.zeros((3,), jnp.int32)) @ table, probe


def wrong_properties_in_init():
    tokens = Tokens("0123456789", 5)
    w = jnp.ones((14, 4))
    return tokens.table @ w  # expect: NC203


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Adam:
    mu: jax.Array
    nu: jax.Array
    count: jax.Array


def right_registered_dataclass():
    opt = Adam(jnp.zeros((4, 3)), jnp.zeros((4, 3)), jnp.zeros((), jnp.int32))
    leaves, treedef = jax.tree_util.tree_flatten(opt)
    first = leaves[0]  # reveal: f32[(4, 3)]
    bumped = dataclasses.replace(opt, count=opt.count + 1)
    step = bumped.count  # reveal: i32[()]
    scaled = jax.tree.map(lambda a: a * 0.5, opt).nu  # reveal: f32[(4, 3)]
    return first, step, scaled, treedef


def right_named_tuple_replace():
    batch = Batch(jnp.ones((8, 4)), jnp.zeros((8,), jnp.int32))
    batch = batch._replace(image=batch.image[:, :2])
    image = batch.image  # reveal: f32[(8, 2)]
    project = jax.tree_util.Partial(dense, w=jnp.ones((2, 5)), b=jnp.zeros((5,)), activation=jnp.tanh)
    out = project(image)  # reveal: f32[(8, 5)]
    return out


def wrong_named_tuple_replace():
    batch = Batch(jnp.ones((8, 4)), jnp.zeros((8,), jnp.int32))
    batch = batch._replace(image=batch.image[:, :2])
    return batch.image @ jnp.ones((4, 5))  # expect: NC203


def moments(updates, previous, decay):
    """An optimizer's moment update, mapped with `is_leaf` so that a `None` update (a frozen parameter) stays None."""
    return jax.tree.map(
        lambda g, m: None if g is None else (1 - decay) * g + decay * m,
        updates,
        previous,
        is_leaf=lambda x: x is None,
    )


def zeros_of(tree):
    """Reads its argument through `jax.tree.map` (an attribute named like it, `jax.tree`, is no use of it)."""
    return jax.tree.map(jnp.zeros_like, tree)


def right_tree_map_is_leaf():
    grads = {"w": jnp.ones((4, 3)), "frozen": None}
    mu = moments(grads, {"w": jnp.zeros((4, 3)), "frozen": None}, 0.9)
    w = mu["w"]  # reveal: f32[(4, 3)]
    zeros = zeros_of(grads)
    still = grads["w"]  # reveal: f32[(4, 3)]
    return w, zeros, still


def wrong_tree_map_is_leaf():
    grads = {"w": jnp.ones((4, 3)), "frozen": None}
    zeros_of(grads)
    mu = moments(grads, {"w": jnp.zeros((4, 3)), "frozen": None}, 0.9)
    return mu["w"] @ grads["w"]  # expect: NC203
