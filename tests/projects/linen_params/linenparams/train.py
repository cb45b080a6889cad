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
    return evaluate(state, x)


def finetune_main():
    cfg = Config()
    state = create_state(cfg, jax.random.key(0))
    head = Classifier(hidden=cfg.hidden, num_classes=cfg.num_classes)
    x = jnp.ones((2, cfg.features))
    state = train_step(state.replace(apply_fn=head.apply), x, jnp.zeros((2,), jnp.int32))
    return predict(head, state.params, x)
