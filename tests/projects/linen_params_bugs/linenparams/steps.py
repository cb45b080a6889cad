import jax
import jax.numpy as jnp
import optax
from flax.training import train_state

from .models import Classifier


def create_state(cfg, key):
    model = Classifier(hidden=cfg.hidden, num_classes=cfg.num_classes)
    params = model.init(key, jnp.ones((1, cfg.features)))["params"]
    return train_state.TrainState.create(apply_fn=model.apply, params=params, tx=optax.sgd(cfg.learning_rate))


def train_step(state, x, y):
    def loss_fn(params):
        logits = state.apply_fn({"params": params}, x)
        return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

    grads = jax.grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads)


def evaluate(state, x):
    return state.apply_fn({"params": state.params}, x)  # expect: NC305


def predict(model, params, x):
    return model.apply({"params": params}, x)  # expect: NC305
