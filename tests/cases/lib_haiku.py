"""dm-haiku: `init` makes the parameters by haiku's module names for its inputs; `apply` on inputs of other sizes is
NC305 (haiku's get_parameter raises ValueError). tests/test_haiku_under_jax.py runs every statement under JAX and
haiku: it raises exactly on the lines with an `expect`, and every `reveal` is the shape it computes."""

import haiku as hk
import jax
import jax.numpy as jnp


def mlp_fn(x):
    return hk.nets.MLP([16, 4])(x)


mlp = hk.transform(mlp_fn)
key = jax.random.PRNGKey(0)
params = mlp.init(key, jnp.ones((2, 8)))
first = params["mlp/~/linear_0"]["w"]  # reveal: f32[(8, 16)]
last_bias = params["mlp/~/linear_1"]["b"]  # reveal: f32[(4,)]
out = mlp.apply(params, key, jnp.ones((5, 8)))  # reveal: f32[(5, 4)]
wrong_width = mlp.apply(params, key, jnp.ones((5, 9)))  # expect: NC305
jitted = jax.jit(mlp.apply)(params, key, jnp.ones((5, 7)))  # expect: NC305

init_fn, apply_fn = hk.without_apply_rng(hk.transform(mlp_fn))
p2 = init_fn(key, jnp.ones((3, 8)))
out2 = apply_fn(p2, jnp.ones((7, 8)))  # reveal: f32[(7, 4)]
bad2 = apply_fn(p2, jnp.ones((7, 6)))  # expect: NC305
swapped = apply_fn(params, jnp.ones((7, 8)))  # reveal: f32[(7, 4)]


class Block(hk.Module):
    def __init__(self, width, name=None):
        super().__init__(name=name)
        self.width = width
        self.proj = hk.Linear(width)

    def __call__(self, x):
        h = jax.nn.gelu(self.proj(x))
        h = hk.LayerNorm(axis=-1, create_scale=True, create_offset=True)(h)
        scale = hk.get_parameter("scale", [self.width], init=jnp.ones)
        return self.back(h * scale, x.shape[-1]) + x

    def back(self, h, width):
        return hk.Linear(width)(h)


def block_fn(x):
    y = Block(32)(x)
    bias = hk.get_parameter("bias", (x.shape[-1],), init=jnp.zeros)
    return Block(32, name="second")(y) + bias


blocks = hk.transform(block_fn)
bp = blocks.init(key, jnp.ones((4, 10)))
proj = bp["block/~/linear"]["w"]  # reveal: f32[(10, 32)]
norm = bp["block/layer_norm"]["offset"]  # reveal: f32[(32,)]
back = bp["second/~back/linear"]["w"]  # reveal: f32[(32, 10)]
block_scale = bp["block"]["scale"]  # reveal: f32[(32,)]
top_bias = bp["~"]["bias"]  # reveal: f32[(10,)]
bo = blocks.apply(bp, None, jnp.ones((2, 3, 10)))  # reveal: f32[(2, 3, 10)]
bad3 = blocks.apply(bp, None, jnp.ones((4, 12)))  # expect: NC305
hand_built = {"linear": {"w": jnp.ones((3, 2)), "b": jnp.zeros((2,))}}
linear_only = hk.without_apply_rng(hk.transform(lambda x: hk.Linear(2)(x)))
by_hand = linear_only.apply(hand_built, jnp.ones((1, 4)))  # expect: NC305


def noisy(x):
    count = hk.get_state("count", [], jnp.int32, init=jnp.zeros)
    hk.set_state("count", count + 1)
    h = hk.Linear(6)(x)
    return hk.dropout(hk.next_rng_key(), 0.5, h)


stateful = hk.transform_with_state(noisy)
sp, state = stateful.init(key, jnp.ones((2, 3)))
counter = state["~"]["count"]  # reveal: i32[()]
noisy_w = sp["linear"]["w"]  # reveal: f32[(3, 6)]
sy, new_state = stateful.apply(sp, state, key, jnp.ones((5, 3)))
noisy_out = sy  # reveal: f32[(5, 6)]
bad_state = stateful.apply(sp, state, key, jnp.ones((5, 4)))  # expect: NC305


def vision(images, tokens):
    h = hk.Conv2D(8, kernel_shape=3, stride=2)(images)
    h = hk.Flatten()(h)
    e = hk.Embed(vocab_size=50, embed_dim=12)(tokens)
    e = hk.RMSNorm(axis=-1)(e)
    a = hk.MultiHeadAttention(num_heads=2, key_size=6, w_init=hk.initializers.VarianceScaling(1.0))(e, e, e)
    c = hk.Conv1D(4, 3, padding="VALID")(a)
    return h, c


tokens = jnp.zeros((2, 7), jnp.int32)
net = hk.without_apply_rng(hk.transform(vision))
vp = net.init(key, jnp.ones((2, 16, 16, 3)), tokens)
conv_w = vp["conv2_d"]["w"]  # reveal: f32[(3, 3, 3, 8)]
table = vp["embed"]["embeddings"]  # reveal: f32[(50, 12)]
rms = vp["rms_norm"]["scale"]  # reveal: f32[(12,)]
query = vp["multi_head_attention/query"]["w"]  # reveal: f32[(12, 12)]
mixed = vp["multi_head_attention/linear"]["w"]  # reveal: f32[(12, 12)]
conv1 = vp["conv1_d"]["w"]  # reveal: f32[(3, 12, 4)]
flat, seq = net.apply(vp, jnp.ones((2, 16, 16, 3)), tokens)
flat_out = flat  # reveal: f32[(2, 512)]
seq_out = seq  # reveal: f32[(2, 5, 4)]
gray = net.apply(vp, jnp.ones((2, 16, 16, 1)), tokens)  # expect: NC305


