"""The classifier: an input projection, one MLP block, a head."""

import jax

from . import layers
from .config import CONFIG
from .layers import dense as linear


def init_params(key, cfg=CONFIG):
    k1, k2, k3, k4 = jax.random.split(key, 4)
    w1, b1 = layers.init_dense(k1, cfg.d_in, cfg.d_hidden)
    w_in, _ = layers.init_dense(k2, cfg.d_hidden, 4 * cfg.d_hidden)
    w_out, _ = layers.init_dense(k3, 4 * cfg.d_hidden, cfg.d_hidden)
    w2, b2 = layers.init_dense(k4, cfg.d_hidden, cfg.n_classes)
    return {"w1": w1, "b1": b1, "w_in": w_in, "w_out": w_out, "w2": w2, "b2": b2}


def forward(params, x):
    h = linear(x, params["w1"], params["b1"])
    h = h + layers.mlp_block(h, params["w_in"], params["w_out"])
    return linear(h, params["w2"], params["b2"])
