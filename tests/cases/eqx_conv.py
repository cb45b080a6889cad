"""equinox convolutions: one unbatched example (channels first) per call, sizes from padding / stride."""
import equinox as eqx
import jax
import jax.numpy as jnp

key = jax.random.PRNGKey(0)
image = jnp.ones((3, 10, 12))
conv = eqx.nn.Conv2d(3, 8, 3, padding=1, key=key)
same = conv(image)  # reveal: f32[(8, 10, 12)]
strided = eqx.nn.Conv2d(3, 8, (3, 5), stride=2, padding="SAME", key=key)(image)  # reveal: f32[(8, 5, 6)]
valid = eqx.nn.Conv(1, 4, 6, 5, key=key)(jnp.ones((4, 20)))  # reveal: f32[(6, 16)]
batched = jax.vmap(conv)(jnp.ones((2, 3, 10, 12)))
wrong_channels = eqx.nn.Conv1d(4, 6, 5, key=key)(jnp.ones((5, 20)))  # expect: NC203
unmapped = conv(jnp.ones((2, 3, 10, 12)))  # expect: NC203