def embed_floats(x):
    return hk.Embed(10, 4)(x)  # expect: NC203


float_ids = hk.transform(embed_floats).init(key, jnp.ones((2, 3)))


def cumulative(xs):
    dense = hk.Linear(4)

    def step(h, x):
        h = jnp.tanh(dense(x) + h)
        return h, h

    return hk.scan(step, jnp.zeros((4,)), xs)


scanned = hk.transform(cumulative)
sc_params = scanned.init(key, jnp.ones((6, 3)))
sc_w = sc_params["linear"]["w"]  # reveal: f32[(3, 4)]
sc_last, sc_all = scanned.apply(sc_params, None, jnp.ones((6, 3)))
sc_hist = sc_all  # reveal: f32[(6, 4)]
sc_bad = scanned.apply(sc_params, None, jnp.ones((6, 5)))  # expect: NC305


def per_example(x):
    return hk.Linear(3)(x)


def batched(xs):
    return hk.vmap(per_example, split_rng=False)(xs)


vm = hk.transform(batched)
vm_params = vm.init(key, jnp.ones((4, 5)))
vm_out = vm.apply(vm_params, None, jnp.ones((4, 5)))  # reveal: f32[(4, 3)]


def sequential(x):
    return hk.Sequential([hk.Linear(8), jax.nn.relu, hk.Linear(2)])(x)


sq = hk.without_apply_rng(hk.transform(sequential))
sq_params = sq.init(key, jnp.ones((1, 6)))
sq_second = sq_params["linear_1"]["w"]  # reveal: f32[(8, 2)]
sq_out = sq.apply(sq_params, jnp.ones((3, 6)))  # reveal: f32[(3, 2)]
sq_bad = sq.apply(sq_params, jnp.ones((3, 5)))  # expect: NC305


def maybe_deeper(x, deep):
    if deep:
        x = hk.Linear(8)(x)
    return hk.Linear(2)(x)  # under a condition before it: its name is not sure (linear or linear_1)


md = hk.without_apply_rng(hk.transform(maybe_deeper))
md_params = md.init(key, jnp.ones((1, 6)), True)
md_out = md.apply(md_params, jnp.ones((1, 6)), True)
keys = hk.PRNGSequence(42)
seq_key = next(keys)  # reveal: u32[(2,)]
drawn = jax.random.normal(next(keys), (3, 2))
from_seq = mlp.apply(params, next(keys), drawn)  # expect: NC305


@hk.testing.transform_and_run
def drawn_in_transform():
    k = hk.next_rng_key()
    return hk.Linear(3)(jax.random.normal(k, (2, 4)))


tr_out = drawn_in_transform()  # reveal: f32[(2, 3)]


@hk.testing.transform_and_run(run_apply=False)
def conv_of_wrong_rank(x):
    return hk.Conv2D(4, 3)(x)  # expect: NC203


conv_of_wrong_rank(jnp.ones((2, 1, 8, 8, 3)))


def via_unknown(x):
    act = getattr(jax.nn, "relu")  # a callee not known: it might make modules, the names after it are not sure
    return hk.Linear(2)(act(hk.Linear(4)(x)))


vu = hk.without_apply_rng(hk.transform(via_unknown))
vu_params = vu.init(key, jnp.ones((1, 3)))
vu_out = vu.apply(vu_params, jnp.ones((6, 3)))


def attend(q, kv):
    h = hk.LayerNorm(axis=-1, create_scale=True, create_offset=False)(q)
    init = hk.initializers.VarianceScaling(1.0)
    return hk.MultiHeadAttention(num_heads=4, key_size=8, model_size=16, w_init=init)(query=h, key=kv, value=kv)


att = hk.without_apply_rng(hk.transform(attend))
ap = att.init(key, jnp.ones((2, 5, 16)), jnp.ones((2, 7, 12)))
ln_scale = ap["layer_norm"]["scale"]  # reveal: f32[(16,)]
att_key = ap["multi_head_attention/key"]["w"]  # reveal: f32[(12, 32)]
att_out = att.apply(ap, jnp.ones((3, 5, 16)), jnp.ones((3, 9, 12)))  # reveal: f32[(3, 5, 16)]
att_bad = att.apply(ap, jnp.ones((2, 5, 16)), jnp.ones((2, 7, 10)))  # expect: NC305


def normed(x, is_training):
    h = hk.Conv2D(6, 3)(x)
    h = hk.BatchNorm(create_scale=True, create_offset=True, decay_rate=0.9)(h, is_training)
    return hk.Bias()(h)


bn = hk.transform_with_state(normed)
bn_params, bn_state = bn.init(key, jnp.ones((2, 8, 8, 3)), True)
bn_scale = bn_params["batch_norm"]["scale"]  # reveal: f32[(1, 1, 1, 6)]
bias_b = bn_params["bias"]["b"]  # reveal: f32[(8, 8, 6)]
bn_out, _ = bn.apply(bn_params, bn_state, None, jnp.ones((2, 8, 8, 3)), True)
bn_y = bn_out  # reveal: f32[(2, 8, 8, 6)]
bn_bad = bn.apply(bn_params, bn_state, None, jnp.ones((2, 10, 10, 3)), True)  # expect: NC305
