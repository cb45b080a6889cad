# Raw keys under the default configuration: uint32[2] (threefry2x32), or the size `impl=` gives.
import jax

key = jax.random.PRNGKey(0)  # reveal: u32[(2,)]
pair = key.reshape(1, 2)  # reveal: u32[(1, 2)]
rbg_key = jax.random.PRNGKey(0, impl="rbg")  # reveal: u32[(4,)]
rbg_square = rbg_key.reshape(2, 2)  # reveal: u32[(2, 2)]
typed = jax.random.key(0).reshape(1)  # reveal: Array[(1,)]

bad_flat = key.reshape(4)  # expect: NC203
bad_rbg = rbg_key.reshape(3)  # expect: NC203
