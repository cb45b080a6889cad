"""Runtime benchmarks (SPEC section 7). Prints ratios against baselines measured in the same run.

1. `namedcheck.xmap` programs against the same computation written positionally under `jax.jit`:
   the tutorial MLP loss, and a transformer block with named batch, sequence and heads axes.
   Steady state: per-call time after warm-up (target <= 1.05x). First call: trace + compile of a
   fresh function (target <= 1.3x).
2. `@checked` wrapped around a jitted function, called eagerly, against the jitted function alone
   (target <= 1.2x).
3. The first call of an xmap over a dict of 2,000 leaves against `jax.jit(jax.vmap(...))` of the same
   (the pytree handling linear in the leaves: each leaf's path computed once per tree).

    python bench/runtime_bench.py [--calls 100] [--repeats 15] [--only LABEL]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
import types
from collections.abc import Callable
from typing import Any

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402

import namedcheck.lax as nlax  # noqa: E402
import namedcheck.nn as nnn  # noqa: E402
from namedcheck import SerialLoop, checked, f32, xmap  # noqa: E402

# ---- the tutorial MLP loss ------------------------------------------------------------------------


def named_loss(w1, w2, images, labels):
    hidden = jax.nn.relu(nlax.pdot(images, w1, "inputs"))
    logits = nlax.pdot(hidden, w2, "hidden")
    predictions = logits - nnn.logsumexp(logits, "classes")
    targets = nnn.one_hot(labels, lax.psum(1, "classes"), axis="classes")
    return -lax.pmean(lax.psum(targets * predictions, "classes"), "batch")


def positional_loss(w1, w2, images, labels):
    logits = jnp.dot(jax.nn.relu(jnp.dot(images, w1)), w2)
    predictions = logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)
    targets = jax.nn.one_hot(labels, predictions.shape[-1])
    return -jnp.mean(jnp.sum(targets * predictions, axis=1), axis=0)


def mlp() -> tuple[Callable[[], Any], Callable[[], Any], tuple[Any, ...]]:
    k = jax.random.split(jax.random.PRNGKey(0), 4)
    args = (
        jax.random.normal(k[0], (784, 512)) * 0.05,
        jax.random.normal(k[1], (512, 10)) * 0.05,
        jax.random.normal(k[2], (128, 784)),
        jax.random.randint(k[3], (128,), 0, 10),
    )
    in_axes = [["inputs", "hidden", ...], ["hidden", "classes", ...], ["batch", "inputs", ...], ["batch", ...]]
    return (
        lambda: xmap(fresh(named_loss), in_axes=in_axes, out_axes=[...]),
        lambda: jax.jit(fresh(positional_loss)),
        args,
    )


# ---- a transformer block: named batch, sequence and heads ----------------------------------------


def named_block(x, wq, wk, wv, wo, w1, w2):
    """Per token (D,) of one batch row; per head for the attention weights."""
    q, k, v = x @ wq, x @ wk, x @ wv  # (Dh,) {batch, seq, heads}
    keys, values = lax.all_gather(k, "seq"), lax.all_gather(v, "seq")  # (T, Dh) {batch, heads}
    probs = jax.nn.softmax(keys @ q / jnp.sqrt(q.shape[-1]))  # (T,) {batch, seq, heads}
    h = x + lax.psum((probs @ values) @ wo, "heads")  # (D,) {batch, seq}
    return h + jax.nn.relu(h @ w1) @ w2


def positional_block(x, wq, wk, wv, wo, w1, w2):
    q, k, v = (jnp.einsum("btd,dhe->bhte", x, w) for w in (wq, wk, wv))
    probs = jax.nn.softmax(jnp.einsum("bhse,bhte->bhts", k, q) / jnp.sqrt(q.shape[-1]), axis=-1)
    h = x + jnp.einsum("bhte,hed->btd", jnp.einsum("bhts,bhse->bhte", probs, v), wo)
    return h + jax.nn.relu(h @ w1) @ w2


def block() -> tuple[Callable[[], Any], Callable[[], Any], tuple[Any, ...]]:
    B, T, D, H, Dh, F = 8, 64, 128, 4, 32, 256
    k = jax.random.split(jax.random.PRNGKey(1), 7)
    args = (
        jax.random.normal(k[0], (B, T, D)),
        *(jax.random.normal(k[i], (D, H, Dh)) * D**-0.5 for i in (1, 2, 3)),
        jax.random.normal(k[4], (H, Dh, D)) * Dh**-0.5,
        jax.random.normal(k[5], (D, F)) * D**-0.5,
        jax.random.normal(k[6], (F, D)) * F**-0.5,
    )
    heads = {1: "heads"}
    in_axes = (["batch", "seq", ...], heads, heads, heads, ["heads", ...], {}, {})
    return (
        lambda: xmap(fresh(named_block), in_axes=in_axes, out_axes=["batch", "seq", ...]),
        lambda: jax.jit(fresh(positional_block)),
        args,
    )


# ---- a SerialLoop resource: the batch evaluated in 4 sequential chunks --------------------------


def named_chunked(x, w1, w2):
    return jnp.tanh(x @ w1) @ w2


def positional_chunked(x, w1, w2):
    chunks = x.reshape(4, -1, x.shape[-1])
    out = lax.map(lambda c: jnp.tanh(c @ w1) @ w2, chunks)
    return out.reshape(x.shape[0], -1)


def serial() -> tuple[Callable[[], Any], Callable[[], Any], tuple[Any, ...]]:
    k = jax.random.split(jax.random.PRNGKey(2), 3)
    args = (
        jax.random.normal(k[0], (256, 128)),
        jax.random.normal(k[1], (128, 256)) * 0.1,
        jax.random.normal(k[2], (256, 64)) * 0.1,
    )
    return (
        lambda: xmap(
            fresh(named_chunked),
            in_axes=(["batch", ...], {}, {}),
            out_axes=["batch", ...],
            axis_resources={"batch": SerialLoop(4)},
        ),
        lambda: jax.jit(fresh(positional_chunked)),
        args,
    )


# ---- a collective on an 8-device mesh -----------------------------------------------------------


def named_centered(x, w):
    h = x @ w
    return h - lax.pmean(h, "batch")


def positional_centered(x, w):
    h = x @ w
    return h - jnp.mean(h, axis=0, keepdims=True)


MESH8 = Mesh(np.array(jax.devices()[:8]), ("r",))


def mesh8() -> tuple[Callable[[], Any], Callable[[], Any], tuple[Any, ...]]:
    k = jax.random.split(jax.random.PRNGKey(3), 2)
    rows = NamedSharding(MESH8, PartitionSpec("r"))
    args = (
        jax.device_put(jax.random.normal(k[0], (512, 256)), rows),
        jax.device_put(jax.random.normal(k[1], (256, 256)) * 0.1, NamedSharding(MESH8, PartitionSpec())),
    )
    return (
        lambda: xmap(
            fresh(named_centered), in_axes=(["batch", ...], {}), out_axes=["batch", ...], axis_resources={"batch": "r"}
        ),
        lambda: jax.jit(fresh(positional_centered), out_shardings=rows),
        args,
    )


# ---- timing -------------------------------------------------------------------------------------


def per_call(f: Callable[..., Any], args: tuple[Any, ...], calls: int) -> float:
    jax.block_until_ready(f(*args))
    t = time.perf_counter()
    for _ in range(calls):
        out = f(*args)
    jax.block_until_ready(out)
    return (time.perf_counter() - t) / calls


def fresh(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A new function object with fn's code: JAX's caches (keyed by function identity) miss."""
    return types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def first_call(make: Callable[[], Callable[..., Any]], args: tuple[Any, ...]) -> float:
    f = make()
    t = time.perf_counter()
    jax.block_until_ready(f(*args))
    return time.perf_counter() - t


