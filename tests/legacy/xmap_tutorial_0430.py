"""A program written for jax 0.4.30's xmap, unmodified: run it with `python -m namedcheck.compat`.

Prints one line per check; exits non-zero when a result differs from positional JAX.
"""
import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental.maps import xmap
from jax.nn import one_hot, relu
from jax.scipy.special import logsumexp
from jax.sharding import Mesh


def named_predict(w1, w2, image):
    hidden = relu(lax.pdot(image, w1, 'inputs'))
    logits = lax.pdot(hidden, w2, 'hidden')
    return logits - logsumexp(logits, 'classes')


def named_loss(w1, w2, images, labels):
    predictions = named_predict(w1, w2, images)
    num_classes = lax.psum(1, 'classes')
    targets = one_hot(labels, num_classes, axis='classes')
    losses = lax.psum(targets * predictions, 'classes')
    return -lax.pmean(losses, 'batch')


def loss(w1, w2, images, labels):
    hiddens = relu(jnp.dot(images, w1))
    logits = jnp.dot(hiddens, w2)
    predictions = logits - logsumexp(logits, axis=1, keepdims=True)
    targets = one_hot(labels, predictions.shape[-1])
    return -jnp.mean(jnp.sum(targets * predictions, axis=1), axis=0)


key = jax.random.PRNGKey(0)
k1, k2, k3, k4 = jax.random.split(key, 4)
w1 = jax.random.normal(k1, (784, 512)) * 0.05
w2 = jax.random.normal(k2, (512, 10)) * 0.05
images = jax.random.normal(k3, (128, 784))
labels = jax.random.randint(k4, (128,), 0, 10)
expected = loss(w1, w2, images, labels)

in_axes = [['inputs', 'hidden', ...], ['hidden', 'classes', ...], ['batch', 'inputs', ...], ['batch', ...]]
failures = 0
for resources, shape, names in [(None, None, None), ({'batch': 'x'}, (8,), ('x',)),
                                ({'hidden': 'x'}, (8,), ('x',)), ({'batch': 'x', 'hidden': 'y'}, (4, 2), ('x', 'y'))]:
    f = xmap(named_loss, in_axes=in_axes, out_axes=[...], axis_resources=resources or {})
    if shape is None:
        got = f(w1, w2, images, labels)
    else:
        with Mesh(np.array(jax.local_devices()).reshape(shape), names):
            got = f(w1, w2, images, labels)
    ok = np.allclose(got, expected, rtol=1e-4, atol=1e-5)
    failures += not ok
    print(f"loss with axis_resources={resources}: {float(got):.6f} (positional {float(expected):.6f}) {'ok' if ok else 'DIFFERS'}")


def named_broadcast_and_reduce(x, y):
    z = x + y
    return jnp.sum(z, axis=(0, 'x', 'y'))


r = xmap(named_broadcast_and_reduce, in_axes=({0: 'x'}, {1: 'y'}), out_axes={})(
    jnp.arange(2, dtype=np.float32), jnp.arange(20, dtype=np.float32).reshape((5, 4)))
ok = np.allclose(r, (jnp.arange(2.0)[:, None, None] + jnp.arange(20.0).reshape(5, 4)[None]).sum())
failures += not ok
print("named reduction:", float(r), "ok" if ok else "DIFFERS")

x = jnp.ones((20, 5, 7)) * jnp.arange(7)
y = jnp.ones((7, 11)) * jnp.arange(11)
zx = xmap(lambda x, y: jnp.einsum('n{b,k},{k,m}->n{b,m}', x, y),
          in_axes=[{0: 'b', 2: 'k'}, ['k', 'm', ...]], out_axes={0: 'b', 2: 'm'})(x, y)
ok = np.allclose(zx, jnp.einsum('bnk,km->bnm', x, y))
failures += not ok
print("named einsum:", zx.shape, "ok" if ok else "DIFFERS")
sys_exit = 1 if failures else 0
raise SystemExit(sys_exit)
