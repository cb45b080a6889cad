"""lax convolutions under their dimension numbers (default NCHW / OIHW), and matrix ops of a vector."""
import jax
import jax.numpy as jnp
from jax import lax

images = jnp.ones((2, 3, 8, 8))
kernel = jnp.ones((4, 3, 3, 3))
same = lax.conv_general_dilated(images, kernel, (1, 1), "SAME")  # reveal: f32[(2, 4, 8, 8)]
strided = lax.conv_general_dilated(images, kernel, (2, 2), "VALID")  # reveal: f32[(2, 4, 3, 3)]
padded = lax.conv(images, kernel, (1, 1), [(1, 1), (0, 0)])  # reveal: f32[(2, 4, 8, 6)]
nhwc = jnp.ones((2, 8, 8, 3))
hwio = jnp.ones((3, 3, 3, 4))
last = lax.conv_general_dilated(nhwc, hwio, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))  # reveal: f32[(2, 8, 8, 4)]
grouped = lax.conv_general_dilated(jnp.ones((2, 6, 8, 8)), kernel, (1, 1), "SAME", feature_group_count=2)  # reveal: f32[(2, 4, 8, 8)]
channels_last = lax.conv_general_dilated(nhwc, kernel, (1, 1), "SAME")  # expect: NC203
channels_last2 = lax.conv(nhwc, kernel, (1, 1), "SAME")  # expect: NC203
wrong_layout = lax.conv_general_dilated(nhwc, jnp.ones((3, 3, 5, 4)), (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))  # expect: NC203
groups = lax.conv_general_dilated(jnp.ones((2, 6, 8, 8)), jnp.ones((5, 3, 3, 3)), (1, 1), "SAME", feature_group_count=2)  # expect: NC203

matrix = jnp.ones((4, 4))
variances = jnp.ones(4)
d = jnp.diagonal(matrix)  # reveal: f32[(4,)]
t = jnp.trace(matrix)  # reveal: f32[()]
ld = jnp.linalg.diagonal(jnp.ones((2, 3, 4)))  # reveal: f32[(2, 3)]
vd = jnp.diagonal(variances)  # expect: NC701
vt = jnp.trace(variances)  # expect: NC701
vld = jnp.linalg.diagonal(variances)  # expect: NC701
vinv = jnp.linalg.inv(variances)  # expect: NC203
