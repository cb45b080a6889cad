import jax
import jax.numpy as jnp

from .config import Config
from .models import Classifier
from .train import create_state, train_main  # noqa: F401


def evaluate(state, cfg):
    x = jnp.ones((cfg.batch, cfg.features))
    both = jnp.concatenate([x, x], axis=-1)
    return state.apply_fn({"params": state.params}, both)  # expect: NC305


def evaluate_main():
    cfg = Config()
    state = train_main()
    return evaluate(state, cfg)


def finetune_main():
    cfg = Config()
    state = create_state(cfg, jax.random.key(0))
    head = Classifier(hidden=cfg.hidden, num_classes=10)
    x = jnp.ones((2, cfg.features))
    return head.apply({"params": state.params}, x)  # expect: NC305
