# A module that turns on typed (custom) PRNG keys: PRNGKey gives a key of shape (), not uint32[2].
import jax

jax.config.update("jax_enable_custom_prng", True)

key = jax.random.PRNGKey(0)
batch_of_one = key.reshape(1)
also_one = jax.random.PRNGKey(1).reshape(1)
new_style = jax.random.key(0).reshape(1)  # reveal: Array[(1,)]
keys = jax.random.split(jax.random.key(0), 4)  # reveal: Array[(4,)]
noise = jax.random.normal(keys[0], (3,))  # reveal: f32[(3,)]
rbg = jax.random.PRNGKey(0, impl="rbg")  # with custom PRNG on, a typed key of shape () too
rbg_one = rbg.reshape(1)

bad_new_style = jax.random.key(0).reshape(2)  # expect: NC203
