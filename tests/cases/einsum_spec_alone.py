"""einsum specs JAX rejects whatever the operands' shapes (operands the checker knows nothing about): the
number of input terms differs from the number of operands, an output letter is in no input term or repeated.
Named-axis braces (namedcheck's own einsum) are not positional letters."""

import jax.numpy as jnp


def right(x, w, v):
    a = jnp.einsum('...qhd,...khd->...hqk', x, w)
    b = jnp.einsum('ij', x)
    c = jnp.einsum('i,i', x, w)
    d = jnp.einsum('i->...i', v)
    e = jnp.einsum('i j, j k -> i k', x, w)
    f = jnp.einsum('n{b,k},{k,m}->n{b,m}', x, w)
    return a, b, c, d, e, f


def wrong(x, w, v):
    a = jnp.einsum('...qhd,...khd->...hqx', x, w)  # expect: NC702
    b = jnp.einsum('bqhd,bkhd->bhqk', x, w, w)  # expect: NC702
    c = jnp.einsum('bqhd', x, w)  # expect: NC702
    d = jnp.einsum('i->ii', v)  # expect: NC702
    return a, b, c, d
