"""The default hyperparameters, as an ml_collections config."""

import ml_collections


def get_config():
    config = ml_collections.ConfigDict()
    config.batch_size = 8
    config.image_size = 6
    config.num_classes = 5
    config.model = ml_collections.ConfigDict()
    config.model.hidden = 32
    config.model.input_dim = 36
    return config
