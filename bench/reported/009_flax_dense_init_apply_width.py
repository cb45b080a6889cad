# Reported: https://github.com/google/flax/issues/2941
# A Dense model is initialised on inputs of one width and applied to inputs of another.
# class: flax_params
import flax.linen as nn
import jax
import jax.numpy as jnp


class Head(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(1)(x)


def train_and_eval(n_train_feats, n_eval_feats):
    model = Head()
    params = model.init(jax.random.key(0), jnp.ones(n_train_feats))["params"]
    return model.apply({"params": params}, jnp.ones(n_eval_feats))  # bug: kernel expects n_train_feats inputs


def run():
    return train_and_eval(5, 3)


if __name__ == "__main__":
    run()
