"""Synthetic batches shaped like the real dataset's."""

import numpy as np


def make_batch(config, seed=0):
    rng = np.random.default_rng(seed)
    images = rng.normal(size=(config.batch_size, config.image_size, config.image_size)).astype(np.float32)
    labels = rng.integers(0, config.num_classes, size=(config.batch_size,))
    return images, labels
