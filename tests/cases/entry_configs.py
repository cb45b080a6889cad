"""Config objects built by code (`ml_collections.ConfigDict`, `types.SimpleNamespace`): the fields set on
them are known where the entry point passes them; a mutation the analysis cannot follow forgets them."""

import types

import jax.numpy as jnp
import ml_collections


def get_config():
    config = ml_collections.ConfigDict()
    config.batch_size = 4
    config.model = ml_collections.ConfigDict()
    config.model.width = 16
    config.model.classes = 10
    return config


def forward(x, config):
    w = jnp.ones((config.model.width, config.model.classes))
    return x @ w  # expect: NC203


def wrong_input(config):
    x = jnp.ones((config.batch_size, 12))
    return forward(x, config)


def right_input(config):
    x = jnp.ones((config.batch_size, config.model.width))
    return forward(x, config)


def widened(config):
    config.model.width = 12  # the local copy is updated
    x = jnp.ones((config.batch_size, 12))
    return forward(x, config)


def set_width(config):
    config.model.width = 12


def mutated_by_a_call():
    config = get_config()
    set_width(config)  # changes the caller's object: its fields are no longer known here
    x = jnp.ones((config.batch_size, 12))
    return forward(x, config)


def aliased():
    config = get_config()
    model = config.model
    model.width = 12  # `config.model` is the same object: forgotten in `config`
    x = jnp.ones((4, 12))
    return forward(x, config)


def branches(big: bool):
    config = get_config()
    if big:
        config.model.width = 32
    x = jnp.ones((4, 16))
    return forward(x, config)  # the width is 16 or 32: not known


def defaults():
    config = get_config()
    n = config.get("num_heads", 3)
    q = jnp.ones((n, 5))
    return q @ jnp.ones((4, 5))  # expect: NC203


def updated():
    config = get_config()
    config.update({"batch_size": 3})
    x = jnp.ones((config.batch_size, 16))
    return x + jnp.ones((4, 16))


def namespace():
    cfg = types.SimpleNamespace(d=8, vocab=100)
    table = jnp.ones((cfg.vocab, cfg.d))
    return table @ jnp.ones((cfg.vocab, 2))  # expect: NC203


def from_dict():
    cfg = ml_collections.ConfigDict({"d": 8, "heads": {"n": 2}})
    return jnp.ones((cfg.heads.n, cfg.d)) + jnp.ones((3, 8))  # expect: NC201


CONFIG = get_config()


def mutate_global():
    CONFIG.model.width = 12


def uses_global():
    x = jnp.ones((4, 12))
    return forward(x, CONFIG)  # silent: another function changes the global config


if __name__ == "__main__":
    cfg = get_config()
    wrong_input(cfg)
    right_input(cfg)
    widened(get_config())
    mutated_by_a_call()
    aliased()
    branches(True)
    defaults()
    updated()
    namespace()
    from_dict()
    mutate_global()
    uses_global()
