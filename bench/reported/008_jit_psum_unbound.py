# Reported: https://github.com/jax-ml/jax/issues/1347
# A jitted function calls psum over axis 'i' without any map binding that axis.
# class: axis_name
import jax
import jax.numpy as jnp


@jax.jit
def reduce_all(x):
    return jax.lax.psum(x, "i")  # bug: 'i' is unbound


def run():
    return reduce_all(jnp.ones(2))


if __name__ == "__main__":
    run()
