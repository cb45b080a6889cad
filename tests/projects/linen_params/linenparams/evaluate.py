import jax
import jax.numpy as jnp

from .config import Config
from .models import Classifier
from .train import create_state, train_main, train_step  # noqa: F401


def evaluate(state, cfg):
    x = jnp.ones((cfg.batch, cfg.features))
    return state.apply_fn({"params": state.params}, x)


def evaluate_main():
    cfg = Config()
    state = train_main()
    return evaluate(state, cfg)


def finetune_main():
    cfg = Config()
    state = create_state(cfg, jax.random.key(0))
    head = Classifier(hidden=cfg.hidden, num_classes=cfg.num_classes)
    x = jnp.ones((2, cfg.features))
    state = train_step(state.replace(apply_fn=head.apply), x, jnp.zeros((2,), jnp.int32))
    return head.apply({"params": state.params}, x)
