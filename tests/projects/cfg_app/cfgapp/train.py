"""One training step from the config."""

import jax

from cfgapp import input_pipeline, models


def train_step(params, images, labels, num_classes, lr):
    grads = jax.grad(models.loss_fn)(params, images, labels, num_classes)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def train_and_evaluate(config, steps):
    params = models.init_params(jax.random.key(0), config.model, config.num_classes)
    for step in range(steps):
        images, labels = input_pipeline.make_batch(config, seed=step)
        params = train_step(params, images, labels, config.num_classes, 0.1)
    return params