def interleaved(a: Callable[[], float], b: Callable[[], float], repeats: int) -> tuple[float, float, list[float]]:
    """Medians of a and b and the ratio a/b of each repetition. Each repetition measures both back to
    back, alternating which goes first (ABBA), so drift and a neighbour's load hit both alike; the
    median of the per-repetition ratios is the figure to read on a shared, noisy machine."""
    xs, ys, ratios = [], [], []
    for i in range(repeats):
        if i % 2:
            y = b()
            x = a()
        else:
            x = a()
            y = b()
        xs.append(x)
        ys.append(y)
        ratios.append(x / y)
    return statistics.median(xs), statistics.median(ys), ratios


def spread(ratios: list[float]) -> str:
    """The median ratio and its interquartile range."""
    q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    return f"ratio {statistics.median(ratios):.3f} (IQR {q[0]:.3f}-{q[2]:.3f}, n={len(ratios)})"


def run_case(label: str, build: Callable[[], Any], opts: argparse.Namespace) -> None:
    """Steady-state and first-call ratios of one xmap program against its positional jit version."""
    make_named, make_positional, args = build()
    named, positional = make_named(), make_positional()
    diff = float(jnp.max(jnp.abs(named(*args) - positional(*args))))
    n, p, r = interleaved(
        lambda f=named, a=args: per_call(f, a, opts.calls),
        lambda f=positional, a=args: per_call(f, a, opts.calls),
        opts.repeats,
    )
    print(
        f"{label}: steady state {n * 1e6:8.1f} us vs positional jit {p * 1e6:8.1f} us  "
        f"{spread(r)}  (target <= 1.05; max |difference| {diff:.1e})"
    )
    n, p, r = interleaved(
        lambda m=make_named, a=args: first_call(m, a),
        lambda m=make_positional, a=args: first_call(m, a),
        max(3, opts.repeats // 2),
    )
    print(f"{label}: first call    {n * 1e3:8.1f} ms vs positional jit {p * 1e3:8.1f} ms  {spread(r)}  (target <= 1.3)")


def wide(opts: argparse.Namespace, leaves: int = 2000) -> None:
    """First call of an identity xmap over a dict of `leaves` arrays against jit(vmap) of the same."""
    tree = {f"k{i}": jnp.full((2,), float(i)) for i in range(leaves)}
    n, p, r = interleaved(
        lambda: first_call(lambda: xmap(fresh(_identity), in_axes=["i", ...], out_axes=["i", ...]), (tree,)),
        lambda: first_call(lambda: jax.jit(jax.vmap(fresh(_identity))), (tree,)),
        max(3, opts.repeats // 5),
    )
    print(f"xmap {leaves:,}-leaf dict: first call {n * 1e3:8.1f} ms vs jit(vmap) {p * 1e3:8.1f} ms  {spread(r)}")


def _identity(t: Any) -> Any:
    return t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--only", default="", help="run only the cases whose label contains this text")
    opts = ap.parse_args()
    print(
        f"jax {jax.__version__}, {jax.device_count()} CPU devices; {opts.repeats} interleaved (ABBA) repetitions of "
        f"{opts.calls} calls; ratios are medians of per-repetition ratios"
    )
    cases = (
        ("tutorial MLP loss", mlp, None),
        ("transformer block", block, None),
        ("SerialLoop(4) batch", serial, None),
        ("pmean on an 8-device mesh", mesh8, MESH8),
    )
    for label, build, mesh in cases:
        if opts.only and opts.only not in label:
            continue
        with jax.set_mesh(mesh) if mesh is not None else contextlib.nullcontext():
            run_case(label, build, opts)
    if not opts.only or opts.only in "xmap 2,000-leaf dict":
        wide(opts)
    if opts.only and opts.only not in "@checked":
        return 0

    def dense(x: f32[("B", 256)], w: f32[(256, 256)]) -> f32[("B", 256)]:  # noqa: F821
        return jax.nn.relu(x @ w)

    plain = jax.jit(dense)
    guarded = checked(plain)
    x, w = jnp.ones((32, 256)), jnp.ones((256, 256)) * 0.01
    c, p, r = interleaved(
        lambda: per_call(guarded, (x, w), opts.calls * 3), lambda: per_call(plain, (x, w), opts.calls * 3), opts.repeats
    )
    print(f"@checked eager call: {c * 1e6:8.1f} us vs jitted function {p * 1e6:8.1f} us  {spread(r)}  (target <= 1.2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
