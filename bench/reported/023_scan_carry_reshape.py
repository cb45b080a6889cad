# Reported: https://github.com/jax-ml/jax/pull/15178
# A scan body reshapes one carry component from a scalar to a 1x1 matrix.
# class: scan
import jax
import jax.numpy as jnp


def body(carry, _):
    count, total = carry
    return (count + 1, total.reshape(1, 1)), None  # bug: total changes shape from () to (1, 1)


def accumulate(n):
    init = (jnp.array(0, "int32"), jnp.array(0.0, "float32"))
    return jax.lax.scan(body, init, None, length=n)


def run():
    return accumulate(3)


if __name__ == "__main__":
    run()
