# Reported: https://github.com/henry-prior/jax-rl/issues/10
# A log-probability array of rank 3 is transposed with a 2-axis permutation.
# class: axis
import jax.numpy as jnp


def weighted_log_prob(log_prob, weights):
    return jnp.sum(log_prob.transpose((0, 1)) * weights)  # bug: log_prob is (batch, samples, 1)


def run():
    batch, samples = 256, 20
    log_prob = jnp.zeros((batch, samples, 1))
    return weighted_log_prob(log_prob, jnp.ones((batch, samples, 1)))


if __name__ == "__main__":
    run()
