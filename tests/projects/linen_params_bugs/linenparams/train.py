import jax
import jax.numpy as jnp

from .config import Config
from .models import Classifier
from .steps import create_state, evaluate, predict, train_step


def train_main():
    cfg = Config()
    state = create_state(cfg, jax.random.key(0))
    x = jnp.ones((cfg.batch, cfg.features))
    y = jnp.zeros((cfg.batch,), jnp.int32)
    return train_step(state, x, y)


def evaluate_main():
    cfg = Config()
    state = train_main()
    x = jnp.ones((cfg.batch, cfg.features))
    return evaluate(state, jnp.concatenate([x, x], axis=-1))


def finetune_main():
    cfg = Config()
    state = create_state(cfg, jax.random.key(0))
    head = Classifier(hidden=cfg.hidden, num_classes=10)
    x = jnp.ones((2, cfg.features))
    return predict(head, state.params, x)
