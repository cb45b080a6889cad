# Reported: https://github.com/danijar/dreamerv3/issues/32
# Encoder weights restored from an old run expect a different flattened observation size than the env gives.
# class: matmul
import jax.numpy as jnp


def encode(obs, weight):
    flat = obs.reshape(obs.shape[0], -1)
    return flat @ weight  # bug: weight was made for old_obs_size inputs


def run():
    batch, old_obs_size, new_obs_size, hidden = 2, 1041, 1029, 16
    weight = jnp.zeros((old_obs_size, hidden))
    return encode(jnp.ones((batch, new_obs_size)), weight)


if __name__ == "__main__":
    run()
