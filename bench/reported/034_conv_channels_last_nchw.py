# Reported: https://github.com/jax-ml/jax/issues/3289
# Images in channels-last layout are fed to a convolution that uses the default NCHW layout.
# class: conv
import jax
import jax.numpy as jnp


def conv_block(images, kernel):
    return jax.lax.conv_general_dilated(images, kernel, (1, 1), "SAME")  # bug: images are NHWC, default is NCHW


def run():
    batch, height, width, channels, features = 2, 8, 8, 3, 4
    images = jnp.ones((batch, height, width, channels))
    kernel = jnp.ones((features, channels, 3, 3))
    return conv_block(images, kernel)


if __name__ == "__main__":
    run()
