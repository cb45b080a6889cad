"""An MLP whose parameters come from a comprehension or `map`, applied by a Python loop over its layers."""

import jax
import jax.numpy as jnp


def init_layer(key, n_in, n_out):
    w_key, _ = jax.random.split(key)
    scale = jnp.sqrt(2.0 / n_in)
    return scale * jax.random.normal(w_key, (n_in, n_out)), jnp.zeros((n_out,))


def init_mlp(key, sizes):
    keys = jax.random.split(key, len(sizes) - 1)
    return [init_layer(k, m, n) for k, m, n in zip(keys, sizes[:-1], sizes[1:])]


def forward(params, x):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return x


def predict(params, images):
    x = images.reshape(images.shape[0], -1)
    *hidden, (w_out, b_out) = params
    for w, b in hidden:
        x = jax.nn.relu(x @ w + b)  # expect: NC203
    return x @ w_out + b_out


def right_mlp():
    params = init_mlp(jax.random.PRNGKey(0), [784, 512, 256, 10])
    logits = forward(params, jnp.ones((32, 784)))  # reveal: f32[(32, 10)]
    return logits


def right_mlp_from_map():
    keys = jax.random.split(jax.random.PRNGKey(1), 2)
    params = list(map(init_layer, keys, [784, 128], [128, 10]))
    logits = predict(params, jnp.ones((8, 28, 28)))  # reveal: f32[(8, 10)]
    return logits


def right_unzipped_params():
    sizes = [16, 32, 8]
    params = [(jnp.zeros((m, n)), jnp.zeros((n,))) for m, n in zip(sizes[:-1], sizes[1:])]
    weights, biases = zip(*params)
    l2 = sum(jnp.sum(w ** 2) for w in weights)  # reveal: f32[()]
    h = jnp.ones((4, 16))
    for i, (w, b) in enumerate(zip(weights, biases)):
        h = h @ w + b
    out = h  # reveal: f32[(4, 8)]
    return out, l2


def right_loop_grows_buffer():
    rows = jnp.zeros((0, 4))
    for _ in range(3):
        rows = jnp.concatenate([rows, jnp.ones((1, 4))])
    seen = rows  # reveal: f32[(3, 4)]
    for _ in range(1000):  # too long to unroll: what changes in the body is Unknown afterwards
        rows = jnp.concatenate([rows, jnp.ones((1, 4))])
    return seen, rows


def right_early_exit():
    layers = [jnp.zeros((8, 8)), jnp.zeros((8, 3)), jnp.zeros((5, 5))]
    x = jnp.ones((2, 8))
    for w in layers:
        if w.shape[0] != x.shape[-1]:
            break
        x = x @ w
    return x


def right_filtered_comprehension():
    params = init_mlp(jax.random.PRNGKey(0), [8, 16, 4])
    big = [w for w, _ in params if w.shape[0] > 8]
    return [w.sum() for w in big]


def right_tree_leaves_norm():
    params = {"enc": (jnp.ones((4, 8)), jnp.ones((8,))), "dec": (jnp.ones((8, 4)), jnp.ones((4,)))}
    sq = sum(jnp.vdot(p, p) for p in jax.tree.leaves(params))  # reveal: f32[()]
    return sq


def wrong_hand_written_layers():
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    params = [init_layer(k1, 784, 512), init_layer(k2, 500, 256), init_layer(k3, 256, 10)]
    x = jnp.ones((32, 784))
    for w, b in params:
        x = jnp.tanh(x @ w + b)  # expect: NC203
    return x


def wrong_flattened_colour_images():
    keys = jax.random.split(jax.random.PRNGKey(1), 2)
    params = list(map(init_layer, keys, [784, 128], [128, 10]))
    return predict(params, jnp.ones((8, 28, 28, 3)))


def wrong_residual_blocks():
    dims = [64, 64, 64]
    blocks = [jnp.zeros((d, d + 1)) for d in dims]
    h = jnp.ones((16, 64))
    for w in blocks:
        h = h + h @ w  # expect: NC201
    return h


def wrong_reversed_biases():
    params = init_mlp(jax.random.PRNGKey(2), [32, 16, 8])
    weights, biases = zip(*params)
    x = jnp.ones((4, 32))
    for w, b in zip(weights, reversed(biases)):
        x = x @ w + b  # expect: NC201
    return x


def wrong_l2_without_reduction():
    params = init_mlp(jax.random.PRNGKey(3), [32, 16, 8])
    return sum(w ** 2 for w, _ in params)  # expect: NC201


def wrong_named_layers():
    keys = jax.random.split(jax.random.PRNGKey(4), 2)
    params = {name: init_layer(k, m, n) for name, k, m, n in zip(("enc", "dec"), keys, (12, 6), (6, 12))}
    w_enc, b_enc = params["enc"]
    w_dec, b_dec = params["dec"]
    z = jnp.ones((5, 12)) @ w_enc + b_enc
    return z @ w_dec + b_enc  # expect: NC201


def widen_input(params, d_in):
    for layer in params[:1]:
        layer["w"] = jnp.zeros((d_in, layer["w"].shape[1]))


def l2_penalty(params):
    return sum(jnp.sum(layer["w"] ** 2) for layer in params)


def right_mutated_params_are_forgotten():
    params = [{"w": jnp.ones((4, 8))}, {"w": jnp.ones((8, 2))}]
    widen_input(params, 6)
    x = jnp.ones((3, 6))
    for layer in params:
        x = x @ layer["w"]
    return x


def wrong_params_reused_after_read():
    params = [{"w": jnp.ones((4, 8))}, {"w": jnp.ones((8, 2))}]
    penalty = l2_penalty(params)  # reveal: f32[()]
    x = jnp.ones((3, 8))
    for layer in params:
        x = x @ layer["w"]  # expect: NC203
    return x, penalty


def right_dict_of_layers():
    params = {"embed": (jnp.ones((16, 32)), jnp.zeros(32)), "head": (jnp.ones((32, 5)), jnp.zeros(5))}
    x = jnp.ones((2, 16))
    for _, (w, b) in params.items():
        x = x @ w + b
    out = x  # reveal: f32[(2, 5)]
    return out, sum(v[0].size for v in params.values())


def wrong_dict_of_layers():
    params = {"embed": (jnp.ones((16, 32)), jnp.zeros(32)), "head": (jnp.ones((32, 5)), jnp.zeros(32))}
    x = jnp.ones((2, 16))
    for name, (w, b) in params.items():
        x = x @ w + b  # expect: NC201
    return x
